/**
 * Wikipedia through the MediaWiki Action API: one request that searches (generator=search) and
 * returns each page's plain-text introduction (TextExtracts), canonical URL and the timestamp of its
 * latest revision (prop=revisions, rvprop=timestamp: in multi-page mode MediaWiki returns the
 * latest revision of each page), `formatversion=2`,
 * in the request's language edition. Wikimedia asks clients for a User-Agent with a contact
 * address; the shared HTTP layer sends it.
 * https://www.mediawiki.org/wiki/API:Search · https://www.mediawiki.org/wiki/Extension:TextExtracts
 */
import type { EngineConfig } from './types.js';
import { UpstreamError } from './http.js';
import { hostOf, isRecord, requestJson, str, type ClaimHit, type ClaimQuery, type SearchContext } from './claim-types.js';

/** `{lang}` is replaced by the request's ISO 639-1 code. */
export const WIKIPEDIA_BASE_URL = 'https://{lang}.wikipedia.org/w/api.php';

interface Page {
  pageid?: number;
  title?: string;
  index?: number;
  extract?: string;
  fullurl?: string;
  /** prop=revisions with formatversion=2: the latest revision only, `timestamp` in ISO 8601. */
  revisions?: { timestamp?: string }[];
  missing?: boolean;
}
interface QueryResponse {
  batchcomplete?: boolean;
  query?: { pages?: Page[] };
  error?: { code?: string; info?: string };
}

const mwError = (body: unknown): string | undefined =>
  isRecord(body) && isRecord(body.error) ? [str(body.error.code), str(body.error.info)].filter(Boolean).join(': ') : undefined;

export async function searchWikipedia(query: ClaimQuery, config: EngineConfig, ctx: SearchContext): Promise<ClaimHit[]> {
  const base = (config.sources?.wikipedia?.base_url ?? WIKIPEDIA_BASE_URL).replace('{lang}', query.language);
  const u = new URL(base);
  const p = u.searchParams;
  p.set('action', 'query');
  p.set('format', 'json');
  p.set('formatversion', '2');
  p.set('generator', 'search');
  p.set('gsrsearch', query.keywords);
  p.set('gsrlimit', String(Math.min(10, ctx.limit)));
  p.set('gsrnamespace', '0');
  p.set('prop', 'extracts|info|revisions');
  p.set('rvprop', 'timestamp');
  p.set('exintro', '1');
  p.set('explaintext', '1');
  p.set('exlimit', 'max');
  p.set('inprop', 'url');
  // MediaWiki's etiquette: no gzip-less hammering, and let it shed load when lagged.
  p.set('maxlag', '5');
  const body = await requestJson<QueryResponse>(
    ctx.http,
    { url: u.toString(), timeoutMs: 8_000, retries: 2, cacheTtlMs: 24 * 3_600_000, signal: ctx.signal },
    mwError,
  );
  // MediaWiki reports API errors (bad parameter, maxlag) in a 200 body.
  if (body.error) {
    const host = hostOf(u.toString());
    throw new UpstreamError(host, 'http', `${host} API error: ${mwError(body)}`);
  }
  const pages = (body.query?.pages ?? []).filter((pg) => !pg.missing && str(pg.extract));
  pages.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  return pages.slice(0, ctx.limit).map((pg) => ({
    source: 'wikipedia' as const,
    url: str(pg.fullurl) ?? `https://${query.language}.wikipedia.org/wiki/${encodeURIComponent((pg.title ?? '').replace(/ /g, '_'))}`,
    title: pg.title ?? '',
    text: pg.extract ?? '',
    // The latest revision's timestamp: when the text we read was last edited. (`touched` is a
    // cache-invalidation time that moves on purges and template edits, not an edit date.)
    published_at: str(pg.revisions?.[0]?.timestamp),
    publisher: 'Wikipedia',
  }));
}
