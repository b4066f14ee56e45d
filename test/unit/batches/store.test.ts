/**
 * The BatchStore contract on both stores: SQLite (a real file) and PostgreSQL (a real server when
 * reachable — test/helpers/postgres.ts; skipped with a visible message otherwise). Claims, leases,
 * exactly-once finishing, recovery, cancel; on PostgreSQL also claims by two processes at once and
 * the finish inside the server store's charge commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateServer } from '../../../src/store/sqlite/accounts.js';
import type { PostgresServerStore } from '../../../src/store/postgres/index.js';
import { createSqliteBatchStore } from '../../../src/store/sqlite/batches.js';
import { StaleBatchWrite, type BatchStore } from '../../../src/store/ports/batches.js';
import { openStore } from '../../../src/store/local/database.js';
import { freshDatabase, reachablePostgres } from '../../helpers/postgres.js';

const scope = { accountId: 'acct_1', environment: 'test' as const };
const NOW = '2026-03-10T12:00:00.000Z';

interface Subject {
  /** Two handles on the same data (two processes' views; the same handle twice on SQLite). */
  s: BatchStore;
  other: BatchStore;
  /** A shared store (PostgreSQL): recover waits for the leases instead of handing claims back. */
  shared: boolean;
  pg?: PostgresServerStore;
  close(): Promise<void>;
}

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ custom_id: `c${i}`, request: JSON.stringify({ claim: `x${i}` }), credits: 1 }));
const newBatch = { id: 'bat_1', scope, key_id: 'key_1', key_prefix: 'vty_test_AbCd', type: 'claim' as const, metadata: null, created_at: NOW };

