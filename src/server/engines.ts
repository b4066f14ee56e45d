/**
 * The server's composition of engines: one set of ports (one HTTP layer, one cache, the server's
 * store) with the SSRF guard on, the sandbox for test keys and the real engine for live keys.
 */
import { createEngine, createSandboxEngine } from '../engine/index.js';
import type { NliClassifier } from '../engine/claim/nli-port.js';
import type { Clock, Engine, EngineConfig } from '../engine/types.js';
import { createInputFetcher, type InputFetcherOptions } from '../sources/fetch-input.js';
import { createDefaultPorts, userAgent } from '../sources/ports.js';
import type { Store } from '../store/database.js';

export interface ServerEngineOptions {
  config: EngineConfig;
  store: Store;
  cacheDir?: string;
  clock?: Clock;
  /** DNS resolution for url inputs (tests: a name that resolves to a private address). */
  lookup?: InputFetcherOptions['lookup'];
  /** The NLI stance model when `claim.stance = nli`. */
  nli?: NliClassifier;
}

export function createServerEngines(o: ServerEngineOptions): { live: Engine; test: Engine } {
  const ports = createDefaultPorts({ config: o.config, store: o.store, cacheDir: o.cacheDir, ssrfGuard: true, clock: o.clock });
  if (o.nli) ports.nli = o.nli;
  if (o.lookup) ports.fetchInput = createInputFetcher({ ssrfGuard: true, userAgent: userAgent(o.config.contact), lookup: o.lookup });
  return { live: createEngine(ports), test: createSandboxEngine(ports) };
}
