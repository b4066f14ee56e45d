/** Shared wiring for claim tests: a real HTTP client with an injected (instant, recorded) sleep. */
import { openStore } from '../../../src/store/local/database.js';
import { createHttpClient, type HttpClient } from '../../../src/sources/http.js';
import type { EngineConfig, EnginePorts } from '../../../src/engine/types.js';

export const USER_AGENT = 'verity/0.1.0 (+mailto:analyst@example.org)';

export function testHttp(opts: { timeoutMs?: number } = {}): { http: HttpClient; waits: number[] } {
  const waits: number[] = [];
  const real = createHttpClient({ userAgent: USER_AGENT, sleep: async (ms) => void waits.push(ms) });
  // Clients choose their own deadlines (8–30 s); tests shorten them so a hanging fake fails fast.
  const http: HttpClient = opts.timeoutMs
    ? { request: (r) => real.request({ ...r, timeoutMs: opts.timeoutMs }), getJson: (u, o) => real.getJson(u, { ...o, timeoutMs: opts.timeoutMs }) }
    : real;
  return { http, waits };
}

export const fixedClock = { now: () => new Date('2025-01-01T00:00:00Z') };

export function ports(config: EngineConfig, http: HttpClient, withStore = false): EnginePorts {
  let store: ReturnType<typeof openStore> | undefined;
  return {
    clock: fixedClock,
    config,
    http,
    fetchInput: async () => {
      throw new Error('not used by claims');
    },
    store: withStore ? () => (store ??= openStore(':memory:')) : undefined,
  };
}
