/**
 * General web search behind one provider interface, chosen in config (`sources.web.provider`):
 * - SearXNG (self-hosted metasearch), `GET {base_url}/search?q=…&format=json` — the instance must
 *   enable the JSON format (`search.formats` in settings.yml), otherwise it answers 403;
 *   https://docs.searxng.org/dev/search_api.html
 * - Brave Search API, `GET https://api.search.brave.com/res/v1/web/search` with the
 *   `X-Subscription-Token` header; https://api-dashboard.search.brave.com/app/documentation/web-search
 */
import type { EngineConfig } from './types.js';
import { isRecord, requestJson, SourceNotConfigured, str, type ClaimHit, type ClaimQuery, type SearchContext } from './claim-types.js';

export const BRAVE_BASE_URL = 'https://api.search.brave.com/res/v1';

export interface WebSearchProvider {
  readonly name: 'searxng' | 'brave';
  search(query: ClaimQuery, ctx: SearchContext): Promise<ClaimHit[]>;
}

interface SearxResult {
  url?: string;
  title?: string;
  content?: string;
  publishedDate?: string | null;
  engine?: string;
}

export function searxngProvider(baseUrl: string): WebSearchProvider {
  return {
    name: 'searxng',
    async search(query, ctx) {
      const u = new URL(`${baseUrl.replace(/\/$/, '')}/search`);
      u.searchParams.set('q', query.claim.length > 200 ? query.keywords : query.claim);
      u.searchParams.set('format', 'json');
      u.searchParams.set('language', query.language);
      u.searchParams.set('safesearch', '0');
      const body = await requestJson<{ results?: SearxResult[] }>(
        ctx.http,
        { url: u.toString(), timeoutMs: 8_000, retries: 1, cacheTtlMs: 3_600_000, signal: ctx.signal },
        () => undefined,
      );
      return (body.results ?? [])
        .filter((r) => str(r.url))
        .slice(0, ctx.limit)
        .map((r) => ({
          source: 'web' as const,
          url: r.url!,
          title: r.title ?? '',
          text: [r.title, r.content].filter(Boolean).join('. '),
          published_at: str(r.publishedDate),
          publisher: null,
        }));
    },
  };
}

interface BraveResult {
  title?: string;
  url?: string;
  description?: string;
  page_age?: string;
  age?: string;
  extra_snippets?: string[];
  profile?: { name?: string };
}

/** Brave errors: `{"type":"ErrorResponse","error":{"code":"…","detail":"…","status":422}}`. */
const braveError = (body: unknown): string | undefined =>
  isRecord(body) && isRecord(body.error) ? [str(body.error.code), str(body.error.detail)].filter(Boolean).join(': ') : undefined;

/** Brave descriptions carry <strong> highlight tags. */
const stripTags = (s: string): string => s.replace(/<[^>]+>/g, '');

export function braveProvider(apiKey: string, baseUrl = BRAVE_BASE_URL): WebSearchProvider {
  return {
    name: 'brave',
    async search(query, ctx) {
      const u = new URL(`${baseUrl.replace(/\/$/, '')}/web/search`);
      // Brave caps q at 400 characters and 50 words.
      u.searchParams.set('q', query.claim.length > 200 ? query.keywords : query.claim);
      u.searchParams.set('count', String(Math.min(20, ctx.limit)));
      u.searchParams.set('search_lang', query.language);
      u.searchParams.set('extra_snippets', 'true');
      const body = await requestJson<{ web?: { results?: BraveResult[] } }>(
        ctx.http,
        {
          url: u.toString(),
          headers: { 'x-subscription-token': apiKey, accept: 'application/json' },
          timeoutMs: 8_000,
          retries: 1,
          cacheTtlMs: 3_600_000,
          signal: ctx.signal,
        },
        braveError,
      );
      return (body.web?.results ?? [])
        .filter((r) => str(r.url))
        .slice(0, ctx.limit)
        .map((r) => ({
          source: 'web' as const,
          url: r.url!,
          title: stripTags(r.title ?? ''),
          text: stripTags([r.title, r.description, ...(r.extra_snippets ?? [])].filter(Boolean).join('. ')),
          published_at: str(r.page_age),
          publisher: str(r.profile?.name),
        }));
    },
  };
}

/** The configured provider; SourceNotConfigured when the config cannot run one. */
export function webSearchProvider(config: EngineConfig): WebSearchProvider {
  const cfg = config.sources?.web;
  const provider = cfg?.provider ?? (cfg?.api_key ? 'brave' : 'searxng');
  if (provider === 'brave') {
    if (!cfg?.api_key) throw new SourceNotConfigured('web', 'Brave Search needs an API key (sources.web.api_key)');
    return braveProvider(cfg.api_key, cfg.base_url ?? BRAVE_BASE_URL);
  }
  if (!cfg?.base_url) throw new SourceNotConfigured('web', 'no web search provider configured (sources.web.provider and base_url of a SearXNG instance, or a Brave api_key)');
  return searxngProvider(cfg.base_url);
}

export async function searchWeb(query: ClaimQuery, config: EngineConfig, ctx: SearchContext): Promise<ClaimHit[]> {
  return webSearchProvider(config).search(query, ctx);
}
