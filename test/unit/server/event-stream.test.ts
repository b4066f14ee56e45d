/**
 * The event stream routes in process (issue 29): the real server (buildServer) over a real SQLite
 * file on loopback, the stream plugin with small bounds, a settable clock for retention.
 * - a reader that stops reading is cut once its unsent bytes pass the bound; memory stays bounded;
 * - streams per account are bounded (429), and a closed stream frees its place;
 * - keep-alive comments; retention: an event past it is reported `missed` (expired) on resume;
 * - a stream changes nothing endpoints receive: the outbox rows are the same with a stream open;
 * - app.close() with streams open ends them and returns;
 * - report-backs: not rate limited, taken only for streamed events, once per (session, event,
 *   route), routes bounded; sessions open / closed / lost by their last renewal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../../src/server/app.js';
import { createServerEngines } from '../../../src/server/engines.js';
import { eventStreamPlugin, type EventStreamOptions } from '../../../src/server/event-stream-routes.js';
import { envelope, sampleData } from '../../../src/domain/events.js';
import { openStore } from '../../../src/store/local/database.js';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';
import { openStream, type SseStream } from '../../helpers/sse-client.js';
import { FakeClock } from './harness.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(o: Partial<EventStreamOptions> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'verity-stream-'));
  const file = await openStore(join(dir, 'verity.db'));
  migrateServer(file.db);
  const clock = new FakeClock();
  const store = sqliteServerStore(file.db, { nowMs: () => clock.ms });
  const cuts: Array<{ reason: string; buffered: number }> = [];
  let cut!: () => void;
  const cutSeen = new Promise<void>((r) => (cut = r));
  const stream = eventStreamPlugin({
    store,
    clock,
    onCut: (c) => {
      cuts.push(c);
      cut();
    },
    ...o,
  });
  const engines = createServerEngines({ config: {}, store: file, cacheDir: join(dir, 'cache'), clock });
  const app = await buildServer({ logLevel: 'silent', store, engines, clock, plugins: [stream.plugin] });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const streams: SseStream[] = [];
  let closed = false;
  cleanups.push(async () => {
    for (const s of streams) s.close();
    if (!closed) await app.close();
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const key = (name: string, env: 'test' | 'live' = 'test', account = 'acct') => createKey(file.db, { name, environment: env, plan: 'pro', account, now: clock.now() }).key;
  return {
    url,
    app,
    store,
    db: file.db,
    clock,
    cuts,
    cutSeen,
    hub: stream.hub,
    key,
    open: async (k: string, headers: Record<string, string> = {}) => {
      const s = await openStream(`${url}/v1/events/stream`, k, headers);
      streams.push(s);
      return s;
    },
    /** Events of the account through the store's outbox write, as the server's commits make them. */
    emit: async (account: string, n: number, type: 'verification.completed' | 'credit.threshold' = 'verification.completed') => {
      const out = Array.from({ length: n }, () => ({ scope: `${account}/test`, event: envelope(type, sampleData(type, clock.now()), clock.now()) }));
      await store.commitFailure({ outbox: out });
      return out.map((e) => e.event.id);
    },
    close: async () => {
      closed = true;
      await app.close();
    },
  };
}

const accountOf = (db: import('../../../src/store/local/database.js').Database, name: string): string =>
  (db.prepare('SELECT id FROM accounts WHERE name = ?').pluck().get(name) as string);

