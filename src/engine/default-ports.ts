/**
 * Composition root for the engine's ports: the CLI (embedded mode) and the server both build
 * their EnginePorts here, so sources see one HTTP layer, one cache and one store.
 */
import { storeFileMissing } from './store-file.js';
import { systemClock, type Clock, type EngineConfig, type EnginePorts } from './types.js';
import type { Store } from '../store/local/database.js';
import type { InputFetcher } from '../sources/types.js';
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
    fetchInput: lazyInputFetcher(o.ssrfGuard, ua),
    codeCacheDir: o.cacheDir,
    closeStore() {
      if (ownsStore && opened) void opened.then((s) => s.close()).catch(() => undefined);
    },
  };
  if (o.store || o.storeFile) {
    const store = (): Promise<Store> => {
      opened ??= import('../store/local/database.js').then((m) => m.openStore(o.storeFile!));
      return opened;
    };
    ports.store = store;
    ports.existingStore = async () => (opened || !storeFileMissing(o.storeFile) ? store() : null);
    ports.storeAbsent = () => !opened && storeFileMissing(o.storeFile);
  }
  return ports;
}

/**
 * The URL fetcher, loaded on its first URL: with it come node:dns, node:net and the address
 * guard's ipaddr.js (an external package compiled from source), which a verification of a local
 * file never uses.
 */
function lazyInputFetcher(ssrfGuard: boolean, userAgent: string): InputFetcher {
  let fetcher: Promise<InputFetcher> | undefined;
  return async (url, opts) => {
    fetcher ??= import('../sources/fetch-input.js').then((m) => m.createInputFetcher({ ssrfGuard, userAgent }));
    return (await fetcher)(url, opts);
  };
}
