/**
 * The SQLite store sums a group commit's charges in memory and writes them as one upsert per
 * account/period/environment before the batch commits. These cases mix that with the charges
 * that write at once (an `afterVerification` hook), with failures, and with another connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import type { UsageTotals } from '../../../src/store/ports/index.js';
import { sqliteServerStore, type SqliteServerStore } from '../../../src/store/sqlite/index.js';
import { createWebhook, deleteWebhook } from '../../../src/store/sqlite/webhooks.js';

const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);
const PERIOD = '2026-03';
let dir: string;
let file: Store;
let other: Store;
let store: SqliteServerStore;
let acct: string;
let acct2: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'verity-batched-usage-'));
  file = await openStore(join(dir, 'verity.db'));
  migrateServer(file.db);
  acct = createKey(file.db, { name: 'a', environment: 'live', account: 'acme', plan: 'pro', now: new Date(NOW) }).account_id;
  acct2 = createKey(file.db, { name: 'b', environment: 'live', account: 'beta', plan: 'pro', now: new Date(NOW) }).account_id;
  store = sqliteServerStore(file.db);
  other = await openStore(join(dir, 'verity.db'));
});

afterEach(async () => {
  await store.close();
  file.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = (account: string, environment = 'live') =>
  other.db.prepare('SELECT credits, requests FROM usage WHERE account_id = ? AND period = ? AND environment = ?').get(account, PERIOD, environment) as
    | { credits: number; requests: number }
    | undefined;
const charge = (accountId: string, credits: number, extra: object = {}): Promise<UsageTotals> =>
  store.commitCharge({ accountId, environment: 'live', period: PERIOD, credits, nowMs: NOW, ...extra });

describe('SQLite store: charges summed per batch', () => {
  it('starts from the stored total, chains before/after in order, and stores the sums with the request counts', async () => {
    file.db.prepare("INSERT INTO usage (account_id, period, environment, credits, requests) VALUES (?, ?, 'live', 40, 7)").run(acct, PERIOD);
    const totals = await Promise.all([charge(acct, 1), charge(acct2, 5), charge(acct, 3), charge(acct, 2)]);
    expect(totals).toEqual([
      { before: 40, after: 41 },
      { before: 0, after: 5 },
      { before: 41, after: 44 },
      { before: 44, after: 46 },
    ]);
    // Committed before the promises settled: another connection sees the sums.
    expect(stored(acct)).toEqual({ credits: 46, requests: 10 });
    expect(stored(acct2)).toEqual({ credits: 5, requests: 1 });
    // The next batch starts from the stored total again.
    expect(await charge(acct, 4)).toEqual({ before: 46, after: 50 });
    expect(stored(acct)).toEqual({ credits: 50, requests: 11 });
  });

  it('a charge with an afterVerification hook sees the table current, the batch around it stays exact', async () => {
    const seenInHook: Array<{ usage: UsageTotals; table: unknown }> = [];
    const read = file.db.prepare('SELECT credits, requests FROM usage WHERE account_id = ? AND period = ? AND environment = ?');
    const totals = await Promise.all([
      charge(acct, 1),
      charge(acct, 2),
      charge(acct, 3, { sqliteHook: (_db: unknown, usage: UsageTotals) => void seenInHook.push({ usage, table: read.get(acct, PERIOD, 'live') }) }),
      charge(acct, 4),
    ]);
    expect(totals.map((t) => [t.before, t.after])).toEqual([
      [0, 1],
      [1, 3],
      [3, 6],
      [6, 10],
    ]);
    expect(seenInHook).toEqual([{ usage: { before: 3, after: 6 }, table: { credits: 6, requests: 3 } }]);
    expect(stored(acct)).toEqual({ credits: 10, requests: 4 });
  });

  it('a hook that throws takes back only its own charge; the summed charges before it are still stored', async () => {
    const results = await Promise.allSettled([
      charge(acct, 1),
      charge(acct, 2, {
        sqliteHook: () => {
          throw new Error('hook failed');
        },
      }),
      charge(acct, 4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseFulfilledResult<UsageTotals>).value).toEqual({ before: 1, after: 5 });
    expect(stored(acct)).toEqual({ credits: 5, requests: 2 });
  });

  it('events that fail to be written take back only that charge', async () => {
    const results = await Promise.allSettled([
      charge(acct, 1),
      charge(acct, 2, {
        outbox: () => {
          throw new Error('no events today');
        },
      }),
      charge(acct, 4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(stored(acct)).toEqual({ credits: 5, requests: 2 });
  });

  it('when the summed write fails, the whole batch fails and nothing of it is stored (not even last-used times)', async () => {
    file.db.exec(`CREATE TEMP TRIGGER no_usage BEFORE INSERT ON main.usage BEGIN SELECT RAISE(ABORT, 'usage refused'); END`);
    const keyId = (file.db.prepare("SELECT id FROM api_keys WHERE name = 'a'").get() as { id: string }).id;
    store.touchKey(keyId, new Date(NOW));
    const results = await Promise.allSettled([charge(acct, 1), charge(acct2, 2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/usage refused/);
    expect(stored(acct)).toBeUndefined();
    expect(other.db.prepare('SELECT last_used_at FROM api_keys WHERE id = ?').pluck().get(keyId)).toBeNull();
    // The next batch is not affected by what the failed one had summed.
    file.db.exec('DROP TRIGGER temp.no_usage');
    expect(await charge(acct, 3)).toEqual({ before: 0, after: 3 });
    expect(stored(acct)).toEqual({ credits: 3, requests: 1 });
  });
});

describe('SQLite store: a charge\'s events while no webhook endpoint is registered', () => {
  const event = (n: number) => ({ id: `wh_evt${n}`, type: 'verification.completed' as const, created_at: new Date(NOW).toISOString(), data: { n } });
  const queuedEvents = () => (other.db.prepare('SELECT id FROM webhook_events ORDER BY id').pluck().all() as string[]);
  const withEvent = (n: number, extra: object = {}) => ({ outbox: () => [{ scope: acct, event: event(n) }], ...extra });

  it('queues nothing without an endpoint, then the next charge\'s event once another connection registers one', async () => {
    await charge(acct, 1, withEvent(1));
    expect(queuedEvents()).toEqual([]);
    // Another connection (an admin command on the same file): seen through data_version.
    createWebhook(other.db, acct, { url: 'https://example.test/hook', events: ['verification.completed'] }, new Date(NOW));
    await charge(acct, 1, withEvent(2));
    expect(queuedEvents()).toEqual(['wh_evt2']);
    expect(stored(acct)).toEqual({ credits: 2, requests: 2 });
  });

  it('wakes the delivery worker once per batch that queued deliveries, after the commit, and not for a batch that queued none', async () => {
    const seen: string[][] = [];
    const unsubscribe = store.outbox.subscribe(() => seen.push(queuedEvents()));
    await Promise.all([charge(acct, 1, withEvent(1)), charge(acct, 1)]);
    expect(seen).toEqual([]);
    createWebhook(other.db, acct, { url: 'https://example.test/hook', events: ['verification.completed'] }, new Date(NOW));
    await Promise.all([charge(acct, 1, withEvent(2)), charge(acct, 1, withEvent(3))]);
    // Called once, when another connection could already read both events (committed).
    expect(seen).toEqual([['wh_evt2', 'wh_evt3']]);
    unsubscribe();
  });

  it('sees an endpoint registered on its own connection in the same batch, and forgets it once removed', async () => {
    await charge(acct, 1, withEvent(1));
    const hook = createWebhook(file.db, acct, { url: 'https://example.test/hook', events: ['verification.completed'] }, new Date(NOW));
    await charge(acct, 1, withEvent(2));
    expect(queuedEvents()).toEqual(['wh_evt2']);
    deleteWebhook(file.db, acct, hook.id, new Date(NOW));
    await charge(acct, 1, withEvent(3));
    expect(queuedEvents()).toEqual(['wh_evt2']);
  });

  it('asks the events for the once-per-period ones only while no endpoint exists, for all of them once one does', async () => {
    const asked: unknown[] = [];
    const outbox = (_usage: UsageTotals, o?: { onceOnly?: boolean }) => (asked.push(o), [{ scope: acct, event: event(asked.length) }]);
    await charge(acct, 1, { outbox });
    createWebhook(other.db, acct, { url: 'https://example.test/hook', events: ['verification.completed'] }, new Date(NOW));
    await charge(acct, 1, { outbox });
    expect(asked).toEqual([{ onceOnly: true }, undefined]);
    expect(queuedEvents()).toEqual(['wh_evt2']);
  });

  it('still marks a crossed credit threshold with no endpoint (it fires once per period, recipients or not)', async () => {
    await charge(acct, 1, { outbox: () => [{ scope: acct, event: event(1), once: { period: PERIOD, threshold: 80 } }] });
    expect(other.db.prepare('SELECT threshold FROM webhook_credit_thresholds WHERE account_id = ?').pluck().all(acct)).toEqual([80]);
    expect(queuedEvents()).toEqual([]);
  });

  it('an event write that fails takes back only its own charge, when the endpoint appeared after the charge was queued', async () => {
    // No endpoint yet: the next charges are queued without a savepoint of their own …
    await charge(acct, 1, withEvent(0));
    // … and one appears before their batch runs: their events get a savepoint there.
    createWebhook(other.db, acct, { url: 'https://example.test/hook', events: ['verification.completed'] }, new Date(NOW));
    const results = await Promise.allSettled([
      charge(acct, 1),
      // The same event id twice: the second insert fails (primary key).
      charge(acct, 2, withEvent(7)),
      charge(acct, 4, withEvent(7)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(stored(acct)).toEqual({ credits: 4, requests: 3 });
    expect(queuedEvents()).toEqual(['wh_evt7']);
  });
});
