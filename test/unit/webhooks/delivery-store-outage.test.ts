/**
 * The delivery worker while its store is away (a database restart, issue 28): the outbox is a real
 * SQLite one whose calls fail with the PostgreSQL driver's CONNECTION_CLOSED while `down`, the
 * endpoint a real HTTP server on loopback, time the fake clock. Nothing is thrown out of a timer;
 * looks back off (1, 2, 4, 5, 5 s); after the store returns the event goes out, once.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/local/database.js';
import type { OutboxStore } from '../../../src/store/ports/index.js';
import { sqliteOutbox } from '../../../src/store/sqlite/index.js';
import { createDeliveryWorker, STORE_RETRY_MAX_MS, storeRetryDelay } from '../../../src/webhooks/delivery.js';
import { envelope } from '../../../src/domain/events.js';
import { createWebhook, deliveryLog, enqueueEvent, ensureWebhookSchema } from '../../../src/store/sqlite/webhooks.js';
import { FakeClock, runUntil } from './fake-clock.js';

const ACCOUNT = 'acct_1';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const closedError = (): Error => Object.assign(new Error('write CONNECTION_CLOSED localhost:5432'), { code: 'CONNECTION_CLOSED' });

/** The SQLite outbox, failing every call while `state.down`; counts calls per method. */
function flaky(db: Store['db']): { outbox: OutboxStore; state: { down: boolean; failOnly?: keyof OutboxStore }; calls: Record<string, number> } {
  const inner = sqliteOutbox(db);
  const state: { down: boolean; failOnly?: keyof OutboxStore } = { down: false };
  const calls: Record<string, number> = {};
  const wrap =
    <K extends 'due' | 'nextDueAt' | 'claim' | 'recordAttempt' | 'release' | 'outstanding'>(k: K) =>
    async (...args: Parameters<OutboxStore[K]>) => {
      calls[k] = (calls[k] ?? 0) + 1;
      if (state.down && (!state.failOnly || state.failOnly === k)) throw closedError();
      return (inner[k] as (...a: unknown[]) => unknown)(...args);
    };
  const outbox = {
    ...inner,
    due: wrap('due'),
    nextDueAt: wrap('nextDueAt'),
    claim: wrap('claim'),
    recordAttempt: wrap('recordAttempt'),
    release: wrap('release'),
    outstanding: wrap('outstanding'),
  } as OutboxStore;
  return { outbox, state, calls };
}

async function setup() {
  const s = await openStore(':memory:');
  ensureWebhookSchema(s.db);
  cleanups.push(() => s.close());
  const got: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push(String(req.headers['x-service-event-id']));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())));
  const clock = new FakeClock();
  const hook = createWebhook(
    s.db,
    ACCOUNT,
    { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events: ['verification.completed'], secret: 'test-secret-0123456789-0123456789-abcdef' },
    new Date(clock.now()),
  );
  const emit = () => {
    const ev = envelope('verification.completed', { request_id: 'vrf_clm_abc', verdict: 'true' }, new Date(clock.now()));
    enqueueEvent(s.db, ACCOUNT, ev, clock.now());
    return ev;
  };
  return { s, got, clock, hook, emit };
}

