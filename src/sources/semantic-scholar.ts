/**
 * Semantic Scholar Graph API, `paper/search`: papers with title, abstract, TLDR, year and
 * citation count. An API key (`x-api-key`) is optional; without one requests share the public pool.
 * https://api.semanticscholar.org/api-docs/graph#tag/Paper-Data/operation/get_graph_paper_relevance_search
 */
import type { EngineConfig } from './types.js';
import { isRecord, requestJson, str, type ClaimHit, type ClaimQuery, type SearchContext } from './claim-types.js';

export const SEMANTIC_SCHOLAR_BASE_URL = 'https://api.semanticscholar.org/graph/v1';

interface Paper {
  paperId?: string;
  url?: string;
  title?: string;
  abstract?: string | null;
  tldr?: { model?: string; text?: string | null } | null;
  year?: number | null;
  publicationDate?: string | null;
  citationCount?: number | null;
  venue?: string | null;
}
interface SearchResponse {
  total?: number;
  offset?: number;
  next?: number;
  data?: Paper[];
}

/** Errors come as `{"error": "..."}` (400) or `{"message": "..."}` (429, 403). */
const s2Error = (body: unknown): string | undefined => (isRecord(body) ? (str(body.error) ?? str(body.message) ?? undefined) : undefined);

export async function searchSemanticScholar(query: ClaimQuery, config: EngineConfig, ctx: SearchContext): Promise<ClaimHit[]> {
  const cfg = config.sources?.semantic_scholar;
  const u = new URL(`${(cfg?.base_url ?? SEMANTIC_SCHOLAR_BASE_URL).replace(/\/$/, '')}/paper/search`);
  u.searchParams.set('query', query.keywords);
  u.searchParams.set('limit', String(Math.min(20, ctx.limit)));
  u.searchParams.set('fields', 'title,abstract,tldr,year,publicationDate,citationCount,venue,url');
  const headers: Record<string, string> = {};
  if (cfg?.api_key) headers['x-api-key'] = cfg.api_key;
  const body = await requestJson<SearchResponse>(
    ctx.http,
    { url: u.toString(), headers, timeoutMs: 10_000, retries: 2, cacheTtlMs: 24 * 3_600_000, signal: ctx.signal },
    s2Error,
  );
  const hits: ClaimHit[] = [];
  for (const p of body.data ?? []) {
    const title = str(p.title);
    if (!title) continue;
    const tldr = str(p.tldr?.text);
    const abstract = str(p.abstract);
    hits.push({
      source: 'semantic_scholar',
      url: str(p.url) ?? (p.paperId ? `https://www.semanticscholar.org/paper/${p.paperId}` : ''),
      title,
      text: [title + '.', tldr, abstract].filter(Boolean).join(' '),
      published_at: str(p.publicationDate) ?? (typeof p.year === 'number' ? `${p.year}-07-01` : null),
      publisher: str(p.venue),
      citation_count: typeof p.citationCount === 'number' ? p.citationCount : 0,
    });
  }
  return hits.filter((h) => h.url).slice(0, ctx.limit);
}
