/**
 * Composition root for the engine's ports: the CLI (embedded mode) and the server both build
 * their EnginePorts here, so sources see one HTTP layer, one cache and one store.
 */
import { systemClock, type Clock, type EngineConfig, type EnginePorts } from './types.js';
import type { Store } from '../store/local/database.js';
import { createInputFetcher } from '../sources/fetch-input.js';
import { createHttpClient } from '../sources/http.js';
import { VERSION } from '../version.js';
import { SOURCE_RATE_LIMITS } from '../sources/rate-limits.js';

export function userAgent(contact?: string): string {
  return `verity/${VERSION} (+https://github.com/verity-cli/verity${contact ? `; ${contact}` : ''})`;
}

export interface DefaultPortsOptions {
  config: EngineConfig;
  /** Embedded store file, opened on first use. */
  storeFile?: string;
  /** Or an already open store (the server's). */
  store?: Store;
  cacheDir?: string;
  /** Server mode: refuse private/loopback targets for url inputs. */
  ssrfGuard: boolean;
  clock?: Clock;
}

export function createDefaultPorts(o: DefaultPortsOptions): EnginePorts & { closeStore(): void } {
  const ua = userAgent(o.config.contact);
  let opened: Promise<Store> | undefined = o.store ? Promise.resolve(o.store) : undefined;
  const ownsStore = !o.store;
  const ports: EnginePorts & { closeStore(): void } = {
    clock: o.clock ?? systemClock,
    config: o.config,
    http: createHttpClient({ userAgent: ua, cacheDir: o.cacheDir, rateLimits: SOURCE_RATE_LIMITS }),
    fetchInput: createInputFetcher({ ssrfGuard: o.ssrfGuard, userAgent: ua }),
    codeCacheDir: o.cacheDir,
    closeStore() {
      if (ownsStore && opened) void opened.then((s) => s.close()).catch(() => undefined);
    },
  };
  if (o.store || o.storeFile) {
    ports.store = () => {
      opened ??= import('../store/local/database.js').then((m) => m.openStore(o.storeFile!));
      return opened;
    };
  }
  return ports;
}