async function sqliteSubject(n: number): Promise<Subject> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-bstore-'));
  const store = await openStore(join(dir, 'verity.db'));
  migrateServer(store.db);
  store.db.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_1', 'a', 'pro', ?)").run(NOW);
  const s = createSqliteBatchStore(store.db);
  await s.create(newBatch, items(n));
  return {
    s,
    other: s,
    shared: false,
    async close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const pgAdmin = await reachablePostgres();

async function postgresSubject(n: number): Promise<Subject> {
  const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
  const { createPostgresBatchStore } = await import('../../../src/store/postgres/batches.js');
  const db = await freshDatabase(pgAdmin!);
  const a = await openPostgresStore({ url: db.url, poolSize: 4, listen: false });
  const b = await openPostgresStore({ url: db.url, poolSize: 4, listen: false, migrate: false });
  await a.sql`INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_1', 'a', 'pro', ${NOW})`;
  const s = createPostgresBatchStore(a.sql);
  await s.create(newBatch, items(n));
  return {
    s,
    other: createPostgresBatchStore(b.sql),
    shared: true,
    pg: a,
    async close() {
      await a.close();
      await b.close();
      await db.drop();
    },
  };
}

const kinds: Array<[string, (n: number) => Promise<Subject>, boolean]> = [
  ['sqlite', sqliteSubject, true],
  ['postgres', postgresSubject, pgAdmin !== undefined],
];

let subject: Subject | undefined;
afterEach(async () => {
  await subject?.close();
  subject = undefined;
});

async function setup(open: (n: number) => Promise<Subject>, n: number): Promise<Subject> {
  subject = await open(n);
  return subject;
}

for (const [kind, open, available] of kinds) {
describe.skipIf(!available)(`BatchStore contract: ${kind}`, () => {
  it('finishes an item once: a second finish, or one by a claim that was lost, changes nothing', async () => {
    const { s } = await setup(open, 3);
    const [a, b] = await s.claim('bat_1', 'run_A', 2, 1000, 61_000);
    expect([a!.index, b!.index]).toEqual([0, 1]);
    let ran = 0;
    expect(await s.finish(a!, { status: 'succeeded', result: '{"id":"r0"}', credits: 1 }, NOW, () => ran++)).toBe(true);
    expect(await s.finish(a!, { status: 'succeeded', result: '{"id":"r0"}', credits: 1 }, NOW, () => ran++)).toBe(false);
    // run_A "crashed": its lease on item 1 expired and run_B took it over.
    const [again] = await s.claim('bat_1', 'run_B', 5, 62_000, 122_000).then((r) => r.filter((x) => x.index === 1));
    expect(again!.owner).toBe('run_B');
    expect(await s.finish(b!, { status: 'failed', error: { code: 'UNAVAILABLE', message: 'x' } }, NOW, () => ran++)).toBe(false);
    expect(await s.finish(again!, { status: 'succeeded', result: '{"id":"r1"}', credits: 1 }, NOW, () => ran++)).toBe(true);
    expect(ran).toBe(2);
    const row = (await s.get(scope, 'bat_1'))!;
    expect(row).toMatchObject({ status: 'running', succeeded: 2, failed: 0, finished: 2, credits_used: 2 });
    expect((await s.results('bat_1', { after: 0, limit: 10 })).map((r) => [r.seq, r.custom_id])).toEqual([
      [1, 'c0'],
      [2, 'c1'],
    ]);
  });

  it('a restarted process gets the claims of a gone one (at once when single-writer, after the lease when shared); finalize sets the terminal status once', async () => {
    const { s, other, shared } = await setup(open, 2);
    await s.claim('bat_1', 'run_old', 2, 1000, 61_000);
    expect(await other.claim('bat_1', 'run_new', 2, 2000, 62_000)).toHaveLength(0); // leases still held
    // Shared: other processes may be alive, so nothing is handed back before the leases expire.
    expect(await other.recover('run_new')).toBe(shared ? 0 : 2);
    const at = shared ? 61_001 : 2000;
    const items = await other.claim('bat_1', 'run_new', 2, at, at + 60_000);
    expect(items).toHaveLength(2);
    expect(await s.finalize('bat_1', NOW)).toBeUndefined(); // items still running
    for (const it of items) expect(await s.finish(it, { status: 'succeeded', result: '{}', credits: 1 }, NOW)).toBe(true);
    let terminal = 0;
    expect((await s.finalize('bat_1', NOW, () => terminal++))?.status).toBe('completed');
    expect(await s.finalize('bat_1', NOW, () => terminal++)).toBeUndefined();
    expect(terminal).toBe(1);
  });

  it('cancel ends queued items with a sequence number; a cancelled batch is final', async () => {
    const { s } = await setup(open, 5);
    const [running] = await s.claim('bat_1', 'run_A', 1, 1000, 61_000);
    const c = (await s.cancel(scope, 'bat_1', NOW))!;
    expect(c).toMatchObject({ status: 'cancelling', cancelled: 4 });
    await s.finish(running!, { status: 'cancelled' }, NOW);
    expect((await s.finalize('bat_1', NOW))?.status).toBe('cancelled');
    const lines = await s.results('bat_1', { after: 0, limit: 10, status: 'cancelled' });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await s.cancel({ accountId: 'other', environment: 'test' }, 'bat_1', NOW)).toBeUndefined();
  });

  it('claims of two processes at once are disjoint, and every item is finished once', async () => {
    const { s, other } = await setup(open, 40);
    const seen = new Map<number, string>();
    for (let round = 0; round < 10; round++) {
      const [a, b] = await Promise.all([s.claim('bat_1', 'run_A', 3, 1000, 61_000), other.claim('bat_1', 'run_B', 3, 1000, 61_000)]);
      for (const it of [...a, ...b]) {
        expect(seen.has(it.index)).toBe(false);
        seen.set(it.index, it.owner);
        const store = it.owner === 'run_A' ? s : other;
        expect(await store.finish(it, { status: 'succeeded', result: '{}', credits: 1 }, NOW)).toBe(true);
      }
      if (a.length + b.length === 0) break;
    }
    expect(seen.size).toBe(40);
    const lines = await s.results('bat_1', { after: 0, limit: 100 });
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(new Set(lines.map((l) => l.custom_id)).size).toBe(40);
    expect((await s.finalize('bat_1', NOW))?.status).toBe('completed');
  });

  it('release hands claims back; list pages newest first; countActive and active see unfinished batches', async () => {
    const { s } = await setup(open, 3);
    const got = await s.claim('bat_1', 'run_A', 2, 1000, 61_000);
    expect(await s.release('run_A', [got[0]!])).toBe(1);
    expect(await s.release('run_A')).toBe(1);
    expect((await s.claim('bat_1', 'run_B', 5, 1000, 61_000)).map((i) => i.index)).toEqual([0, 1, 2]);
    await s.create({ ...newBatch, id: 'bat_2', metadata: { team: 'x' } }, items(1));
    expect((await s.list(scope, { limit: 10 })).map((b) => b.id)).toEqual(['bat_2', 'bat_1']);
    expect((await s.list(scope, { limit: 10, before: 'bat_2' })).map((b) => b.id)).toEqual(['bat_1']);
    expect((await s.get(scope, 'bat_2'))?.metadata).toEqual({ team: 'x' });
    expect(await s.countActive('acct_1')).toBe(2);
    expect((await s.active()).map((b) => [b.id, b.plan])).toEqual([
      ['bat_1', 'pro'],
      ['bat_2', 'pro'],
    ]);
  });
});
}

