/**
 * The event stream end to end (issue 29) with the built CLI: `verity serve` on a SQLite file as a
 * child process on loopback, a real SSE client (test/helpers/sse-client.ts), keys made with
 * `admin keys create`.
 * - a claim request with a test key → its verification.completed on the test key's stream, with
 *   the headers a delivery carries, signed with the stream's secret over the exact body;
 * - a test stream never sees live events (and the other way round);
 * - `kill -9` of serve, events made after the restart, a resume by Last-Event-ID → nothing lost,
 *   nothing twice, in order; an unknown id → `missed`;
 * - the sessions' report-back round trip; a test key reports more results than its hourly rate
 *   limit for events it was streamed, and a result for an event not streamed is refused; POST /v1/events/trigger reaches the stream and a
 *   registered loopback endpoint with the same event id and body;
 * - SIGTERM with a stream open → serve ends promptly, the stream ended.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { startServeProcess, type Served } from './serve-process.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const home = mkdtempSync(join(tmpdir(), 'verity-stream-e2e-'));
const dbFile = join(home, 'serve.db');
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '', VERITY_DATABASE_URL: '' };
const cli = (args: string[]) => execa('node', [BIN, ...args], { env, reject: false });
const hmac = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const served: Served[] = [];
const streams: SseStream[] = [];
const serve = async (): Promise<Served> => {
  const s = await startServeProcess(BIN, ['--db', dbFile, '--log-level', 'info', '--allow-private-webhooks'], env);
  served.push(s);
  return s;
};
const open = async (s: Served, key: string, headers: Record<string, string> = {}, query = ''): Promise<SseStream> => {
  const st = await openStream(`${s.url}/v1/events/stream${query}`, key, headers);
  streams.push(st);
  return st;
};
const call = (s: Served, method: string, path: string, key: string, body?: unknown) =>
  fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const trigger = async (s: Served, key: string, type: string): Promise<string> => {
  const r = await call(s, 'POST', '/v1/events/trigger', key, { type });
  expect(r.status).toBe(201);
  return ((await r.json()) as { event_id: string }).event_id;
};

let testKey = '';
let liveKey = '';
beforeAll(async () => {
  const make = async (name: string, envName: string) => {
    const r = await cli(['admin', 'keys', 'create', '--name', name, '--env', envName, '--plan', 'pro', '--db', dbFile]);
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  testKey = await make('stream-test', 'test');
  liveKey = await make('stream-live', 'live');
});

afterAll(async () => {
  for (const st of streams) st.close();
  for (const s of served) s.proc.kill('SIGKILL');
  await Promise.allSettled(served.map((s) => s.proc));
});

describe('GET /v1/events/stream against verity serve (SQLite)', () => {
  it('streams a claim request’s verification.completed, signed with the stream secret; test and live never mix', async () => {
    const s = await serve();
    const st = await open(s, testKey);
    expect(st.status).toBe(200);
    expect(st.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(st.headers['cache-control']).toBe('no-store');
    const session = await st.next((m) => m.event === 'session');
    expect(st.messages[0]).toBe(session);
    expect(session.json).toMatchObject({ signature_scheme: 'verity', environment: 'test', retention_seconds: 86400, resumed_after: null });
    expect(session.json.session_id).toMatch(/^lss_/);
    expect(session.json.secret).toMatch(/^whsec_/);
    // The secret is the stream's: never written to the server's log.
    expect(s.stderr.join('\n')).not.toContain(session.json.secret);
    const live = await open(s, liveKey);
    await live.next((m) => m.event === 'session');

    // A live event first, then the claim request with the test key.
    const liveId = await trigger(s, liveKey, 'credit.threshold');
    const v = await call(s, 'POST', '/v1/verify/claim', testKey, { claim: 'The Eiffel Tower is in Paris' });
    expect(v.status).toBe(200);
    const result = (await v.json()) as { id: string; verdict: string };
    const m = await st.next((x) => x.event === 'verification.completed');
    expect(m.id).toBe(m.json.id);
    expect(m.id).toMatch(/^wh_/);
    const body = JSON.parse(m.json.body);
    expect(body).toMatchObject({ id: m.id, type: 'verification.completed', data: { request_id: result.id, verdict: result.verdict } });
    expect(m.json.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event-id': m.id,
      'x-service-event-type': 'verification.completed',
      'x-service-attempt': '1',
      'x-service-webhook-id': session.json.session_id,
    });
    expect(m.json.headers['x-service-signature']).toBe(hmac(session.json.secret, m.json.body));
    // The test stream saw nothing before its own event: the live one (committed first) is not its.
    expect(st.messages.filter((x) => x.event !== 'session').map((x) => x.id)).toEqual([m.id]);
    const l = await live.next((x) => x.id === liveId);
    expect(l.event).toBe('credit.threshold');
    expect(live.messages.some((x) => x.id === m.id)).toBe(false);
  });

  it('a filter by events= and a bad filter', async () => {
    const s = served[0]!;
    const bad = await open(s, testKey, {}, '?events=verification.completed,nope');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe('VALIDATION_FAILED');
    const st = await open(s, testKey, {}, '?events=batch.partial');
    expect((await st.next((m) => m.event === 'session')).json.events).toEqual(['batch.partial']);
    await trigger(s, testKey, 'batch.completed');
    const want = await trigger(s, testKey, 'batch.partial');
    await st.next((m) => m.id === want);
    expect(st.messages.map((x) => x.event)).toEqual(['session', 'batch.partial']);
  });

  it('sessions: results reported back are listed; unknown session 404; a bad result 400', async () => {
    const s = served[0]!;
    const st = await open(s, testKey);
    const session = (await st.next((m) => m.event === 'session')).json;
    const id = await trigger(s, testKey, 'verification.failed');
    await st.next((m) => m.id === id);
    const ok = await call(s, 'POST', `/v1/events/stream/sessions/${session.session_id}/results`, testKey, {
      event_id: id,
      route: '/webhooks',
      status: 200,
      latency_ms: 7,
      error: null,
    });
    expect(ok.status).toBe(204);
    const list = (await (await call(s, 'GET', '/v1/events/stream/sessions', testKey)).json()) as { data: any[] };
    const mine = list.data.find((x) => x.session_id === session.session_id);
    expect(mine).toMatchObject({ closed_at: null, environment: 'test', results: [{ event_id: id, route: '/webhooks', status: 200, latency_ms: 7, error: null }] });
    // Another environment's key does not see the session.
    const other = (await (await call(s, 'GET', '/v1/events/stream/sessions', liveKey)).json()) as { data: any[] };
    expect(other.data.some((x) => x.session_id === session.session_id)).toBe(false);
    expect((await call(s, 'POST', '/v1/events/stream/sessions/lss_nope/results', testKey, { event_id: id })).status).toBe(404);
    const bad = await call(s, 'POST', `/v1/events/stream/sessions/${session.session_id}/results`, testKey, { event_id: id, status: 'x' });
    expect(bad.status).toBe(400);
    st.close();
    await st.ended;
  });

  it('a test key reports more results than its hourly limit for events it was streamed; a result for an event not streamed is refused', async () => {
    const s = served[0]!;
    const made = await cli(['admin', 'keys', 'create', '--name', 'stream-reports', '--env', 'test', '--plan', 'pro', '--db', dbFile]);
    expect(made.exitCode, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const st = await open(s, key);
    const session = (await st.next((m) => m.event === 'session')).json.session_id as string;
    expect(Number(st.headers['ratelimit-limit'])).toBe(100);
    // 30 real events (30 requests) × 4 routes = 120 results, past the key's 100 requests an hour.
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await trigger(s, key, 'verification.completed'));
    await st.next((m) => m.id === ids[29]);
    const report = (body: unknown) => call(s, 'POST', `/v1/events/stream/sessions/${session}/results`, key, body);
    let stored = 0;
    for (const id of ids)
      for (const route of ['/webhooks', '/audit', '/billing?v=2', null]) {
        const r = await report({ event_id: id, route, status: route ? 200 : null, latency_ms: 4, error: route ? null : 'refused by listen: test' });
        expect(r.status).toBe(204);
        stored++;
      }
    expect(stored).toBeGreaterThan(100);
    // An event of another environment (the live key's), and an id never made: refused, 404.
    const liveEvent = await trigger(s, liveKey, 'verification.completed');
    for (const event_id of [liveEvent, 'wh_0000000000000000000000']) {
      const r = await report({ event_id, route: '/webhooks', status: 200 });
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).error).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'event_id' }] });
    }
    // The key's window holds the stream's open, the 30 triggers and this listing — no report-back.
    const list = await call(s, 'GET', '/v1/events/stream/sessions', key);
    expect(list.headers.get('ratelimit-remaining')).toBe(String(100 - 32));
    const mine = ((await list.json()) as { data: any[] }).data.find((x) => x.session_id === session);
    expect(mine).toMatchObject({ state: 'open', closed_at: null });
    expect(mine.results).toHaveLength(20);
    st.close();
    await st.ended;
  });

  it('POST /v1/events/trigger reaches the stream and a registered loopback endpoint: same id and body', async () => {
    const s = served[0]!;
    const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    let arrived!: () => void;
    const delivered = new Promise<void>((r) => (arrived = r));
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.end('ok');
        arrived();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const add = await call(s, 'POST', '/v1/webhooks', testKey, { url, events: ['verification.completed'] });
      expect(add.status).toBe(201);
      const hook = (await add.json()) as { id: string; secret: string };
      const st = await open(s, testKey);
      const session = (await st.next((m) => m.event === 'session')).json;
      const id = await trigger(s, testKey, 'verification.completed');
      const m = await st.next((x) => x.id === id);
      await delivered;
      expect(got[0]!.headers['x-service-event-id']).toBe(id);
      expect(got[0]!.body).toBe(m.json.body);
      expect(got[0]!.headers['x-service-signature']).toBe(hmac(hook.secret, got[0]!.body));
      expect(m.json.headers['x-service-signature']).toBe(hmac(session.secret, m.json.body));
      expect(JSON.parse(m.json.body).data.sample).toBe(true);
      await call(s, 'DELETE', `/v1/webhooks/${hook.id}`, testKey);
    } finally {
      receiver.close();
      receiver.closeAllConnections();
    }
  });

  it('kill -9 and restart of serve: a resume by Last-Event-ID gets every event made meanwhile, once, in order', async () => {
    const s = served[0]!;
    const st = await open(s, testKey);
    await st.next((m) => m.event === 'session');
    const first = await trigger(s, testKey, 'verification.completed');
    await st.next((m) => m.id === first);
    s.proc.kill('SIGKILL');
    await s.proc;
    await st.ended;

    const again = await serve();
    // Made while no stream is open: the account's events are still logged for its streams.
    const made = [await trigger(again, testKey, 'verification.completed'), await trigger(again, testKey, 'batch.completed'), await trigger(again, testKey, 'verification.failed')];
    const resumed = await open(again, testKey, { 'last-event-id': first });
    const session = await resumed.next((m) => m.event === 'session');
    expect(session.json.resumed_after).toBe(first);
    await resumed.next((m) => m.id === made[2]);
    expect(resumed.messages.filter((m) => m.event !== 'session').map((m) => m.id)).toEqual(made);
    const more = await trigger(again, testKey, 'credit.threshold');
    await resumed.next((m) => m.id === more);

    // An id the log does not hold: reported as missed, then the oldest retained event follows.
    const lost = await open(again, testKey, {}, '?last_event_id=wh_NotAnEventOfThisAccount0');
    const missed = await lost.next((m) => m.event === 'missed');
    expect(missed.json).toMatchObject({ after: 'wh_NotAnEventOfThisAccount0', reason: 'expired' });
    expect(missed.json.replay).toContain('verity webhooks replay');
    await lost.next((m) => m.id === more);
    const ids = lost.messages.filter((m) => m.id).map((m) => m.id);
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(made[0]!));
  });

  it('SIGTERM with streams open: serve stops promptly and the streams end', async () => {
    const s = served[served.length - 1]!;
    const st = await open(s, testKey);
    await st.next((m) => m.event === 'session');
    s.proc.kill('SIGTERM');
    const r = await s.proc;
    await st.ended;
    expect(r.exitCode).toBe(0);
  });
});
