import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { createDeliveryWorker, type AttemptReport } from '../../../src/webhooks/delivery.js';
import { envelope } from '../../../src/domain/events.js';
import { createWebhook, deliveryLog, enqueueEvent, ensureWebhookSchema, replayEvent } from '../../../src/store/sqlite/webhooks.js';
import { targetUrlProblem, type LookupFn } from '../../../src/webhooks/target-guard.js';
import { FakeClock, runUntil } from './fake-clock.js';
import { sqliteOutbox } from '../../../src/store/sqlite/index.js';

const SECRET = 'guard-secret-0123456789-0123456789-abcdef';
const ACCOUNT = 'acct_g';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** A loopback receiver that counts connections, and a body a leak would expose. */
async function trap(status = 200) {
  const seen = { connections: 0, headers: [] as IncomingHttpHeaders[] };
  const server = createServer((req, res) => {
    seen.headers.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.statusCode = status;
      res.end('INTERNAL-SECRET-BODY root:x:0:0');
    });
  });
  server.on('connection', () => void seen.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => {
    server.close(() => r());
    server.closeAllConnections();
  }));
  return { port: (server.address() as AddressInfo).port, seen };
}

async function store(): Promise<Store> {
  const s = await openStore(':memory:');
  ensureWebhookSchema(s.db);
  cleanups.push(() => s.close());
  return s;
}

async function deliverOnce(s: Store, clock: FakeClock, policy: Parameters<typeof createDeliveryWorker>[0]['targetPolicy']) {
  const reports: AttemptReport[] = [];
  const w = createDeliveryWorker({ outbox: sqliteOutbox(s.db), clock, targetPolicy: policy, onAttempt: (r) => reports.push(r) });
  w.start();
  await runUntil(clock, () => w.idle(), clock.now() + 1_000, () => reports.length > 0);
  await w.stop();
  return reports;
}

const injected = (addresses: string[]): LookupFn => (_h, _o, cb) => cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('webhook target guard', () => {
  it.each([
    ['http://example.com/h', 'must be https'],
    ['https://127.0.0.1/h', 'loopback'],
    ['https://localhost:8443/h', 'loopback'],
    ['https://[::1]/h', 'loopback'],
    ['https://2130706433/h', 'loopback'],
    ['https://127.1/h', 'loopback'],
    ['https://0x7f.0.0.1/h', 'loopback'],
    ['https://[::7f00:1]/h', 'loopback'],
    ['https://[::ffff:0:7f00:1]/h', 'loopback'],
    ['https://[2002:7f00:1::]/h', 'loopback'],
    ['https://[64:ff9b::a9fe:a9fe]/h', 'link-local'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://10.0.0.5/h', 'private'],
    ['https://0.0.0.0/h', 'unspecified'],
    ['https://user:pw@example.com/h', 'credentials'],
  ])('refuses %s at registration (%s)', (url, rule) => {
    expect(targetUrlProblem(url, { allowPrivate: false })).toContain(rule);
  });

  it('allows public https targets, and anything http(s) with the development switch', () => {
    expect(targetUrlProblem('https://hooks.example.com/h', { allowPrivate: false })).toBeUndefined();
    expect(targetUrlProblem('http://127.0.0.1:4242/h', { allowPrivate: true })).toBeUndefined();
  });

  it('refuses a loopback literal at delivery: no connection, and the record quotes no reply body', async () => {
    const clock = new FakeClock();
    const s = await store();
    const t = await trap();
    const hook = createWebhook(s.db, ACCOUNT, { url: `http://127.0.0.1:${t.port}/h`, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    enqueueEvent(s.db, ACCOUNT, envelope('verification.completed', {}, new Date(clock.now())), clock.now());
    const reports = await deliverOnce(s, clock, { allowPrivate: false });
    expect(reports[0]).toMatchObject({ ok: false, statusCode: null });
    expect(reports[0]!.error).toMatch(/^refused: .*loopback/);
    expect(t.seen.connections).toBe(0);
    expect(JSON.stringify(deliveryLog(s.db, ACCOUNT, hook.id))).not.toContain('INTERNAL-SECRET');
  });

  it('refuses a name when any address it resolves to is forbidden (checked at connect time)', async () => {
    const clock = new FakeClock();
    const s = await store();
    createWebhook(s.db, ACCOUNT, { url: 'https://hooks.rebind.test/h', events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    enqueueEvent(s.db, ACCOUNT, envelope('verification.completed', {}, new Date(clock.now())), clock.now());
    const reports = await deliverOnce(s, clock, { allowPrivate: false, lookup: injected(['8.8.8.8', '10.0.0.1']) });
    expect(reports[0]!.error).toBe('refused: hooks.rebind.test resolves to a private address');
  });

  it('with the switch, delivers to loopback; the error names the status only; replays carry x-service-replay', async () => {
    const clock = new FakeClock();
    const s = await store();
    const t = await trap(500);
    createWebhook(s.db, ACCOUNT, { url: `http://127.0.0.1:${t.port}/h`, events: ['verification.completed'], secret: SECRET }, new Date(clock.now()));
    const ev = envelope('verification.completed', {}, new Date(clock.now()));
    enqueueEvent(s.db, ACCOUNT, ev, clock.now());
    const first = await deliverOnce(s, clock, { allowPrivate: true });
    expect(first[0]).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500 Internal Server Error' });
    replayEvent(s.db, ACCOUNT, ev.id, clock.now());
    await deliverOnce(s, clock, { allowPrivate: true });
    expect(t.seen.headers.map((h) => h['x-service-replay'])).toEqual([undefined, '1']);
  });
});
