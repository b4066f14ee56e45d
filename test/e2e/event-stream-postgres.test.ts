/**
 * The event stream across serve processes on one PostgreSQL database (issue 29; a real server:
 * pg_virtualenv, skipped with a message without one): three `verity serve` processes on port 0;
 * an event made on process 2 (a claim request, a trigger) reaches a stream held by process 3 via
 * the log and NOTIFY verity_events; a resume on process 1 by Last-Event-ID gets the rest; writers
 * on two processes at once interleave without a stream skipping any event; report-backs sent to
 * all three at once store one result per (session, event, route).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDatabase, reachablePostgres } from '../helpers/postgres.js';
import { openStream, type SseStream } from '../helpers/sse-client.js';
import { startServeProcess, type Served } from './serve-process.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const pgAdmin = await reachablePostgres();
const home = mkdtempSync(join(tmpdir(), 'verity-stream-pg-e2e-'));
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '', VERITY_DATABASE_URL: '' };

describe.skipIf(!pgAdmin)('event stream: three serve processes on one PostgreSQL database', () => {
  let db: { url: string; drop(): Promise<void> };
  const served: Served[] = [];
  const streams: SseStream[] = [];
  let key = '';
  const cli = (args: string[]) => execa('node', [BIN, ...args], { env, reject: false });
  const post = (s: Served, path: string, body: unknown) =>
    fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
  const trigger = async (s: Served, type: string): Promise<string> => {
    const r = await post(s, '/v1/events/trigger', { type });
    expect(r.status).toBe(201);
    return ((await r.json()) as { event_id: string }).event_id;
  };

  beforeAll(async () => {
    db = await freshDatabase(pgAdmin!);
    const r = await cli(['admin', 'keys', 'create', '--name', 'pg-stream', '--env', 'test', '--plan', 'pro', '--account', 'pgs', '--db', db.url]);
    expect(r.exitCode, r.stderr).toBe(0);
    key = r.stdout.trim();
    for (let i = 0; i < 3; i++) served.push(await startServeProcess(BIN, ['--db', db.url, '--log-level', 'warn'], env));
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    for (const s of served) s.proc.kill('SIGTERM');
    await Promise.allSettled(served.map((s) => s.proc));
    await db?.drop();
  });

  it('an event made on process 2 reaches a stream on process 3; a resume on process 1 continues after it', async () => {
    const [p1, p2, p3] = served as [Served, Served, Served];
    const st = await openStream(`${p3.url}/v1/events/stream`, key);
    streams.push(st);
    expect(st.status).toBe(200);
    await st.next((m) => m.event === 'session');
    const v = await post(p2, '/v1/verify/claim', { claim: 'The Eiffel Tower is in Paris' });
    expect(v.status).toBe(200);
    const result = (await v.json()) as { id: string };
    const m = await st.next((x) => x.event === 'verification.completed');
    expect(JSON.parse(m.json.body).data.request_id).toBe(result.id);
    st.close();
    await st.ended;

    const later = [await trigger(p2, 'batch.completed'), await trigger(p3, 'verification.failed')];
    const resumed = await openStream(`${p1.url}/v1/events/stream`, key, { 'last-event-id': m.id! });
    streams.push(resumed);
    await resumed.next((x) => x.id === later[1]);
    expect(resumed.messages.filter((x) => x.id).map((x) => x.id)).toEqual(later);
  });

  it('writers on two processes at once: a stream on the third gets every event exactly once', async () => {
    const [p1, p2, p3] = served as [Served, Served, Served];
    const st = await openStream(`${p3.url}/v1/events/stream?events=credit.threshold`, key);
    streams.push(st);
    await st.next((m) => m.event === 'session');
    const made = (await Promise.all(Array.from({ length: 30 }, (_, i) => trigger(i % 2 ? p1 : p2, 'credit.threshold')))).sort();
    await Promise.all(made.map((id) => st.next((m) => m.id === id)));
    const got = st.messages.filter((m) => m.id).map((m) => m.id!);
    expect([...got].sort()).toEqual(made);
    expect(new Set(got).size).toBe(got.length);
  });

  it('report-backs through any process: one result per (session, event, route) when sent to all three at once; an event not streamed is refused', async () => {
    const [p1, p2, p3] = served as [Served, Served, Served];
    const st = await openStream(`${p3.url}/v1/events/stream`, key);
    streams.push(st);
    const session = (await st.next((m) => m.event === 'session')).json.session_id as string;
    const id = await trigger(p2, 'verification.completed');
    await st.next((m) => m.id === id);
    const report = (s: Served, body: unknown) => post(s, `/v1/events/stream/sessions/${session}/results`, body);
    const answers = await Promise.all([p1, p2, p3, p1, p2, p3].map((s, i) => report(s, { event_id: id, route: '/webhooks', status: 200 + i })));
    expect(answers.map((r) => r.status)).toEqual([204, 204, 204, 204, 204, 204]);
    const unknown = await report(p1, { event_id: 'wh_0000000000000000000000', route: '/webhooks', status: 200 });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.details).toEqual([expect.objectContaining({ field: 'event_id' })]);
    const list = await fetch(`${p2.url}/v1/events/stream/sessions`, { headers: { authorization: `Bearer ${key}` } });
    const mine = ((await list.json()) as { data: any[] }).data.find((x) => x.session_id === session);
    expect(mine).toMatchObject({ state: 'open', closed_at: null });
    expect(mine.results).toHaveLength(1);
    expect(mine.results[0]).toMatchObject({ event_id: id, route: '/webhooks' });
  });
});