describe.skipIf(!pgAdmin)('PostgreSQL BatchStore inside the server store commit', () => {
  it('the finish commits with its charge; a finish whose claim was lost rolls the charge back', async () => {
    const { s, pg } = await setup(postgresSubject, 2);
    const [a] = await s.claim('bat_1', 'run_A', 1, 1000, 61_000);
    const charge = (step: ReturnType<BatchStore['finishStep']>) =>
      pg!.commitCharge({
        accountId: 'acct_1',
        environment: 'test',
        period: '2026-03',
        credits: 3,
        nowMs: 1000,
        pgHook: async (tx) => void (await step.postgres!(tx)),
      });
    const ok = { status: 'succeeded' as const, result: '{}', credits: 3 };
    expect(await charge(s.finishStep(a!, ok, NOW))).toEqual({ before: 0, after: 3 });
    await expect(charge(s.finishStep(a!, ok, NOW))).rejects.toBeInstanceOf(StaleBatchWrite);
    const [u] = await pg!.sql<{ credits: number; requests: number }[]>`SELECT credits, requests FROM usage WHERE account_id = 'acct_1'`;
    expect(u).toEqual({ credits: 3, requests: 1 });
    expect(await s.get(scope, 'bat_1')).toMatchObject({ succeeded: 1, finished: 1, credits_used: 3 });
  });

  it('a batch has one credit hold whichever process takes it; it ends with the batch', async () => {
    const { s, pg } = await setup(postgresSubject, 1);
    const hold = (credits: number) => pg!.holdQuota({ accountId: 'acct_1', period: '2026-03', credits, quota: 100, nowMs: Date.UTC(2026, 2, 15), batchId: 'bat_1' });
    const held = async () => (await pg!.sql<{ n: number; c: number }[]>`SELECT count(*)::int AS n, coalesce(sum(credits), 0)::int AS c FROM quota_holds`)[0];
    expect((await hold(60)).ok).toBe(true);
    // Another process holding for the same batch replaces the hold, not adds to it (60 + 60 > 100 would refuse).
    expect((await hold(60)).ok).toBe(true);
    expect(await held()).toEqual({ n: 1, c: 60 });
    // Other requests see the batch's 60 held: 50 more do not fit.
    expect((await pg!.holdQuota({ accountId: 'acct_1', period: '2026-03', credits: 50, quota: 100, nowMs: Date.UTC(2026, 2, 15) })).ok).toBe(false);
    const [it1] = await s.claim('bat_1', 'run_A', 1, 1000, 61_000);
    await s.finish(it1!, { status: 'succeeded', result: '{}', credits: 1 }, NOW);
    expect((await s.finalize('bat_1', NOW))?.status).toBe('completed');
    expect(await held()).toEqual({ n: 0, c: 0 });
  });
});
