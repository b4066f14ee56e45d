/**
 * Retrieval: every selected source is asked at once (Promise.allSettled), so a claim takes as long
 * as the slowest source, not the sum. Each source's outcome is kept: hits, a failure (with the
 * reason), or "not configured" (missing credentials: skipped, never fatal).
 */
import { CLAIM_SOURCES, type ClaimSource } from '../../api/requests.js';
import { SourceNotConfigured, type ClaimHit, type ClaimQuery, type SearchContext } from '../../sources/claim-types.js';
import { searchFactChecks } from '../../sources/fact-check.js';
import { searchGdelt } from '../../sources/gdelt.js';
import { UpstreamError } from '../../sources/http.js';
import { corpusHasRows, migrateCorpus, searchCorpus } from '../../sources/local-corpus.js';
import { searchSemanticScholar } from '../../sources/semantic-scholar.js';
import { searchWeb } from '../../sources/web-search.js';
import { searchWikipedia } from '../../sources/wikipedia.js';
import type { EnginePorts } from '../types.js';

/** Results asked of each source: enough passages to cross-reference, few enough to stay fast. */
export const SOURCE_LIMITS: Record<ClaimSource, number> = {
  wikipedia: 5,
  google_fact_check: 10,
  semantic_scholar: 5,
  gdelt: 10,
  web: 8,
  local: 50, // candidates for BM25 over their sentences (CORPUS_CANDIDATES)
};

type Searcher = (q: ClaimQuery, ports: EnginePorts, ctx: SearchContext) => Promise<ClaimHit[]>;

const SEARCHERS: Record<ClaimSource, Searcher> = {
  wikipedia: (q, p, c) => searchWikipedia(q, p.config, c),
  google_fact_check: (q, p, c) => searchFactChecks(q, p.config, c),
  semantic_scholar: (q, p, c) => searchSemanticScholar(q, p.config, c),
  gdelt: (q, p, c) => searchGdelt(q, p.config, c),
  web: (q, p, c) => searchWeb(q, p.config, c),
  local: async (q, p, c) => {
    if (!p.store) throw new SourceNotConfigured('local', 'no embedded store is available');
    // A search reads: it neither creates the store nor the corpus tables in a store without them.
    const store = await (p.existingStore ?? p.store)();
    // Asked for by name with nothing imported: said, not answered as "no evidence".
    if (!store || !corpusHasRows(store.db)) throw new SourceNotConfigured('local', NO_CORPUS);
    // An existing corpus is brought up to date (its migrations, an interrupted import's index).
    migrateCorpus(store.db);
    return searchCorpus(store.db, q, c.limit);
  },
};

/** Why `local` is skipped when the corpus is empty; verifyClaim makes it the error when `local` is alone. */
export const NO_CORPUS = 'the local corpus is empty: import one with `verity corpus add FILE.jsonl|csv`';

export interface SourceOutcome {
  source: ClaimSource;
  status: 'answered' | 'failed' | 'skipped';
  hits: ClaimHit[];
  reason?: string;
}

/**
 * The sources to ask: the request's list, or the five SPEC sources plus `local` when the user has
 * imported a corpus (an empty or absent corpus is not asked).
 */
export async function selectSources(requested: readonly ClaimSource[] | undefined, ports: EnginePorts): Promise<ClaimSource[]> {
  if (requested?.length) return [...new Set(requested)];
  const all: ClaimSource[] = [...CLAIM_SOURCES];
  if (ports.store) {
    try {
      // Only an existing store can hold a corpus: a claim does not create one to find that out.
      const store = await (ports.existingStore ?? ports.store)();
      if (store && corpusHasRows(store.db)) all.push('local');
    } catch {
      // No usable store: the default is the five SPEC sources.
    }
  }
  return all;
}

function describe(err: unknown): string {
  if (err instanceof UpstreamError || err instanceof SourceNotConfigured) return err.message;
  if (err instanceof Error && err.name === 'VerityError') return err.message;
  return `unexpected error in the client (${err instanceof Error ? err.name : typeof err})`;
}

export async function retrieve(sources: readonly ClaimSource[], query: ClaimQuery, ports: EnginePorts, signal?: AbortSignal): Promise<SourceOutcome[]> {
  const settled = await Promise.allSettled(
    sources.map((s) => SEARCHERS[s](query, ports, { http: ports.http, signal, limit: SOURCE_LIMITS[s] })),
  );
  if (signal?.aborted) throw signal.reason;
  return settled.map((r, i) => {
    const source = sources[i]!;
    if (r.status === 'fulfilled') return { source, status: 'answered', hits: r.value };
    const skipped = r.reason instanceof SourceNotConfigured;
    return { source, status: skipped ? 'skipped' : 'failed', hits: [], reason: describe(r.reason) };
  });
}
