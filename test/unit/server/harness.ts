/**
 * An in-process server on 127.0.0.1:0 over a real SQLite file, with a settable clock and keys of
 * each kind created through the same code `verity admin keys create` uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../../src/server/app.js';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { createServerEngines, type ServerEngineOptions } from '../../../src/server/engines.js';
import type { ServerDeps } from '../../../src/server/types.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';

export class FakeClock {
  constructor(public ms = Date.UTC(2026, 2, 10, 12, 0, 0)) {}
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface Harness {
  url: string;
  app: FastifyInstance;
  store: Store;
  clock: FakeClock;
  dir: string;
  key(name: string, env: 'live' | 'test', plan: string, account?: string): string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; json: any }>;
  close(): Promise<void>;
}

export async function startHarness(
  o: Partial<Omit<ServerDeps, 'db' | 'engines'>> & { lookup?: ServerEngineOptions['lookup'] } = {},
): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-server-'));
  const store = await openStore(join(dir, 'verity.db'));
  migrateServer(store.db);
  const clock = new FakeClock();
  const engines = createServerEngines({ config: {}, store, cacheDir: join(dir, 'cache'), clock, lookup: o.lookup });
  const app = await buildServer({ logLevel: 'silent', ...o, store: sqliteServerStore(store.db), engines, clock });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    store,
    clock,
    dir,
    key: (name, env, plan, account = name) => createKey(store.db, { name, environment: env, plan, account, now: clock.now() }).key,
    async post(path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await app.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
