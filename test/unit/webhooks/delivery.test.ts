import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { createDeliveryWorker, type AttemptReport } from '../../../src/webhooks/delivery.js';
import { envelope } from '../../../src/domain/events.js';
import {
  createWebhook,
  deliveryLog,
  enqueueEvent,
  ensureWebhookSchema,
  replayEvent,
  rotateSecret,
} from '../../../src/store/sqlite/webhooks.js';
import { RETRY_DELAYS_MS } from '../../../src/domain/delivery-schedule.js';
import { FakeClock, runUntil } from './fake-clock.js';
import { sqliteOutbox } from '../../../src/store/sqlite/index.js';
import { outstandingCount } from '../../../src/store/sqlite/outbox.js';
import { verifyWebhook } from '../../../src/webhooks-verify/index.js';

const SECRET = 'test-secret-0123456789-0123456789-abcdef';
const ACCOUNT = 'acct_1';

interface Received {
  at: number;
  body: string;
  headers: IncomingHttpHeaders;
  signatureOk: boolean;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A real endpoint on 127.0.0.1; `answer` decides each reply (and may move the fake clock). */
async function endpoint(
  clock: FakeClock,
  answer: (n: number) => number | Promise<number> = () => 200,
  secret = SECRET,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const at = clock.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signatureOk = await octokitVerify(secret, body, String(req.headers['x-service-signature']));
      received.push({ at, body, headers: req.headers, signatureOk });
      res.statusCode = await answer(received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

/** Waits (real time, bounded) for a real HTTP request to arrive, without moving the fake clock. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

async function store(): Promise<Store> {
  const s = await openStore(':memory:');
  ensureWebhookSchema(s.db);
  cleanups.push(() => s.close());
  return s;
}

function emit(s: Store, clock: FakeClock, type: 'verification.completed' | 'credit.threshold' = 'verification.completed') {
  const ev = envelope(type, { request_id: 'vrf_clm_abc', verdict: 'true' }, new Date(clock.now()));
  enqueueEvent(s.db, ACCOUNT, ev, clock.now());
  return ev;
}

describe('delivery worker', () => {
  it('follows the retry schedule exactly, then marks the event failed and keeps it for replay', async () => {
    const clock = new FakeClock();
    const s = await store();
    const ep = await endpoint(clock, () => 500);
    const hook = createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    const t0 = clock.now();
    const ev = emit(s, clock);
    const reports: AttemptReport[] = [];
    // A long poll interval: the worker still wakes exactly at each retry's due time.
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock, pollMs: 3_600_000, onAttempt: (r) => reports.push(r) });
    w.start();
    await runUntil(clock, () => w.idle(), t0 + 12 * 3_600_000);
    await w.stop();

    const offsets = ep.received.map((r) => r.at - t0);
    let acc = 0;
    expect(offsets).toEqual([0, ...RETRY_DELAYS_MS.map((d) => (acc += d))]);
    expect(offsets).toEqual([0, 10_000, 70_000, 670_000, 4_270_000, 25_870_000]);
    expect(ep.received.map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(new Set(ep.received.map((r) => r.body)).size).toBe(1); // byte-identical every time
    expect(ep.received.every((r) => r.signatureOk && r.headers['x-service-event-id'] === ev.id)).toBe(true);
    expect(reports.at(-1)).toMatchObject({ ok: false, attempt: 6, nextAt: undefined, error: 'HTTP 500 Internal Server Error' });
    expect(outstandingCount(s.db)).toBe(0);
    const log = deliveryLog(s.db, ACCOUNT, hook.id);
    expect(log.data).toHaveLength(6);
    expect(log.data[0]).toMatchObject({ outcome: 'failed', attempt: 6, status_code: 500 });

    // Replay: the same event (same id and body) goes out again with a fresh series.
    expect(replayEvent(s.db, ACCOUNT, ev.id, clock.now())).toEqual({ event_id: ev.id, deliveries: 1 });
    const w2 = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    w2.start();
    await runUntil(clock, () => w2.idle(), clock.now() + 1000);
    await w2.stop();
    expect(ep.received).toHaveLength(7);
    expect(ep.received[6]!.body).toBe(ep.received[0]!.body);
    expect(ep.received[6]!.headers['x-service-attempt']).toBe('1');
  });

  it('counts a 2xx that arrives after 11 s as a failure and retries', async () => {
    const clock = new FakeClock();
    const s = await store();
    // The first answer takes 11 s of (fake) time; the second is prompt.
    const ep = await endpoint(clock, (n) => {
      if (n === 1) clock.advance(11_000);
      return 200;
    });
    createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    emit(s, clock);
    const reports: AttemptReport[] = [];
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock, onAttempt: (r) => reports.push(r) });
    w.start();
    const t0 = clock.now();
    await runUntil(clock, () => w.idle(), t0 + 60_000);
    await w.stop();
    expect(reports.map((r) => r.ok)).toEqual([false, true]);
    expect(reports[0]!.error).toMatch(/after 11\.0 s; the deadline is 10 s/);
    expect(ep.received[1]!.at - ep.received[0]!.at).toBe(21_000); // 11 s answer + 10 s delay
  });

  it('sends a burst of 1,000 events at no more than 10 per second to one endpoint', async () => {
    const clock = new FakeClock();
    const s = await store();
    const ep = await endpoint(clock);
    createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    for (let i = 0; i < 1000; i++) emit(s, clock);
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    w.start();
    const t0 = clock.now();
    await runUntil(clock, () => w.idle(), t0 + 200_000, () => ep.received.length === 1000);
    await w.stop();
    expect(ep.received).toHaveLength(1000);
    const at = ep.received.map((r) => r.at).sort((a, b) => a - b);
    for (let i = 10; i < at.length; i++) expect(at[i]! - at[i - 10]!).toBeGreaterThanOrEqual(1000);
    expect(at.at(-1)! - at[0]!).toBeLessThanOrEqual(102_000); // and not needlessly slower (10 per 1.02 s)
    expect(new Set(ep.received.map((r) => JSON.parse(r.body).id)).size).toBe(1000);
  });

  it('keeps endpoints independent: a hanging endpoint does not delay a healthy one', async () => {
    const clock = new FakeClock();
    const s = await store();
    const slow = await endpoint(clock, () => new Promise<number>(() => undefined)); // never answers
    const fast = await endpoint(clock);
    createWebhook(s.db, ACCOUNT, { url: slow.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    createWebhook(s.db, ACCOUNT, { url: fast.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    for (let i = 0; i < 20; i++) emit(s, clock);
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    w.start();
    // Step the fake clock without waiting for the hanging requests.
    for (let i = 0; i < 200 && fast.received.length < 20; i++) {
      await new Promise((r) => setTimeout(r, 1));
      clock.runNext();
    }
    expect(fast.received).toHaveLength(20);
    expect(slow.received.length).toBeLessThanOrEqual(4); // at most 4 in flight to a slow endpoint
    await w.stop({ abort: true });
    slow.server.closeAllConnections();
  });

  it('redelivers with the same event id after a worker dies mid-delivery', async () => {
    const clock = new FakeClock();
    const s = await store();
    let first = true;
    const ep = await endpoint(clock, () => {
      if (first) {
        first = false;
        return new Promise<number>(() => undefined); // the worker dies while waiting for this
      }
      return 200;
    });
    const hook = createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    const ev = emit(s, clock);
    const dead = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    dead.start();
    clock.runNext(); // the first poll, at the current (fake) time
    await until(() => ep.received.length === 1);
    expect(ep.received).toHaveLength(1);
    await dead.stop({ abort: true }); // simulates the crash: no outcome is recorded
    ep.server.closeAllConnections();

    const t = clock.now();
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    w.start();
    await runUntil(clock, () => w.idle(), t + 25_000);
    expect(ep.received).toHaveLength(1); // the lease (30 s) has not expired yet
    await runUntil(clock, () => w.idle(), t + 60_000, () => ep.received.length === 2);
    await w.stop();
    expect(ep.received).toHaveLength(2);
    expect(JSON.parse(ep.received[1]!.body).id).toBe(ev.id);
    expect(ep.received[1]!.body).toBe(ep.received[0]!.body);
    expect(ep.received[1]!.headers['x-service-attempt']).toBe('2');
    const log = deliveryLog(s.db, ACCOUNT, hook.id).data;
    expect(log.map((a) => a.outcome)).toEqual(['delivered', 'lost']);
  });

  it('signs a standard endpoint\'s every attempt at its own time (a retry is signed afresh); a secret that cannot sign is reported, not sent', async () => {
    const clock = new FakeClock();
    const s = await store();
    const ep = await endpoint(clock, (n) => (n === 1 ? 503 : 200));
    const hook = createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], signature_scheme: 'standard' }, new Date(clock.now()));
    const ev = emit(s, clock);
    const reports: AttemptReport[] = [];
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock, onAttempt: (r) => reports.push(r) });
    w.start();
    await runUntil(clock, () => w.idle(), clock.now() + 20_000, () => ep.received.length === 2);
    const [first, retry] = ep.received as [Received, Received];
    expect(first.headers['webhook-id']).toBe(ev.id);
    expect(retry.headers['webhook-id']).toBe(ev.id);
    expect(Number(retry.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! / 1000);
    // Each verifies at the time it was sent (and the first no longer would at the retry's time with a 5 s window).
    for (const r of [first, retry]) expect(verifyWebhook(r.body, r.headers, hook.secret!, { now: r.at }).id).toBe(ev.id);
    expect(() => verifyWebhook(first.body, first.headers, hook.secret!, { now: retry.at, toleranceSeconds: 5 })).toThrow(expect.objectContaining({ code: 'timestamp_out_of_window' }));

    s.db.prepare('UPDATE webhook_endpoints SET secret = ? WHERE id = ?').run('edited by hand, not base64 at all!!', hook.id);
    emit(s, clock);
    await runUntil(clock, () => w.idle(), clock.now() + 1_000, () => reports.length === 3);
    await w.stop();
    expect(ep.received).toHaveLength(2);
    expect(reports[2]).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('cannot sign Standard Webhooks') });
  });

  it('signs with the new secret after a rotation, including retries of older events', async () => {
    const clock = new FakeClock();
    const s = await store();
    const NEW = 'rotated-secret-0123456789-0123456789-xyz';
    const ep = await endpoint(clock, (n) => (n === 1 ? 503 : 200), NEW);
    const hook = createWebhook(s.db, ACCOUNT, { url: ep.url, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    emit(s, clock);
    const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock });
    w.start();
    await runUntil(clock, () => w.idle(), clock.now() + 1000);
    expect(ep.received[0]!.signatureOk).toBe(false); // signed with the old secret
    const rotated = rotateSecret(s.db, ACCOUNT, hook.id, NEW, new Date(clock.now()));
    expect(rotated.secret).toBe(NEW);
    expect(rotated.secret_hint).toBe('rotate…-xyz');
    await runUntil(clock, () => w.idle(), clock.now() + 20_000, () => ep.received.length === 2);
    await w.stop();
    expect(ep.received[1]!.signatureOk).toBe(true);
    expect(() => rotateSecret(s.db, ACCOUNT, hook.id, 'too-short', new Date(clock.now()))).toThrow();
  });

  it('only sends subscribed event types', async () => {
    const clock = new FakeClock();
    const s = await store();
    createWebhook(s.db, ACCOUNT, { url: 'https://example.com/h', events: ['credit.threshold'] }, new Date(clock.now()));
    expect(enqueueEvent(s.db, ACCOUNT, envelope('verification.completed', {}, new Date()), clock.now())).toEqual([]);
    expect(enqueueEvent(s.db, ACCOUNT, envelope('credit.threshold', {}, new Date()), clock.now())).toHaveLength(1);
    expect(enqueueEvent(s.db, 'other_account', envelope('credit.threshold', {}, new Date()), clock.now())).toEqual([]);
  });
});