describe('delivery worker: the store goes away and comes back', () => {
  it('backs off 1, 2, 4, 5, 5 s between looks while the store fails, reports each failure, and delivers once it is back', async () => {
    expect([1, 2, 3, 4, 5].map((n) => storeRetryDelay(n, 1_000))).toEqual([1_000, 2_000, 4_000, STORE_RETRY_MAX_MS, STORE_RETRY_MAX_MS]);
    const { s, got, clock, hook, emit } = await setup();
    const f = flaky(s.db);
    const errors: unknown[] = [];
    const polls: number[] = [];
    const due = f.outbox.due;
    f.outbox.due = (...a) => (polls.push(clock.now()), due(...a));
    const ev = emit();
    f.state.down = true;
    const w = createDeliveryWorker({ outbox: f.outbox, clock, onError: (e) => errors.push(e) });
    const t0 = clock.now();
    w.start();
    await runUntil(clock, () => w.idle(), t0 + 17_000);
    expect(polls.map((t) => t - t0)).toEqual([0, 1_000, 3_000, 7_000, 12_000, 17_000]);
    expect(errors).toHaveLength(6);
    expect(errors.every((e) => (e as { code?: string }).code === 'CONNECTION_CLOSED')).toBe(true);
    expect(got).toEqual([]);
    // Back: the next look (5 s later) sends it, and the looks return to every second.
    f.state.down = false;
    await runUntil(clock, () => w.idle(), t0 + 25_000, () => got.length === 1);
    expect(got).toEqual([ev.id]);
    expect(clock.now() - t0).toBe(22_000);
    await runUntil(clock, () => w.idle(), t0 + 30_000);
    await w.stop();
    // (Every second again, from the look after the delivery.)
    const after = polls.slice(6).map((t) => t - t0);
    expect(after.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < after.length; i++) expect(after[i]! - after[i - 1]!).toBeLessThanOrEqual(1_000);
    expect(deliveryLog(s.db, ACCOUNT, hook.id).data.map((a) => a.outcome)).toEqual(['delivered']);
  });

  it('a notify (the store listening again) looks at once instead of waiting out the backoff', async () => {
    const { s, got, clock, emit } = await setup();
    const f = flaky(s.db);
    const ev = emit();
    f.state.down = true;
    const w = createDeliveryWorker({ outbox: f.outbox, clock, onError: () => undefined });
    const t0 = clock.now();
    w.start();
    await runUntil(clock, () => w.idle(), t0 + 7_000); // next look at t0 + 12 s
    f.state.down = false;
    w.notify();
    await runUntil(clock, () => w.idle(), t0 + 12_000, () => got.length === 1);
    expect(got).toEqual([ev.id]);
    expect(clock.now() - t0).toBeLessThan(8_000);
    await w.stop();
  });

  it('a failed claim does not try the rest of the lane one by one: they wait for the next look', async () => {
    const { s, got, clock, emit } = await setup();
    const f = flaky(s.db);
    for (let i = 0; i < 5; i++) emit();
    f.state.down = true;
    f.state.failOnly = 'claim';
    const errors: unknown[] = [];
    const w = createDeliveryWorker({ outbox: f.outbox, clock, onError: (e) => errors.push(e) });
    const t0 = clock.now();
    w.start();
    clock.runNext();
    await w.idle();
    expect(f.calls.claim).toBe(1);
    expect(errors).toHaveLength(1);
    f.state.down = false;
    await runUntil(clock, () => w.idle(), t0 + 10_000, () => got.length === 5);
    expect(new Set(got).size).toBe(5);
    await w.stop();
  });

  it('an outcome that cannot be recorded is recorded again after the backoff: the event is not sent twice', async () => {
    const { s, got, clock, hook, emit } = await setup();
    const f = flaky(s.db);
    emit();
    f.state.failOnly = 'recordAttempt';
    const errors: unknown[] = [];
    const w = createDeliveryWorker({ outbox: f.outbox, clock, onError: (e) => errors.push(e) });
    const record = f.outbox.recordAttempt;
    // The store goes away while the request is out, and is back 2.5 s later.
    f.outbox.recordAttempt = (...a) => {
      if (f.calls.recordAttempt === undefined) f.state.down = true;
      if (clock.now() >= t0 + 2_500) f.state.down = false;
      return record(...a);
    };
    const t0 = clock.now();
    w.start();
    await runUntil(clock, () => w.idle(), t0 + 60_000);
    await w.stop();
    expect(got).toHaveLength(1);
    expect(f.calls.recordAttempt).toBe(3); // t0, +1 s, +3 s
    expect(errors).toHaveLength(2);
    expect(deliveryLog(s.db, ACCOUNT, hook.id).data.map((a) => a.outcome)).toEqual(['delivered']);
  });
});
