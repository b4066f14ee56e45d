/**
 * The guarantees the hot-path optimisations must keep: cached key rows never outlive a change made
 * by another connection (the admin CLI in another process) or by this one; a group commit stores
 * each request's usage before its answer, and a failing hook rolls back only its own request.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureAccount, revokeKey } from '../../../src/store/sqlite/accounts.js';
import { createGroupCommit } from '../../../src/store/sqlite/group-commit.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { bearer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
let other: Store | undefined;
afterEach(async () => {
  other?.close();
  other = undefined;
  await h?.close();
  h = undefined;
});

const claim = { claim: 'The Eiffel Tower is in Paris' };

/** A second connection to the server's file, as `verity admin` in another process opens it. */
const secondConnection = async (harness: Harness): Promise<Store> => openStore(join(harness.dir, 'verity.db'));

describe('key cache', () => {
  it('answers 401 on the next request after another connection revokes a key the server has cached', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'pro');
    for (let i = 0; i < 3; i++) expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
    other = await secondConnection(h);
    revokeKey(other.db, 'ci', h.clock.now());
    const r = await h.post('/v1/verify/claim', claim, bearer(key));
    expect(r.status).toBe(401);
    expect(r.json.error.message).toMatch(/revoked/);
  });

  it('checks a returning Authorization header against the store on every request (its hash is memoized, not its answer)', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'pro');
    const spaced = { authorization: `bearer   ${key}` }; // another spelling of the same key: parsed on its own
    for (let i = 0; i < 2; i++) {
      expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
      expect((await h.post('/v1/verify/claim', claim, spaced)).status).toBe(200);
    }
    // Revoked on the server's own connection (in-process admin): refused from the next request.
    revokeKey(h.store.db, 'ci', h.clock.now());
    for (const headers of [bearer(key), spaced]) {
      const r = await h.post('/v1/verify/claim', claim, headers);
      expect(r.status).toBe(401);
      expect(r.json.error.message).toMatch(/revoked/);
    }
    // A header that never named a stored key is refused each time (and never memoized).
    const unknown = bearer(`vty_test_${'A'.repeat(32)}`);
    for (let i = 0; i < 2; i++) expect((await h.post('/v1/verify/claim', claim, unknown)).json.error.message).toBe('Invalid API key');
  });

  it('sees a plan change made by another connection and by its own connection at once', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'starter', 'acme');
    // Media needs business: starter is refused before the (empty, invalid) body is looked at.
    expect((await h.post('/v1/verify/media', {}, bearer(key))).json.error.required_plan).toBe('business');
    other = await secondConnection(h);
    ensureAccount(other.db, 'acme', 'business', h.clock.now());
    const upgraded = await h.post('/v1/verify/media', {}, bearer(key));
    expect(upgraded.status).toBe(400);
    expect(upgraded.json.error.code).toBe('VALIDATION_FAILED');
    // Same connection as the server (in-process admin): the TEMP trigger empties the cache.
    ensureAccount(h.store.db, 'acme', 'starter', h.clock.now());
    expect((await h.post('/v1/verify/media', {}, bearer(key))).status).toBe(403);
  });

  it('records last-used times, committed before the answer', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'starter');
    expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
    other = await secondConnection(h);
    // Committed before the answer: visible to another connection right away.
    const row = other.db.prepare('SELECT last_used_at FROM api_keys WHERE name = ?').get('ci') as { last_used_at: string };
    expect(row.last_used_at).toBe(h.clock.now().toISOString());
  });
});

describe('group commit', () => {
  it('commits every concurrent request before its answer, and rolls back only the request whose hook throws', async () => {
    let calls = 0;
    h = await startHarness({
      afterVerification(db, info) {
        calls++;
        if (calls === 3) throw new Error('outbox write failed');
        db.prepare('CREATE TABLE IF NOT EXISTS outbox (id TEXT)').run();
        db.prepare('INSERT INTO outbox VALUES (?)').run(info.result.id);
      },
    });
    const key = h.key('ci', 'test', 'pro');
    other = await secondConnection(h);
    const read = other.db.prepare("SELECT COALESCE(SUM(requests), 0) AS n FROM usage WHERE environment = 'test'").pluck();
    let okSeen = 0;
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = await h!.post('/v1/verify/claim', claim, bearer(key));
        if (r.status === 200) {
          okSeen++;
          // Every answered success is already committed, as seen from another connection.
          expect(read.get() as number).toBeGreaterThanOrEqual(okSeen);
        }
        return r.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(11);
    expect(statuses.filter((s) => s === 500)).toHaveLength(1);
    expect(read.get()).toBe(11);
    expect(other.db.prepare('SELECT COUNT(*) FROM outbox').pluck().get()).toBe(11);
  });

  it('batches writes queued in one turn into one transaction, isolating a failing one', async () => {
    const store = await openStore(':memory:');
    try {
      store.db.exec('CREATE TABLE t (v INTEGER)');
      const commits: number[] = [];
      const writes = createGroupCommit(store.db);
      const insert = store.db.prepare('INSERT INTO t VALUES (?)');
      const results = await Promise.allSettled([
        writes.run(() => insert.run(1)),
        writes.run(() => {
          insert.run(2);
          throw new Error('hook failed');
        }),
        writes.run(() => {
          commits.push(store.db.inTransaction ? 1 : 0);
          return insert.run(3).changes;
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((results[2] as PromiseFulfilledResult<number>).value).toBe(1);
      expect(commits).toEqual([1]);
      expect(store.db.inTransaction).toBe(false);
      expect(store.db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 3]);
    } finally {
      store.close();
    }
  });

  it('rejects queued writes instead of throwing when the store closed before the batch ran', async () => {
    const store = await openStore(':memory:');
    const writes = createGroupCommit(store.db);
    const pending = writes.run(() => 1);
    store.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});
