/** The SQLite BatchStore on a real file: claims, leases, exactly-once finishing, recovery, cancel. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateServer } from '../../../src/server/accounts.js';
import { createSqliteBatchStore } from '../../../src/store/batches/sqlite.js';
import { openStore, type Store } from '../../../src/store/database.js';

let store: Store | undefined;
let dir = '';
afterEach(() => {
  store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const scope = { accountId: 'acct_1', environment: 'test' as const };
const NOW = '2026-03-10T12:00:00.000Z';

async function setup(n: number) {
  dir = mkdtempSync(join(tmpdir(), 'verity-bstore-'));
  store = await openStore(join(dir, 'verity.db'));
  migrateServer(store.db);
  store.db.prepare("INSERT INTO accounts (id, name, plan, created_at) VALUES ('acct_1', 'a', 'pro', ?)").run(NOW);
  const s = createSqliteBatchStore(store.db);
  const items = Array.from({ length: n }, (_, i) => ({ custom_id: `c${i}`, request: JSON.stringify({ claim: `x${i}` }), credits: 1 }));
  await s.create({ id: 'bat_1', scope, key_id: 'key_1', key_prefix: 'vty_test_AbCd', type: 'claim', metadata: null, created_at: NOW }, items);
  return s;
}

describe('SQLite BatchStore', () => {
  it('finishes an item once: a second finish, or one by a claim that was lost, changes nothing', async () => {
    const s = await setup(3);
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

  it('recover hands back claims of a gone process at once; finalize sets the terminal status once', async () => {
    const s = await setup(2);
    await s.claim('bat_1', 'run_old', 2, 1000, 61_000);
    expect(await s.claim('bat_1', 'run_new', 2, 2000, 62_000)).toHaveLength(0); // leases still held
    expect(await s.recover('run_new')).toBe(2);
    const items = await s.claim('bat_1', 'run_new', 2, 2000, 62_000);
    expect(items).toHaveLength(2);
    expect(await s.finalize('bat_1', NOW)).toBeUndefined(); // items still running
    for (const it of items) await s.finish(it, { status: 'succeeded', result: '{}', credits: 1 }, NOW);
    let terminal = 0;
    expect((await s.finalize('bat_1', NOW, () => terminal++))?.status).toBe('completed');
    expect(await s.finalize('bat_1', NOW, () => terminal++)).toBeUndefined();
    expect(terminal).toBe(1);
  });

  it('cancel ends queued items with a sequence number; a cancelled batch is final', async () => {
    const s = await setup(5);
    const [running] = await s.claim('bat_1', 'run_A', 1, 1000, 61_000);
    const c = (await s.cancel(scope, 'bat_1', NOW))!;
    expect(c).toMatchObject({ status: 'cancelling', cancelled: 4 });
    await s.finish(running!, { status: 'cancelled' }, NOW);
    expect((await s.finalize('bat_1', NOW))?.status).toBe('cancelled');
    const lines = await s.results('bat_1', { after: 0, limit: 10, status: 'cancelled' });
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await s.cancel({ accountId: 'other', environment: 'test' }, 'bat_1', NOW)).toBeUndefined();
  });
});
