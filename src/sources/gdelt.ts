/**
 * GDELT DOC 2.0 API, `mode=artlist&format=json`: news articles worldwide matching keywords.
 * Only headlines are returned, so GDELT items are weak evidence on their own; they count most for
 * cross-referencing and recency. GDELT answers errors with a plain-text/HTML 200 body, and "no
 * results" with `{}`. https://blog.gdeltproject.org/gdelt-doc-2-0-api-debuts/
 */
import type { EngineConfig } from './types.js';
import { UpstreamError } from './http.js';
import { hostOf, shortText, str, type ClaimHit, type ClaimQuery, type SearchContext } from './claim-types.js';

export const GDELT_BASE_URL = 'https://api.gdeltproject.org/api/v2/doc/doc';

/** GDELT's `sourcelang:` operator takes language names. */
const GDELT_LANGUAGES: Record<string, string> = {
  en: 'english', es: 'spanish', fr: 'french', de: 'german', it: 'italian', pt: 'portuguese', nl: 'dutch',
  ru: 'russian', ar: 'arabic', zh: 'chinese', ja: 'japanese', ko: 'korean', hi: 'hindi', tr: 'turkish',
  pl: 'polish', sv: 'swedish', uk: 'ukrainian', id: 'indonesian', fa: 'persian', he: 'hebrew',
};

interface Article {
  url?: string;
  url_mobile?: string;
  title?: string;
  seendate?: string;
  socialimage?: string;
  domain?: string;
  language?: string;
  sourcecountry?: string;
}

/** "20240115T123000Z" → "2024-01-15T12:30:00Z". */
export function parseSeenDate(s: string | undefined): string | null {
  const m = s?.match(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : null;
}

/**
 * GDELT refuses keywords shorter than three characters and most punctuation; terms are ANDed,
 * so a handful of the most specific ones is the best query.
 */
export function gdeltQuery(query: ClaimQuery): string {
  const terms = query.terms
    .map((t) => t.replace(/[^\p{L}\p{N} ]+/gu, ' ').trim())
    .filter((t) => t.length >= 3)
    .slice(0, 5)
    .map((t) => (t.includes(' ') ? `"${t}"` : t));
  const lang = GDELT_LANGUAGES[query.language];
  return [...terms, ...(lang ? [`sourcelang:${lang}`] : [])].join(' ');
}

export async function searchGdelt(query: ClaimQuery, config: EngineConfig, ctx: SearchContext): Promise<ClaimHit[]> {
  const u = new URL(config.sources?.gdelt?.base_url ?? GDELT_BASE_URL);
  u.searchParams.set('query', gdeltQuery(query));
  u.searchParams.set('mode', 'artlist');
  u.searchParams.set('format', 'json');
  u.searchParams.set('maxrecords', String(Math.min(75, ctx.limit)));
  u.searchParams.set('sort', 'hybridrel');
  const host = hostOf(u.toString());
  const res = await ctx.http.request({ url: u.toString(), timeoutMs: 10_000, retries: 2, cacheTtlMs: 3_600_000, signal: ctx.signal });
  const text = res.text();
  if (res.status < 200 || res.status >= 300) {
    throw new UpstreamError(host, res.status === 429 ? 'rate_limited' : 'http', `${host} answered HTTP ${res.status}${text.trim() ? `: ${shortText(text)}` : ''}`, res.status);
  }
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '{}') return [];
  let body: { articles?: Article[] };
  try {
    body = JSON.parse(trimmed) as { articles?: Article[] };
  } catch {
    // An HTML or plain-text body is GDELT telling us what was wrong with the query.
    throw new UpstreamError(host, 'bad_body', `${host} refused the query: ${shortText(trimmed)}`, res.status);
  }
  return (body.articles ?? [])
    .filter((a) => str(a.url) && str(a.title))
    .slice(0, ctx.limit)
    .map((a) => ({
      source: 'gdelt' as const,
      url: a.url!,
      title: a.title!,
      text: a.title!,
      published_at: parseSeenDate(a.seendate),
      publisher: str(a.domain),
    }));
}