describe('event stream bounds', () => {
  it('cuts a reader that stops reading once its unsent bytes pass the bound; memory stays bounded', async () => {
    const bound = 16 * 1024;
    const t = await start({ maxBufferedBytes: bound });
    const k = t.key('slow');
    const st = await t.open(k);
    await st.next((m) => m.event === 'session');
    st.pause();
    const account = accountOf(t.db, 'acct');
    // Until the socket's kernel buffers are full and bytes wait in the process: then it is cut.
    for (let i = 0; i < 200 && t.cuts.length === 0; i++) {
      await t.emit(account, 500);
      await new Promise((r) => setImmediate(r));
    }
    await t.cutSeen;
    expect(['buffer', 'stalled']).toContain(t.cuts[0]!.reason);
    // Never more than the bound plus one page of events (100 events of under 1 KiB here).
    expect(t.cuts[0]!.buffered).toBeLessThan(bound + 100 * 1024);
    expect(t.hub()!.size).toBe(0);
  });

  it('bounds the streams per account (429) and frees the place of a closed stream', async () => {
    const t = await start({ maxPerAccount: 2 });
    const a = t.key('a1', 'test', 'acct');
    const b = t.key('a2', 'live', 'acct');
    const s1 = await t.open(a);
    const s2 = await t.open(b);
    await Promise.all([s1.next((m) => m.event === 'session'), s2.next((m) => m.event === 'session')]);
    const third = await t.open(a);
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body).error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(JSON.parse(third.body).error.message).toContain('2 open event streams');
    // A HEAD answers the head and holds no stream.
    const head = await fetch(`${t.url}/v1/events/stream`, { method: 'HEAD', headers: { authorization: `Bearer ${a}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    // Another account is not affected.
    const other = await t.open(t.key('o', 'test', 'other'));
    expect(other.status).toBe(200);
    s1.close();
    await s1.ended;
    await new Promise((r) => setImmediate(r));
    const again = await t.open(a);
    expect(again.status).toBe(200);
  });

  it('sends keep-alive comments', async () => {
    const t = await start({ pingMs: 10 });
    const st = await t.open(t.key('p'));
    await st.next((m) => m.event === 'session');
    expect(await st.nextComment()).toBe('ping');
  });

  it('an event past retention is reported missed (expired) on resume; the stream goes on from the oldest retained', async () => {
    const t = await start({ retentionSeconds: 3600 });
    const k = t.key('r');
    const account = accountOf(t.db, 'acct');
    const st = await t.open(k);
    await st.next((m) => m.event === 'session');
    const [old] = await t.emit(account, 1);
    await st.next((m) => m.id === old);
    st.close();
    await st.ended;
    t.clock.advance(2 * 3_600_000);
    // (An account's events are logged while it has a stream, and a retention after its last one.)
    const now = await t.open(k);
    await now.next((m) => m.event === 'session');
    const [fresh] = await t.emit(account, 1);
    const resumed = await t.open(k, { 'last-event-id': old! });
    const missed = await resumed.next((m) => m.event === 'missed');
    expect(missed.json).toMatchObject({ after: old, reason: 'expired', oldest_retained: fresh });
    await resumed.next((m) => m.id === fresh);
    const bad = await t.open(k, { 'last-event-id': 'not-an-id' });
    expect((await bad.next((m) => m.event === 'missed')).json.reason).toBe('unknown_event');
  });

  it('a stream changes nothing endpoints receive: the same delivery rows with and without a stream', async () => {
    const t = await start();
    const k = t.key('e');
    const account = accountOf(t.db, 'acct');
    const [before] = await t.emit(account, 1);
    const st = await t.open(k);
    await st.next((m) => m.event === 'session');
    const [during] = await t.emit(account, 1);
    await st.next((m) => m.id === during);
    // No endpoint: neither event is in the outbox; the stream's log is beside it.
    const outbox = t.db.prepare('SELECT COUNT(*) FROM webhook_events WHERE id IN (?, ?)').pluck().get(before, during);
    expect(outbox).toBe(0);
    expect(t.db.prepare('SELECT id FROM event_log').pluck().all()).toEqual([during]);
  });

  it('app.close() with streams open ends them and returns', async () => {
    const t = await start();
    const st = await t.open(t.key('c'));
    const st2 = await t.open(t.key('c2'));
    await Promise.all([st.next((m) => m.event === 'session'), st2.next((m) => m.event === 'session')]);
    st2.pause();
    await t.close();
    await st.ended;
    expect(t.hub()!.size).toBe(0);
  });

  it('report-backs are not counted against the rate limit, but taken only for streamed events, once per (session, event, route), for 20 routes', async () => {
    const t = await start();
    const k = t.key('rb');
    const account = accountOf(t.db, 'acct');
    const st = await t.open(k);
    const session = (await st.next((m) => m.event === 'session')).json.session_id as string;
    // 30 events (made without requests) × 4 routes = 120 results: more than a test key's 100 an hour.
    const ids = await t.emit(account, 30);
    await st.next((m) => m.id === ids[29]);
    const post = (body: unknown, id = session) =>
      fetch(`${t.url}/v1/events/stream/sessions/${id}/results`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const routes = ['/a', '/b', '/c?x=1', null];
    for (const id of ids)
      for (const route of routes) {
        const r = await post({ event_id: id, route, status: route ? 200 : null, latency_ms: 3, error: route ? null : 'refused by listen: x' });
        expect(r.status).toBe(204);
        expect(r.headers.get('ratelimit-remaining')).toBeNull();
      }
    expect(t.db.prepare('SELECT COUNT(*) FROM event_stream_results WHERE session_id = ?').pluck().get(session)).toBe(120);
    // A repeat answers 204 and writes nothing: the first answer stands.
    expect((await post({ event_id: ids[0], route: '/a', status: 500 })).status).toBe(204);
    expect(t.db.prepare("SELECT status FROM event_stream_results WHERE session_id = ? AND event_id = ? AND route = '/a'").pluck().all(session, ids[0])).toEqual([200]);
    // An event this session was not streamed: 404 naming the event_id (unknown session: no details).
    const unknown = await post({ event_id: 'wh_notAnEventOfThisAccount', route: '/a', status: 200 });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'event_id' }] });
    // Another account's key cannot report into this session.
    const other = await fetch(`${t.url}/v1/events/stream/sessions/${session}/results`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key('other', 'test', 'acct2')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event_id: ids[1], route: '/a' }),
    });
    expect(other.status).toBe(404);
    expect(((await other.json()) as any).error.details).toBeUndefined();
    // Routes per session are bounded: 16 more are taken, the 21st is refused; '' is not a route.
    for (let i = 0; i < 16; i++) expect((await post({ event_id: ids[0], route: `/r${i}`, status: 200 })).status).toBe(204);
    const past = await post({ event_id: ids[0], route: '/one-too-many', status: 200 });
    expect(past.status).toBe(400);
    expect(((await past.json()) as any).error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'route' }] });
    expect((await post({ event_id: ids[0], route: '', status: 200 })).status).toBe(400);
    // None of it touched the key's window: the stream's open and this GET are its only requests.
    const list = await fetch(`${t.url}/v1/events/stream/sessions`, { headers: { authorization: `Bearer ${k}` } });
    expect(list.headers.get('ratelimit-remaining')).toBe('98');
  });

  it('sessions: open while renewed (injected clock), closed when ended, lost (closed_at = last seen) when their process stopped renewing them', async () => {
    const t = await start({ pingMs: 5, renewMs: 1_000 });
    const k = t.key('life');
    const st = await t.open(k);
    const live = (await st.next((m) => m.event === 'session')).json.session_id as string;
    const T0 = t.clock.ms;
    // A session whose serve process was killed: opened, never renewed, never closed.
    await t.store.eventStream!.openSession({ id: 'lss_killed', scope: `${accountOf(t.db, 'acct')}/test`, events: ['verification.completed'], openedMs: T0 });
    const list = async () => {
      const r = await fetch(`${t.url}/v1/events/stream/sessions`, { headers: { authorization: `Bearer ${k}` } });
      return new Map(((await r.json()) as { data: any[] }).data.map((x) => [x.session_id, x]));
    };
    expect((await list()).get('lss_killed')).toMatchObject({ state: 'open', closed_at: null, last_seen_at: new Date(T0).toISOString() });
    // 3 s later (past 2 × 1 s + a 5 ms tick): the live stream was renewed at a tick, the other not.
    t.clock.advance(3_000);
    await expect.poll(async () => (await list()).get(live)?.last_seen_at, { timeout: 5_000 }).toBe(new Date(T0 + 3_000).toISOString());
    const now = await list();
    expect(now.get(live)).toMatchObject({ state: 'open', closed_at: null });
    expect(now.get('lss_killed')).toMatchObject({ state: 'lost', closed_at: new Date(T0).toISOString(), last_seen_at: new Date(T0).toISOString() });
    st.close();
    await st.ended;
    await expect.poll(async () => (await list()).get(live)?.state, { timeout: 5_000 }).toBe('closed');
    expect((await list()).get(live)!.closed_at).toBe(new Date(T0 + 3_000).toISOString());
  });

  it('the OpenAPI document lists the stream, sessions, results and trigger operations', async () => {
    const t = await start();
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, any>; components: { schemas: Record<string, any> } };
    expect(doc.paths['/v1/events/stream'].get.responses['200'].content).toHaveProperty('text/event-stream');
    expect(doc.paths['/v1/events/stream/sessions'].get.operationId).toBe('listStreamSessions');
    expect(doc.paths['/v1/events/stream/sessions/{id}/results'].post.responses).toHaveProperty('204');
    expect(doc.paths['/v1/events/trigger'].post.operationId).toBe('triggerEvent');
    expect(doc.components.schemas.StreamResult.required).toEqual(['event_id']);
    expect(doc.components.schemas.StreamSessions.properties.data.items.properties.state.enum).toEqual(['open', 'closed', 'lost']);
    expect(doc.paths['/v1/events/stream/sessions/{id}/results'].post.description).toMatch(/Not counted against the key’s rate limit/);
  });
});
