/**
 * The memo of key hashes by Authorization header (auth.ts authenticateSync): only the canonical
 * `Bearer <key>` spelling of a stored key is kept, so padded or re-cased variants of one valid key
 * (each up to the header size limit) cannot fill the process's memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { createAuthenticator } from '../../../src/server/auth.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';
import { FakeClock } from './harness.js';

let dir: string | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('Authorization header memo', () => {
  it('keeps the canonical spelling only; variants are still admitted, each parsed and hashed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-auth-'));
    store = await openStore(join(dir, 'verity.db'));
    migrateServer(store.db);
    const clock = new FakeClock();
    const key = createKey(store.db, { name: 'ci', environment: 'test', plan: 'pro', account: 'ci', now: clock.now() }).key;
    const auth = createAuthenticator(sqliteServerStore(store.db), clock);

    expect(auth.authenticateSync(`Bearer ${key}`, clock.now()).environment).toBe('test');
    expect(auth.memoizedHeaders()).toBe(1);
    for (let pad = 1; pad <= 50; pad++) {
      expect(auth.authenticateSync(`Bearer${' '.repeat(pad + 1)}${key}`, clock.now()).environment).toBe('test');
      expect(auth.authenticateSync(`bEaReR ${key}${' '.repeat(pad)}`, clock.now()).environment).toBe('test');
    }
    expect(auth.memoizedHeaders()).toBe(1);
    // An unknown key is refused and not memoized either.
    expect(() => auth.authenticateSync(`Bearer vty_test_${'A'.repeat(32)}`, clock.now())).toThrow(/Invalid API key/);
    expect(auth.memoizedHeaders()).toBe(1);
    auth.close();
  });
});
