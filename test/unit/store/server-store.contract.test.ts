/**
 * One contract, two stores: every case runs against the SQLite store (a real file) and the
 * PostgreSQL store (a real server, when reachable — see test/helpers/postgres.ts). Cases that only
 * a shared store can show (a duplicate from another process, limits across workers) say so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../../src/domain/keys.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import type { OutboxEntry, ServerStore } from '../../../src/store/ports/index.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';
import { createDeliveryWorker, systemWorkerClock } from '../../../src/webhooks/delivery.js';
import { envelope } from '../../../src/domain/events.js';
import { freshDatabase, reachablePostgres } from '../../helpers/postgres.js';

interface Subject {
  store: ServerStore;
  /** A second handle on the same data (another process's view). */
  other: ServerStore;
  /** PostgreSQL only: the database's URL, for a third handle a test may break. */
  url?: string;
  close(): Promise<void>;
}

const LANE = { ratePerSecond: 10, rateWindowMs: 1_020, minGapMs: 50, maxInFlight: 4 };
const NOW = Date.UTC(2026, 2, 10, 12, 0, 0);

async function sqliteSubject(): Promise<Subject> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-contract-'));
  const file: Store = await openStore(join(dir, 'verity.db'));
  const file2: Store = await openStore(join(dir, 'verity.db'));
  const store = sqliteServerStore(file.db);
  const other = sqliteServerStore(file2.db);
  return {
    store,
    other,
    async close() {
      await store.close();
      await other.close();
      file.close();
      file2.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const pgAdmin = await reachablePostgres();

async function postgresSubject(): Promise<Subject> {
  const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
  const db = await freshDatabase(pgAdmin!);
  const store = await openPostgresStore({ url: db.url, poolSize: 4 });
  const other = await openPostgresStore({ url: db.url, poolSize: 4 });
  return {
    store,
    other,
    url: db.url,
    async close() {
      await store.close();
      await other.close();
      await db.drop();
    },
  };
}

const kinds: Array<[string, () => Promise<Subject>, boolean]> = [
  ['sqlite', sqliteSubject, true],
  ['postgres', postgresSubject, pgAdmin !== undefined],
];

for (const [kind, open, available] of kinds) {
  describe.skipIf(!available)(`server store contract: ${kind}`, () => {
    let s: Subject;
    beforeAll(async () => {
      s = await open();
    });
    afterAll(async () => {
      await s?.close();
    });

    const key = async (name: string, env: 'live' | 'test', plan = 'pro', account = name) => {
      const k = await s.store.admin.createKey({ name, environment: env, account, plan, now: new Date(NOW) });
      return { ...k, hash: hashKey(k.key) };
    };

    it('finds keys by hash, and a revocation through one handle shows through the other on the next look-up', async () => {
      const k = await key('alpha', 'test');
      expect(await s.store.findKey(k.hash)).toMatchObject({ id: k.id, account_id: k.account_id, environment: 'test', plan: 'pro', revoked_at: null });
      expect(await s.store.findKey(hashKey(`vty_test_${'x'.repeat(32)}`))).toBeUndefined();
      await s.other.admin.revokeKey('alpha', new Date(NOW + 1000));
      expect((await s.store.findKey(k.hash))?.revoked_at).toBe(new Date(NOW + 1000).toISOString());
      expect((await s.store.admin.listKeys()).map((r) => r.name)).not.toContain('alpha');
      expect((await s.store.admin.listKeys({ includeRevoked: true })).map((r) => r.name)).toContain('alpha');
      await expect(s.store.admin.createKey({ name: 'alpha', environment: 'test', account: 'x', now: new Date(NOW) })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
      });
      await expect(s.store.admin.revokeKey('nope', new Date(NOW))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('plans are per account: a different --plan for an existing account is refused unless changePlan, naming its plan and keys', async () => {
      await s.store.admin.createKey({ name: 'acme-1', environment: 'test', account: 'acme', plan: 'business', now: new Date(NOW) });
      await s.store.admin.createKey({ name: 'acme-2', environment: 'live', account: 'acme', now: new Date(NOW) });
      const refused = await s.store.admin
        .createKey({ name: 'acme-3', environment: 'test', account: 'acme', plan: 'starter', now: new Date(NOW) })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'plan' }] });
      expect((refused as Error).message).toBe(
        'Account "acme" is on the business plan with 2 active keys; plans are per account, so --plan starter would move all 2 of its keys to starter',
      );
      const plans = async () => (await s.store.admin.listKeys()).filter((k) => k.account_name === 'acme').map((k) => [k.name, k.plan]);
      expect(await plans()).toEqual([['acme-1', 'business'], ['acme-2', 'business']]); // nothing moved, no key made
      // The same plan, or none, adds a key; changePlan moves the whole account.
      expect((await s.store.admin.createKey({ name: 'acme-3', environment: 'test', account: 'acme', plan: 'business', now: new Date(NOW) })).plan).toBe('business');
      await s.store.admin.createKey({ name: 'acme-4', environment: 'test', account: 'acme', plan: 'enterprise', changePlan: true, now: new Date(NOW) });
      expect(await plans()).toEqual([['acme-1', 'enterprise'], ['acme-2', 'enterprise'], ['acme-3', 'enterprise'], ['acme-4', 'enterprise']]);
    });

    it('accepts exactly `limit` of many concurrent rate takes, and says when a slot frees', async () => {
      const policy = { limit: 100, windowMs: 3_600_000 };
      const results = await Promise.all(Array.from({ length: 150 }, () => s.store.takeRate('key_rate', policy, NOW)));
      expect(results.filter((r) => r.allowed)).toHaveLength(100);
      const refused = results.find((r) => !r.allowed)!;
      expect(refused).toMatchObject({ remaining: 0, limit: 100, windowSeconds: 3600 });
      expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(refused.resetSeconds).toBeLessThanOrEqual(3600);
      expect(Math.min(...results.filter((r) => r.allowed).map((r) => r.remaining))).toBe(0);
    });

    it('holds quota for running requests, turns a hold into usage in the commit, and refuses past the quota', async () => {
      const k = await key('quota', 'live', 'starter');
      const period = '2026-03';
      const hold = async (credits: number) => s.store.holdQuota({ accountId: k.account_id, period, credits, quota: 10, nowMs: NOW });
      const a = await hold(6);
      expect(a.ok).toBe(true);
      expect(await hold(6)).toEqual({ ok: false, used: 0 });
      const b = await hold(4);
      expect(b.ok).toBe(true);
      if (!b.ok || !a.ok) return;
      await s.store.releaseHold(b.hold);
      const usage = await s.store.commitCharge({ accountId: k.account_id, environment: 'live', period, credits: 6, nowMs: NOW, hold: a.hold });
      expect(usage).toEqual({ before: 0, after: 6 });
      expect(await hold(5)).toEqual({ ok: false, used: 6 });
      expect((await hold(4)).ok).toBe(true);
      expect((await s.store.admin.listUsage(period)).find((u) => u.account_name === 'quota')).toMatchObject({ credits: 6, requests: 1, environment: 'live' });
    });

    it('idempotency: new, then replayed after the commit, refused for another request under the same key', async () => {
      const k = await key('idem', 'test');
      expect(await s.store.idempotencyBegin(k.account_id, 'K1', 'h1', NOW)).toEqual({ state: 'new' });
      if (s.store.kind === 'postgres') {
        // A shared store: another process sees the first request running.
        expect(await s.other.idempotencyBegin(k.account_id, 'K1', 'h1', NOW)).toEqual({ state: 'running' });
      }
      await s.store.commitCharge({
        accountId: k.account_id, environment: 'test', period: '2026-03', credits: 1, nowMs: NOW,
        idempotency: { accountId: k.account_id, key: 'K1', hash: 'h1', response: { status: 200, body: '{"id":"x"}' } },
      });
      expect(await s.other.idempotencyBegin(k.account_id, 'K1', 'h1', NOW + 1000)).toEqual({ state: 'replay', response: { status: 200, body: '{"id":"x"}' } });
      await expect(s.store.idempotencyBegin(k.account_id, 'K1', 'h2', NOW)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      // After 24 h the key is new again.
      expect(await s.store.idempotencyBegin(k.account_id, 'K1', 'h1', NOW + 24 * 3_600_000 + 1)).toEqual({ state: 'new' });
      // (That request, a day later, started the store's hourly purge of records older than a day:
      // let it finish before the records below, written at NOW, are looked at.)
      await s.store.flush();
      // A failed request is forgotten, so it can be retried.
      expect(await s.store.idempotencyBegin(k.account_id, 'K2', 'h', NOW)).toEqual({ state: 'new' });
      await s.store.idempotencyAbandon(k.account_id, 'K2');
      expect(await s.other.idempotencyBegin(k.account_id, 'K2', 'h', NOW)).toEqual({ state: 'new' });
    });

    it('commits usage and outbox together, once-only thresholds once, and nothing when the outbox function throws', async () => {
      const k = await key('hooks', 'live', 'pro');
      const scope = `${k.account_id}/live`;
      const w = await s.store.webhooks.create(scope, { url: 'https://hooks.example.com/in', events: ['verification.completed', 'credit.threshold'] }, new Date(NOW));
      expect(w.secret).toMatch(/.{32,}/);
      expect((await s.store.webhooks.list(scope)).map((x) => x.id)).toEqual([w.id]);
      const entries = (): OutboxEntry[] => [
        { scope, event: envelope('verification.completed', { request_id: 'vrf_clm_a' }, new Date(NOW)) },
        { scope, event: envelope('credit.threshold', { threshold: 75 }, new Date(NOW)), once: { period: '2026-03', threshold: 75 } },
      ];
      const before = await s.store.outbox.outstanding();
      await s.store.commitCharge({ accountId: k.account_id, environment: 'live', period: '2026-03', credits: 2, nowMs: NOW, outbox: entries });
      await s.store.commitCharge({ accountId: k.account_id, environment: 'live', period: '2026-03', credits: 2, nowMs: NOW, outbox: entries });
      // 2 completed + 1 threshold.
      expect((await s.store.outbox.outstanding()) - before).toBe(3);
      await expect(
        s.store.commitCharge({
          accountId: k.account_id, environment: 'live', period: '2026-03', credits: 50, nowMs: NOW,
          outbox: () => {
            throw new Error('hook failed');
          },
        }),
      ).rejects.toThrow('hook failed');
      expect((await s.store.admin.listUsage('2026-03')).find((u) => u.account_name === 'hooks')).toMatchObject({ credits: 4, requests: 2 });
      expect((await s.store.outbox.outstanding()) - before).toBe(3);
      // A failure event commits alone.
      await s.store.commitFailure({ outbox: [{ scope, event: envelope('verification.failed', { request_id: 'vrf_clm_b' }, new Date(NOW)) }] });
      expect((await s.store.outbox.outstanding()) - before).toBe(3); // not subscribed to verification.failed
    });

    it('commits test usage with its idempotency records and outbox: nothing of a charge whose outbox function throws, events once an endpoint exists (created through another handle)', async () => {
      const k = await key('test-commit', 'test');
      const scope = `${k.account_id}/test`;
      const period = '2026-05';
      const usage = async () => (await s.other.admin.listUsage(period)).find((u) => u.account_name === 'test-commit');
      const completed = (id: string): OutboxEntry[] => [{ scope, event: envelope('verification.completed', { request_id: id }, new Date(NOW)) }];
      const charge = (credits: number, idem?: string, outbox: (u: { before: number; after: number }) => OutboxEntry[] = () => completed(`vrf_${credits}`)) =>
        s.store.commitCharge({
          accountId: k.account_id, environment: 'test', period, credits, nowMs: NOW, outbox,
          ...(idem ? { idempotency: { accountId: k.account_id, key: idem, hash: `h-${idem}`, response: { status: 200, body: `{"id":"${idem}"}` } } } : {}),
        });
      const before = await s.store.outbox.outstanding();
      // No endpoint for the scope: usage and idempotency records committed, nothing queued; a
      // charge whose outbox function throws (in the same batch) leaves neither usage nor record.
      const results = await Promise.allSettled([
        charge(1, 'T1'),
        charge(2, 'T2', () => {
          throw new Error('hook failed');
        }),
        charge(3, 'T3'),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await usage()).toMatchObject({ credits: 4, requests: 2 });
      expect(await s.other.idempotencyBegin(k.account_id, 'T1', 'h-T1', NOW)).toEqual({ state: 'replay', response: { status: 200, body: '{"id":"T1"}' } });
      expect(await s.other.idempotencyBegin(k.account_id, 'T3', 'h-T3', NOW)).toEqual({ state: 'replay', response: { status: 200, body: '{"id":"T3"}' } });
      expect(await s.other.idempotencyBegin(k.account_id, 'T2', 'h-T2', NOW)).toEqual({ state: 'new' });
      expect((await s.store.outbox.outstanding()) - before).toBe(0);
      // An endpoint created through the other handle: this store's very next commit queues the event.
      await s.other.webhooks.create(scope, { url: 'https://test-commit.example.com/in', events: ['verification.completed'] }, new Date(NOW));
      expect(await charge(5)).toEqual({ before: 4, after: 9 });
      expect((await s.store.outbox.outstanding()) - before).toBe(1);
      expect(await usage()).toMatchObject({ credits: 9, requests: 3 });
    });

    it('takes back nothing but the charge whose outbox function throws, in a batch of test charges without idempotency records (the one-statement commit on PostgreSQL)', async () => {
      const k = await key('test-takeback', 'test');
      const period = '2026-07';
      const usage = async () => (await s.other.admin.listUsage(period)).find((u) => u.account_name === 'test-takeback');
      const charge = (credits: number, outbox: () => OutboxEntry[] = () => []) =>
        s.store.commitCharge({ accountId: k.account_id, environment: 'test', period, credits, nowMs: NOW, outbox });
      const before = await s.store.outbox.outstanding();
      const results = await Promise.allSettled([
        charge(1),
        charge(2, () => {
          throw new Error('hook failed');
        }),
        charge(4),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await usage()).toMatchObject({ credits: 5, requests: 2 });
      expect((await s.store.outbox.outstanding()) - before).toBe(0);
      // The chain of totals goes on from the taken-back state.
      expect(await charge(8)).toEqual({ before: 5, after: 13 });
    });

    it('a retry never replays the stored answer of a charge whose outbox function throws (another handle, while the function runs)', async () => {
      // Another process's retry with the same Idempotency-Key, sent while the outbox function runs
      // (after the usage statement, before any take-back). It must end as a fresh attempt ('new':
      // the failed charge's record is gone) — never as a replay of the 200 that was not answered.
      // On PostgreSQL it waits on the record's row lock until the commit transaction ends.
      const k = await key('idem-window', 'test');
      let retry: Promise<unknown> | undefined;
      const charge = (idem: string, outbox: () => OutboxEntry[]) =>
        s.store.commitCharge({
          accountId: k.account_id, environment: 'test', period: '2026-06', credits: 1, nowMs: NOW, outbox,
          idempotency: { accountId: k.account_id, key: idem, hash: `h-${idem}`, response: { status: 200, body: `{"id":"${idem}"}` } },
        });
      for (const idem of ['W1', 'W2']) expect(await s.store.idempotencyBegin(k.account_id, idem, `h-${idem}`, NOW)).toEqual({ state: 'new' });
      const results = await Promise.allSettled([
        charge('W1', () => []),
        charge('W2', () => {
          retry = s.other.idempotencyBegin(k.account_id, 'W2', 'h-W2', NOW);
          throw new Error('hook failed');
        }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
      expect(retry).toBeDefined();
      expect(await retry).toEqual({ state: 'new' });
      expect(await s.other.idempotencyBegin(k.account_id, 'W1', 'h-W1', NOW)).toEqual({ state: 'replay', response: { status: 200, body: '{"id":"W1"}' } });
      expect((await s.other.admin.listUsage('2026-06')).find((u) => u.account_name === 'idem-window')).toMatchObject({ credits: 1, requests: 1 });
    });

    it('claims a due delivery exactly once among concurrent claimers, records the attempt, and gives a released claim back', async () => {
      const k = await key('outbox', 'test');
      const scope = `${k.account_id}/test`;
      const w = await s.store.webhooks.create(scope, { url: 'https://outbox.example.com/in', events: ['verification.completed'] }, new Date(NOW));
      const { deliveryId, event } = await s.store.webhooks.enqueueTest(scope, w.id, undefined, NOW);
      const due = await s.store.outbox.due(NOW, 40);
      expect(due.map((d) => d.id)).toContain(deliveryId);
      const claims = await Promise.all([s.store, s.other, s.store, s.other].map((x) => x.outbox.claim(deliveryId, NOW, 30_000, LANE)));
      const won = claims.filter((c) => c && !('deferred' in c));
      expect(won).toHaveLength(1);
      const claim = won[0] as Exclude<(typeof won)[number], undefined | { deferred: true }>;
      expect(claim).toMatchObject({ id: deliveryId, event_id: event.id, url: 'https://outbox.example.com/in', attempt: 1, replay: false });
      expect(JSON.parse(claim.body)).toMatchObject({ id: event.id, type: 'verification.completed' });
      // Graceful shutdown gives it back: due at once, the attempt not counted.
      await s.store.outbox.release([claim], NOW);
      const again = await s.other.outbox.claim(deliveryId, NOW + 100, 30_000, LANE);
      expect(again).toMatchObject({ id: deliveryId, attempt: 1 });
      if (!again || 'deferred' in again) return;
      await s.other.outbox.recordAttempt(again, { startedAt: NOW + 100, finishedAt: NOW + 150, ok: false, statusCode: 500, error: 'HTTP 500', nextAt: NOW + 10_150 });
      const log = await s.store.webhooks.deliveryLog(scope, w.id);
      expect(log.data[0]).toMatchObject({ event_id: event.id, outcome: 'failed', status_code: 500, attempt: 1 });
      expect(log.outstanding[0]).toMatchObject({ status: 'pending', attempts: 1 });
      expect(await s.store.outbox.claim(deliveryId, NOW + 200, 30_000, LANE)).toBeUndefined(); // not due yet
      // An expired lease is due again: the lost attempt is logged, the event goes out with the same id.
      const third = await s.store.outbox.claim(deliveryId, NOW + 10_150, 1_000, LANE);
      expect(third).toMatchObject({ attempt: 2, event_id: event.id });
      const fourth = await s.other.outbox.claim(deliveryId, NOW + 11_151, 1_000, LANE);
      expect(fourth).toMatchObject({ attempt: 3, event_id: event.id });
      expect((await s.store.webhooks.deliveryLog(scope, w.id)).data[0]).toMatchObject({ outcome: 'lost', attempt: 2 });
      expect(await s.store.webhooks.replay(scope, event.id, NOW, w.id)).toEqual({ event_id: event.id, deliveries: 0 }); // in flight: left alone
      await s.store.webhooks.remove(scope, w.id, new Date(NOW));
      await expect(s.store.webhooks.get(scope, w.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('keeps each endpoint\'s signature scheme; a standard rotation signs with the previous secret too until its overlap ends', async () => {
      const k = await key('schemes', 'test');
      const scope = `${k.account_id}/test`;
      const std = await s.store.webhooks.create(scope, { url: 'https://std.example.com/in', events: ['verification.completed'], signature_scheme: 'standard' }, new Date(NOW));
      const plain = await s.store.webhooks.create(scope, { url: 'https://plain.example.com/in', events: ['verification.completed'] }, new Date(NOW));
      expect(std).toMatchObject({ signature_scheme: 'standard', secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
      const listed = new Map((await s.other.webhooks.list(scope)).map((w) => [w.id, w.signature_scheme]));
      expect(listed).toEqual(new Map([[std.id, 'standard'], [plain.id, 'verity']]));
      const claimAt = async (id: string, at: number) => {
        const { deliveryId } = await s.store.webhooks.enqueueTest(scope, id, undefined, at);
        const c = await s.other.outbox.claim(deliveryId, at, 30_000, { ...LANE, minGapMs: 0, maxInFlight: 100 });
        if (!c || 'deferred' in c) throw new Error('not claimed');
        await s.other.outbox.recordAttempt(c, { startedAt: at, finishedAt: at + 1, ok: true, statusCode: 200, error: null, nextAt: undefined });
        return c;
      };
      expect(await claimAt(std.id, NOW)).toMatchObject({ signature_scheme: 'standard', secret: std.secret, previous_secret: null });
      const rotated = await s.store.webhooks.rotate(scope, std.id, undefined, new Date(NOW + 1_000));
      expect(rotated.previous_secret_expires_at).toBe(new Date(NOW + 1_000 + 24 * 3600_000).toISOString());
      expect(await claimAt(std.id, NOW + 5_000)).toMatchObject({ secret: rotated.secret, previous_secret: std.secret });
      expect(await claimAt(std.id, NOW + 1_000 + 24 * 3600_000 + 1)).toMatchObject({ secret: rotated.secret, previous_secret: null });
      await expect(s.store.webhooks.rotate(scope, std.id, 'z'.repeat(40), new Date(NOW))).rejects.toThrow(/whsec_/);
      // A verity endpoint has one signature per header: it switches at once.
      const p2 = await s.store.webhooks.rotate(scope, plain.id, undefined, new Date(NOW));
      expect(p2.previous_secret_expires_at).toBeUndefined();
      expect(await claimAt(plain.id, NOW + 2_000)).toMatchObject({ signature_scheme: 'verity', secret: p2.secret, previous_secret: null });
    });

    it.skipIf(kind !== 'postgres')('shared store: one endpoint’s limits hold across workers (10 per window, 50 ms apart)', async () => {
      const k = await key('lanes', 'test');
      const scope = `${k.account_id}/test`;
      const w = await s.store.webhooks.create(scope, { url: 'https://lane.example.com/in', events: ['verification.completed'] }, new Date(NOW));
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) ids.push((await s.store.webhooks.enqueueTest(scope, w.id, undefined, NOW)).deliveryId);
      const first = await s.store.outbox.claim(ids[0]!, NOW, 30_000, LANE);
      expect(first).toMatchObject({ id: ids[0] });
      // Another process, right after: the 50 ms gap is not over.
      const second = await s.other.outbox.claim(ids[1]!, NOW, 30_000, LANE);
      expect(second).toMatchObject({ deferred: true });
      expect((second as { retryAt: number }).retryAt).toBeGreaterThan(NOW);
      expect((second as { retryAt: number }).retryAt).toBeLessThanOrEqual(NOW + 50);
      // In-flight cap of 1: deferred while the first is leased.
      expect(await s.other.outbox.claim(ids[1]!, NOW + 60, 30_000, { ...LANE, maxInFlight: 1 })).toMatchObject({ deferred: true });
      expect(await s.other.outbox.claim(ids[1]!, NOW + 60, 30_000, LANE)).toMatchObject({ id: ids[1] });
      // Ten starts fill the window: the eleventh waits until the first leaves it.
      for (let i = 2; i < 10; i++) {
        const id = (await s.store.webhooks.enqueueTest(scope, w.id, undefined, NOW)).deliveryId;
        expect(await s.store.outbox.claim(id, NOW + 60 * i, 30_000, { ...LANE, maxInFlight: 100 })).toMatchObject({ id });
      }
      const late = await s.other.outbox.claim(ids[2]!, NOW + 600, 30_000, { ...LANE, maxInFlight: 100 });
      expect(late).toEqual({ deferred: true, retryAt: NOW + 1_020 });
    });

    it('a worker stopped mid-delivery (abort + release) gives its claims back: due at once, the attempt not counted', async () => {
      const k = await key('stopping', 'test');
      const scope = `${k.account_id}/test`;
      let arrived = 0;
      const hung = createServer((req) => {
        req.resume();
        arrived++;
      });
      await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/in`;
        const w = await s.store.webhooks.create(scope, { url, events: ['verification.completed'] }, new Date(NOW));
        const { deliveryId } = await s.store.webhooks.enqueueTest(scope, w.id, undefined, Date.now());
        const worker = createDeliveryWorker({ outbox: s.store.outbox, clock: systemWorkerClock });
        worker.start();
        for (let i = 0; i < 400 && arrived === 0; i++) await new Promise((r) => setTimeout(r, 10));
        expect(arrived).toBe(1);
        expect((await s.store.webhooks.deliveryLog(scope, w.id)).outstanding[0]).toMatchObject({ status: 'delivering', attempts: 1 });
        await worker.stop({ abort: true, release: true });
        expect((await s.store.webhooks.deliveryLog(scope, w.id)).outstanding[0]).toMatchObject({ status: 'pending', attempts: 0 });
        // (A second past the first start: the endpoint's shared 50 ms gap must not defer it.)
        expect(await s.other.outbox.claim(deliveryId, Date.now() + 1_100, 30_000, LANE)).toMatchObject({ id: deliveryId, attempt: 1 });
      } finally {
        hung.closeAllConnections();
        await new Promise<void>((r) => hung.close(() => r()));
      }
    });

    it('admits in one step when the store offers it: the key, and the take under its policy', async () => {
      if (!s.store.admit) return; // SQLite answers in-process (store.sync) instead
      const k = await key('admit', 'test');
      const policies = { test: { limit: 2, windowMs: 3_600_000 }, live: {} as never };
      expect(await s.store.admit(hashKey(`vty_test_${'y'.repeat(32)}`), policies, NOW)).toEqual({ key: undefined, decision: undefined });
      const a = await s.store.admit(k.hash, policies, NOW);
      expect(a.key).toMatchObject({ id: k.id, environment: 'test', revoked_at: null });
      expect(a.decision).toMatchObject({ allowed: true, limit: 2, remaining: 1, windowSeconds: 3600 });
      expect((await s.store.admit(k.hash, policies, NOW)).decision).toMatchObject({ allowed: true, remaining: 0 });
      expect((await s.store.admit(k.hash, policies, NOW)).decision).toMatchObject({ allowed: false, remaining: 0 });
      await s.other.admin.revokeKey('admit', new Date(NOW));
      const revoked = await s.store.admit(k.hash, policies, NOW);
      expect(revoked.key?.revoked_at).not.toBeNull();
      expect(revoked.decision).toBeUndefined();
    });

    it('gives concurrent charges on one usage row a consistent chain of totals', async () => {
      const k = await key('chain', 'test');
      const credits = [1, 3, 2, 5, 1];
      const totals = await Promise.all(
        credits.map((n) => s.store.commitCharge({ accountId: k.account_id, environment: 'test', period: '2026-04', credits: n, nowMs: NOW })),
      );
      const chain = [...totals].sort((a, b) => a.before - b.before);
      expect(chain[0]!.before).toBe(0);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.before).toBe(chain[i - 1]!.after);
      expect(chain.at(-1)!.after).toBe(12);
      totals.forEach((t, i) => expect(t.after - t.before).toBe(credits[i]));
    });

    it('admits many takes of one key together one after another: exactly `limit` allowed, remaining counting down', async () => {
      if (!s.store.admit) return; // SQLite checks in-process (SyncHotPath): nothing to batch
      const k = await key('burst-admit', 'test');
      const policies = { test: { limit: 3, windowMs: 3_600_000 }, live: {} as never };
      // Issued in one event-loop turn: one statement on PostgreSQL.
      const got = await Promise.all(Array.from({ length: 5 }, () => s.store.admit!(k.hash, policies, NOW)));
      expect(got.map((g) => g.decision?.allowed)).toEqual([true, true, true, false, false]);
      expect(got.map((g) => g.decision?.remaining)).toEqual([2, 1, 0, 0, 0]);
      for (const g of got.slice(3)) expect(g.decision!.resetSeconds).toBeGreaterThanOrEqual(1);
    });

    it('admits again once the oldest takes leave the window (the database clock: polled, bounded)', async () => {
      if (!s.store.admit) return;
      const k = await key('window-admit', 'test');
      const policies = { test: { limit: 2, windowMs: 400 }, live: {} as never };
      // Two takes in one batch: one statement, one instant.
      const first = await Promise.all([s.store.admit(k.hash, policies, NOW), s.store.admit(k.hash, policies, NOW)]);
      expect(first.map((f) => f.decision)).toMatchObject([{ allowed: true, remaining: 1 }, { allowed: true, remaining: 0 }]);
      expect((await s.store.admit(k.hash, policies, NOW)).decision).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });
      let again: { allowed: boolean; remaining: number } | undefined;
      for (const end = Date.now() + 5_000; Date.now() < end; ) {
        again = (await s.store.admit(k.hash, policies, NOW)).decision;
        if (again?.allowed) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // Both first takes expired together (same instant), so the window holds only this one.
      expect(again).toMatchObject({ allowed: true, remaining: 1 });
    });

    it.skipIf(kind !== 'postgres')('key checks are not held up for long behind a commit batch waiting at the database', async () => {
      const k = await key('stalled-commit', 'test');
      const policies = { test: { limit: 100, windowMs: 3_600_000 }, live: {} as never };
      // Another session locks the usage table, so this process's next commit batch waits there.
      const other = (s.other as unknown as { sql: import('postgres').Sql }).sql;
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let lockHeld = true;
      const holder = other.begin(async (tx) => {
        await tx`LOCK TABLE usage IN EXCLUSIVE MODE`;
        locked();
        await released;
        lockHeld = false;
      });
      await isLocked;
      const commit = s.store.commitCharge({ accountId: k.account_id, environment: 'test', period: '2026-03', credits: 1, nowMs: NOW });
      // The batch goes out on the next turns of the event loop; then a key check arrives.
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      const admitted = await s.store.admit!(k.hash, policies, NOW);
      // Answered while the commit batch still waits for the lock (HOT_WAIT_MS later, not after it).
      expect(lockHeld).toBe(true);
      expect(admitted.decision?.allowed).toBe(true);
      release();
      await holder;
      expect((await commit).after).toBeGreaterThanOrEqual(1);
    });

    it.skipIf(kind !== 'postgres')('commit batches and key checks go through connections that plan each statement once (generic plans), with the same totals', async () => {
      for (const conn of ['commits', 'guard']) {
        const sql = (s.store as unknown as Record<string, import('postgres').Sql>)[conn]!;
        const [mode] = await sql<{ plan_cache_mode: string }[]>`SHOW plan_cache_mode`;
        expect(mode!.plan_cache_mode).toBe('force_generic_plan');
      }
      // Past the five executions after which PostgreSQL would otherwise weigh the generic plan.
      const k = await key('generic-plan', 'test');
      let total = 0;
      for (let i = 1; i <= 8; i++) {
        const t = await s.store.commitCharge({ accountId: k.account_id, environment: 'test', period: '2026-11', credits: i, nowMs: NOW });
        expect(t).toEqual({ before: total, after: total + i });
        total += i;
      }
      for (let i = 0; i < 8; i++) await s.store.admit!(k.hash, { test: { limit: 1000, windowMs: 3_600_000 }, live: {} as never }, NOW);
      // The statements really ran on those connections, each with generic plans only: a commit or a
      // key check moved back to the main pool would leave these counts empty.
      const conns = s.store as unknown as Record<string, import('postgres').Sql>;
      const plans = async (conn: string, marker: string) =>
        conns[conn]!<{ generic_plans: number; custom_plans: number }[]>`
          SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE ${'%' + marker + '%'}`;
      const commitPlans = await plans('commits', 'ep AS MATERIALIZED');
      expect(commitPlans.reduce((n, r) => n + r.generic_plans, 0)).toBeGreaterThanOrEqual(8);
      expect(commitPlans.every((r) => r.custom_plans === 0)).toBe(true);
      const admitPlans = await plans('guard', 'row_number() OVER (PARTITION BY k.id');
      expect(admitPlans.reduce((n, r) => n + r.generic_plans, 0)).toBeGreaterThanOrEqual(8);
      expect(admitPlans.every((r) => r.custom_plans === 0)).toBe(true);
    });

    it.skipIf(kind !== 'postgres')('shared store: admits through two handles at once allow exactly `limit` of one key', async () => {
      const k = await key('two-handles', 'test');
      const policies = { test: { limit: 100, windowMs: 3_600_000 }, live: {} as never };
      const all = await Promise.all(
        Array.from({ length: 160 }, (_, i) => (i % 2 ? s.store : s.other).admit!(k.hash, policies, NOW)),
      );
      expect(all.filter((a) => a.decision?.allowed)).toHaveLength(100);
      expect(all.filter((a) => a.decision?.allowed === false)).toHaveLength(60);
    });

    it.skipIf(kind !== 'postgres')('shared store: live charges through two handles at once form one chain of totals (thresholds cross once)', async () => {
      const k = await key('live-chain', 'live', 'pro');
      const credits = Array.from({ length: 24 }, (_, i) => (i % 3) + 1);
      const totals = await Promise.all(
        credits.map((n, i) =>
          (i % 2 ? s.store : s.other).commitCharge({ accountId: k.account_id, environment: 'live', period: '2026-05', credits: n, nowMs: NOW }),
        ),
      );
      const chain = [...totals].sort((a, b) => a.before - b.before);
      expect(chain[0]!.before).toBe(0);
      for (let i = 1; i < chain.length; i++) expect(chain[i]!.before).toBe(chain[i - 1]!.after);
      expect(chain.at(-1)!.after).toBe(credits.reduce((a, b) => a + b, 0));
    });

    it.skipIf(kind !== 'postgres')('shared store: holds through two handles at once never pass the quota, with commits turning holds into usage meanwhile', async () => {
      const k = await key('hold-race', 'live', 'starter');
      const period = '2026-06';
      const quota = 40;
      // 60 requests of 1 credit from two processes: each holds, then commits (its hold becomes usage).
      const outcomes = await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const st = i % 2 ? s.store : s.other;
          const h = await st.holdQuota({ accountId: k.account_id, period, credits: 1, quota, nowMs: NOW });
          if (!h.ok) return false;
          await st.commitCharge({ accountId: k.account_id, environment: 'live', period, credits: 1, nowMs: NOW, hold: h.hold });
          return true;
        }),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(quota);
      expect((await s.other.admin.listUsage(period)).find((u) => u.account_name === 'hold-race')).toMatchObject({ credits: quota, requests: quota });
    });

    it('records last-used times: the first touch, and a later one; on a shared store a touch within a second of another process’s is skipped', async () => {
      const k = await key('touched', 'test');
      const lastUsed = async () => (await s.other.admin.listKeys()).find((r) => r.name === 'touched')!.last_used_at;
      s.store.touchKey(k.id, new Date(NOW));
      await s.store.flush();
      expect(await lastUsed()).toBe(new Date(NOW).toISOString());
      if (s.store.kind === 'postgres') {
        s.other.touchKey(k.id, new Date(NOW + 500));
        await s.other.flush();
        expect(await lastUsed()).toBe(new Date(NOW).toISOString());
      }
      s.other.touchKey(k.id, new Date(NOW + 2_000));
      await s.other.flush();
      expect(await lastUsed()).toBe(new Date(NOW + 2_000).toISOString());
    });

    it('records a key as used when the store admits it (a shared store stamps it in the admit statement)', async () => {
      if (!s.store.admit) return;
      const k = await key('admit-used', 'test');
      const policies = { test: { limit: 5, windowMs: 3_600_000 }, live: {} as never };
      const lastUsed = async () => (await s.other.admin.listKeys()).find((r) => r.name === 'admit-used')!.last_used_at;
      expect(await lastUsed()).toBeNull();
      const t0 = Date.now();
      await s.store.admit(k.hash, policies, NOW);
      // The database's clock, at millisecond precision in the same ISO format as touches.
      const at = await lastUsed();
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(at!) - t0)).toBeLessThan(60_000);
      // A later touch (e.g. by a version that writes api_keys) wins when it is later.
      s.other.touchKey(k.id, new Date(Date.parse(at!) + 5_000));
      await s.other.flush();
      expect(await lastUsed()).toBe(new Date(Date.parse(at!) + 5_000).toISOString());
    });

    // Last among the cases that write idempotency records: its purge, days after NOW, deletes theirs.
    it('purges idempotency records past the 24 h TTL (and long-dead `running` ones) once an hour, keeping fresh ones replayable', async () => {
      const k = await key('purged', 'test');
      const a = k.account_id;
      const HOUR = 3_600_000;
      const T0 = NOW + 30 * 24 * HOUR;
      const T1 = T0 + 25 * HOUR;
      const keys = async (): Promise<string[]> => {
        const rows =
          s.store.kind === 'postgres'
            ? await (s.store as unknown as { sql: import('postgres').Sql }).sql<{ key: string }[]>`SELECT key FROM idempotency WHERE account_id = ${a}`
            : (s.store.sqlite!.prepare('SELECT key FROM idempotency WHERE account_id = ?').all(a) as Array<{ key: string }>);
        return rows.map((r) => r.key).sort();
      };
      const answered = async (id: string, at: number) => {
        expect(await s.store.idempotencyBegin(a, id, `h-${id}`, at)).toEqual({ state: 'new' });
        await s.store.commitCharge({
          accountId: a, environment: 'test', period: '2026-04', credits: 1, nowMs: at,
          idempotency: { accountId: a, key: id, hash: `h-${id}`, response: { status: 200, body: `{"id":"${id}"}` } },
        });
      };
      // A at T0 and B at T0 + 23 h answered; D and E begun and never finished (their process died).
      await answered('A', T0);
      expect(await s.store.idempotencyBegin(a, 'D', 'h-D', T0)).toEqual({ state: 'new' });
      await s.store.flush();
      await answered('B', T0 + 23 * HOUR);
      expect(await s.store.idempotencyBegin(a, 'E', 'h-E', T0 + 23 * HOUR)).toEqual({ state: 'new' });
      await s.store.flush();
      const shared = s.store.kind === 'postgres'; // only a shared store writes `running` records
      expect(await keys()).toEqual(shared ? ['A', 'B', 'D', 'E'] : ['A', 'B']);
      // A request at T1 = T0 + 25 h, more than an hour after the last purge: A (25 h old) and D
      // (its lease ran out more than 24 h ago) go; B (2 h old) and E stay.
      await answered('C', T1);
      await s.store.flush();
      expect(await keys()).toEqual(shared ? ['B', 'C', 'E'] : ['B', 'C']);
      expect(await s.other.idempotencyBegin(a, 'B', 'h-B', T1)).toEqual({ state: 'replay', response: { status: 200, body: '{"id":"B"}' } });
      // That request may start the other handle's own hourly purge: let it end before G is written.
      await s.other.flush();
      // Within the hour after a purge nothing more is purged: G (answered with a clock more than a
      // day behind) stays through F's request half an hour later.
      await answered('G', T0 + 30 * 60_000);
      await answered('F', T1 + 30 * 60_000);
      await s.store.flush();
      expect(await keys()).toEqual(shared ? ['B', 'C', 'E', 'F', 'G'] : ['B', 'C', 'F', 'G']);
    });

    it.skipIf(kind !== 'postgres')('purges quota holds past their expiry (a killed process\'s), keeping live ones', async () => {
      const k = await key('purged-holds', 'live', 'starter');
      const sql = (s.store as unknown as { sql: import('postgres').Sql }).sql;
      const period = '2026-04';
      // A hold whose process died: its expiry (the database's clock, as holds are written) passed.
      const [dead] = await sql<{ id: number }[]>`INSERT INTO quota_holds (account_id, period, credits, expires_at)
        VALUES (${k.account_id}, ${period}, 5, clock_timestamp() - interval '1 minute') RETURNING id`;
      // A live hold, taken by a request more than an hour after the store's last purge: it purges.
      const live = await s.store.holdQuota({ accountId: k.account_id, period, credits: 1, quota: 100, nowMs: NOW + 60 * 24 * 3_600_000 });
      expect(live.ok).toBe(true);
      await s.store.flush();
      const ids = (await sql<{ id: number }[]>`SELECT id FROM quota_holds WHERE account_id = ${k.account_id}`).map((r) => String(r.id));
      expect(ids).toEqual([live.ok ? live.hold.id : '']);
      expect(ids).not.toContain(String(dead!.id));
    });

    it.skipIf(kind !== 'postgres')('a purge that fails is reported as a background error, never fails the request that started it, and is tried again after 1, then 2 minutes', async () => {
      const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
      const errors: unknown[] = [];
      const third = await openPostgresStore({ url: s.url!, poolSize: 2, migrate: false, listen: false, onBackgroundError: (err) => errors.push(err) });
      // Every DELETE on the idempotency table fails (a statement trigger: with or without rows).
      await third.sql.unsafe(`CREATE FUNCTION purge_refused() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'purge refused'; END $$ LANGUAGE plpgsql;
        CREATE TRIGGER purge_refused BEFORE DELETE ON idempotency FOR EACH STATEMENT EXECUTE FUNCTION purge_refused();`);
      try {
        const k = await key('purge-fails', 'test');
        // An expired hold: the holds' purge still runs when the idempotency purge fails.
        const [dead] = await third.sql<{ id: number }[]>`INSERT INTO quota_holds (account_id, period, credits, expires_at)
          VALUES (${k.account_id}, '2026-04', 5, clock_timestamp() - interval '1 minute') RETURNING id`;
        // A fresh process's first request purges.
        expect(await third.idempotencyBegin(k.account_id, 'P', 'h-P', NOW)).toEqual({ state: 'new' });
        await third.flush();
        expect(errors.map((e) => (e as Error).message)).toEqual(['purge refused']);
        expect(await third.sql`SELECT 1 FROM quota_holds WHERE id = ${dead!.id}`).toHaveLength(0);
        // A failed run is tried again sooner than the hour, backing off: after 1 minute, then 2.
        expect(await third.idempotencyBegin(k.account_id, 'Q', 'h-Q', NOW + 59_999)).toEqual({ state: 'new' });
        await third.flush();
        expect(errors).toHaveLength(1);
        expect(await third.idempotencyBegin(k.account_id, 'R', 'h-R', NOW + 60_000)).toEqual({ state: 'new' });
        await third.flush();
        expect(errors).toHaveLength(2);
        expect(await third.idempotencyBegin(k.account_id, 'S', 'h-S', NOW + 60_000 + 119_999)).toEqual({ state: 'new' });
        await third.flush();
        expect(errors).toHaveLength(2);
        expect(await third.idempotencyBegin(k.account_id, 'T', 'h-T', NOW + 60_000 + 120_000)).toEqual({ state: 'new' });
        await third.flush();
        expect(errors).toHaveLength(3);
      } finally {
        await third.sql.unsafe('DROP TRIGGER purge_refused ON idempotency; DROP FUNCTION purge_refused();');
        await third.close();
      }
    });

    it.skipIf(kind !== 'postgres')('a purge run stops after 20,000 rows and a request after the pause goes on; records within 10 minutes past the TTL stay (clock margin), later ones go', async () => {
      const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
      const third = await openPostgresStore({ url: s.url!, poolSize: 2, migrate: false, listen: false });
      try {
        const k = await key('purge-backlog', 'test');
        const a = k.account_id;
        const HOUR = 3_600_000;
        const X = NOW + 90 * 24 * HOUR;
        // A backlog of 25,000 answered records two days old, and one 24 h 5 min old.
        await third.sql`INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
          SELECT ${a}, 'old-' || g, 'h', 'completed', 200, '{}', ${X - 48 * HOUR}, ${X - 48 * HOUR} FROM generate_series(1, 25000) g`;
        await third.sql`INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
          VALUES (${a}, 'margin', 'h', 'completed', 200, '{}', ${X - 24 * HOUR - 5 * 60_000}, ${X - 24 * HOUR - 5 * 60_000})`;
        await third.sql`INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
          VALUES (${a}, 'past-margin', 'h', 'completed', 200, '{}', ${X - 24 * HOUR - 11 * 60_000}, ${X - 24 * HOUR - 11 * 60_000})`;
        const left = async () => Number((await third.sql<{ n: string }[]>`SELECT count(*) AS n FROM idempotency WHERE account_id = ${a} AND key LIKE 'old-%'`)[0]!.n);
        // The whole table: earlier cases' stale records are purged by the same run.
        const all = async () => Number((await third.sql<{ n: string }[]>`SELECT count(*) AS n FROM idempotency`)[0]!.n);
        const before = await all();
        expect(await third.idempotencyBegin(a, 'R1', 'h-R1', X)).toEqual({ state: 'new' });
        await third.flush();
        // R1's own record added, exactly 20 statements × 1,000 rows deleted, backlog left.
        expect(await all()).toBe(before + 1 - 20_000);
        const rest = await left();
        expect(rest).toBeGreaterThanOrEqual(5_000);
        // Within 10 s of a run that stopped at its cap: nothing more.
        expect(await third.idempotencyBegin(a, 'R2', 'h-R2', X + 5_000)).toEqual({ state: 'new' });
        await third.flush();
        expect(await left()).toBe(rest);
        // A minute later (10 s after the run ended, however long it took) the next request goes on,
        // not an hour later.
        expect(await third.idempotencyBegin(a, 'R3', 'h-R3', X + 60_000)).toEqual({ state: 'new' });
        await third.flush();
        expect(await left()).toBe(0);
        // 24 h 5 min old: past the TTL but inside the purge's clock margin, so it stays; 24 h 11 min
        // old: past the margin too, so it went.
        expect(await third.sql`SELECT 1 FROM idempotency WHERE account_id = ${a} AND key = 'margin'`).toHaveLength(1);
        expect(await third.sql`SELECT 1 FROM idempotency WHERE account_id = ${a} AND key = 'past-margin'`).toHaveLength(0);
      } finally {
        await third.close();
      }
    });

    it('reports its health', async () => {
      expect(await s.store.health()).toBeUndefined();
      expect(s.store.label).not.toMatch(/:[^@/]*@/); // never a password
    });

    it.skipIf(kind !== 'postgres')('health covers the request guard\'s and the commit batches\' own connections, not only the pool', async () => {
      const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
      for (const conn of ['commits', 'guard']) {
        const third = await openPostgresStore({ url: s.url!, poolSize: 2, migrate: false, listen: false });
        try {
          expect(await third.health()).toBeUndefined();
          // That connection alone becomes unusable (as when it cannot connect: too many connections)
          // while the pool still answers: every test charge (or key check) would fail, so the
          // process must not report itself healthy to a load balancer.
          await (third as unknown as Record<string, import('postgres').Sql>)[conn]!.end({ timeout: 1 });
          expect(await third.health()).toMatch(/connection/);
        } finally {
          await third.close().catch(() => undefined);
        }
      }
    });
  });
}
