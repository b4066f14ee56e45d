/**
 * The server's composition of engines: one set of ports (one HTTP layer, one cache, the server's
 * store) with the SSRF guard on, the sandbox for test keys and the real engine for live keys.
 * With an analysis pool (serve), both engines' media and document verifications run in its
 * workers (analysis-pool.ts), each of which has ports of its own with the same settings.
 */
import { createEngine, createSandboxEngine } from '../engine/index.js';
import type { NliClassifier } from '../engine/claim/nli-port.js';
import type { Clock, Engine, EngineConfig } from '../engine/types.js';
import { createInputFetcher, type InputFetcherOptions } from '../sources/fetch-input.js';
import { createDefaultPorts, userAgent } from '../engine/default-ports.js';
import type { Store } from '../store/local/database.js';
import { withAnalysisPool, type AnalysisPool } from './analysis-pool.js';

export interface ServerEngineOptions {
  config: EngineConfig;
  store: Store;
  cacheDir?: string;
  clock?: Clock;
  /** DNS resolution for url inputs (tests: a name that resolves to a private address). */
  lookup?: InputFetcherOptions['lookup'];
  /** The NLI stance model when `claim.stance = nli`. */
  nli?: NliClassifier;
  /** Media and document verification in worker threads with a per-job budget (serve); absent → on this thread. */
  analysis?: AnalysisPool;
}

export function createServerEngines(o: ServerEngineOptions): { live: Engine; test: Engine } {
  const ports = createDefaultPorts({ config: o.config, store: o.store, cacheDir: o.cacheDir, ssrfGuard: true, clock: o.clock });
  if (o.nli) ports.nli = o.nli;
  if (o.lookup) ports.fetchInput = createInputFetcher({ ssrfGuard: true, userAgent: userAgent(o.config.contact), lookup: o.lookup });
  const live = createEngine(ports);
  const test = createSandboxEngine(ports);
  if (!o.analysis) return { live, test };
  return { live: withAnalysisPool(live, o.analysis, 'live'), test: withAnalysisPool(test, o.analysis, 'sandbox') };
}
