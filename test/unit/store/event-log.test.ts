/**
 * The event stream's log (src/store/ports/event-stream.ts), one contract on both stores: a real
 * SQLite file, and a real PostgreSQL server when reachable (skipped with a message otherwise).
 * - events are logged only for scopes kept for streams, beside the outbox (which is unchanged);
 * - positions: tail, locate, after in order, oldest; purge by age; sessions and their results;
 * - PostgreSQL: an event whose transaction commits after a later one's is not skipped — the reader
 *   waits (`pending`) and then gets both, in order — and a stream opened while a transaction runs
 *   gets its event once it commits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envelope, sampleData } from '../../../src/domain/events.js';
import { migrate, openStore } from '../../../src/store/local/database.js';
import { MIGRATIONS as SQLITE_EVENT_STREAM } from '../../../src/store/sqlite/event-log.js';
import type { EventStreamStore, OutboxEntry, ServerStore } from '../../../src/store/ports/index.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';
import { freshDatabase, reachablePostgres } from '../../helpers/postgres.js';

const NOW = Date.now();
const pgAdmin = await reachablePostgres();
const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

async function sqlite(): Promise<ServerStore> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-log-'));
  const file = await openStore(join(dir, 'verity.db'));
  const store = sqliteServerStore(file.db);
  closers.push(async () => {
    await store.close();
    file.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

async function postgres() {
  const { openPostgresStore } = await import('../../../src/store/postgres/index.js');
  const db = await freshDatabase(pgAdmin!);
  const store = await openPostgresStore({ url: db.url, poolSize: 4 });
  closers.push(async () => {
    await store.close();
    await db.drop();
  });
  return store;
}

const entry = (scope: string, type: 'verification.completed' | 'batch.completed' = 'verification.completed'): OutboxEntry => ({
  scope,
  event: envelope(type, sampleData(type, new Date(NOW)), new Date(NOW)),
});

async function readAll(log: EventStreamStore, scope: string, from: string) {
  const r = await log.after(scope, from, 100);
  return { ids: r.events.map((e) => e.id), cursor: r.cursor, pending: r.pending, events: r.events };
}

const subjects: Array<[string, () => Promise<ServerStore>]> = [['sqlite', sqlite]];
if (pgAdmin) subjects.push(['postgres', postgres]);

describe.each(subjects)('event log contract (%s)', (_name, make) => {
  it('logs events of kept scopes only, beside the outbox; positions, order and purge', async () => {
    const store = await make();
    const log = store.eventStream!;
    const start = await log.tail();
    const before = entry('a/test');
    await store.commitFailure({ outbox: [before] });
    await log.keepScope('a/test', NOW + 60_000);
    const heard: string[] = [];
    const unsubscribe = log.subscribe((s) => heard.push(s));
    const made = [entry('a/test'), entry('a/test', 'batch.completed'), entry('b/test'), entry('a/test')];
    await store.commitFailure({ outbox: made });
    const r = await readAll(log, 'a/test', start);
    expect(r.ids).toEqual([made[0]!, made[1]!, made[3]!].map((e) => e.event.id));
    expect(r.events[1]!.body).toBe(JSON.stringify(made[1]!.event));
    expect(r.events[1]!.type).toBe('batch.completed');
    expect(r.pending).toBe(false);
    expect((await readAll(log, 'b/test', start)).ids).toEqual([]);
    // Positions: after an event's position come exactly the later ones.
    const at = await log.locate('a/test', made[1]!.event.id);
    expect((await readAll(log, 'a/test', at!)).ids).toEqual([made[3]!.event.id]);
    expect(await log.locate('b/test', made[1]!.event.id)).toBeUndefined();
    expect(await log.locate('a/test', before.event.id)).toBeUndefined();
    expect(await log.oldest('a/test')).toBe(made[0]!.event.id);
    expect((await readAll(log, 'a/test', r.cursor)).ids).toEqual([]);
    expect((await readAll(log, 'a/test', log.head())).ids).toEqual(r.ids);
    // The listeners heard of the scope (this process's commit, or the NOTIFY on PostgreSQL).
    await expect.poll(() => heard.includes('a/test'), { timeout: 5_000 }).toBe(true);
    unsubscribe();
    // (Logged at the store's clock, the real one here: a cutoff past now purges them all.)
    await log.purge(Date.now() + 1);
    expect(await log.oldest('a/test')).toBeUndefined();
  });

  it('sessions: results only for logged events the session takes, once per (session, event, route), bounded routes; listed newest first', async () => {
    const store = await make();
    const log = store.eventStream!;
    await log.keepScope('a/test', NOW + 60_000);
    const made = [entry('a/test'), entry('a/test'), entry('a/test'), entry('a/test'), entry('a/test', 'batch.completed'), entry('a/live')];
    await store.commitFailure({ outbox: made });
    const ids = made.map((m) => m.event.id);
    await log.openSession({ id: 'lss_one', scope: 'a/test', events: ['verification.completed'], openedMs: NOW });
    await log.openSession({ id: 'lss_two', scope: 'a/test', events: ['batch.completed'], openedMs: NOW + 1 });
    const r = (event_id: string, route: string | null = '/h', status: number | null = 200) => ({ event_id, route, status, latency_ms: 5, error: null });
    for (let i = 0; i < 4; i++) expect(await log.addResult('a/test', 'lss_one', r(ids[i]!), NOW + i, 3)).toBe('stored');
    // The same event and route again: nothing written, the first answer stands.
    expect(await log.addResult('a/test', 'lss_one', r(ids[0]!, '/h', 500), NOW + 5, 3)).toBe('repeat');
    // Another route for the same event is another result; null is one route, once per event too.
    expect(await log.addResult('a/test', 'lss_one', r(ids[0]!, '/other'), NOW + 6, 3)).toBe('stored');
    expect(await log.addResult('a/test', 'lss_one', r(ids[0]!, null, null), NOW + 7, 3)).toBe('stored');
    expect(await log.addResult('a/test', 'lss_one', r(ids[0]!, null, null), NOW + 8, 3)).toBe('repeat');
    // A fourth route for the session is past the bound of 3; known routes still take new events.
    expect(await log.addResult('a/test', 'lss_one', r(ids[1]!, '/fourth'), NOW + 9, 3)).toBe('too_many_routes');
    expect(await log.addResult('a/test', 'lss_one', r(ids[1]!, '/other'), NOW + 10, 3)).toBe('stored');
    // Not events of this session: unknown, another scope's, a type it does not take.
    expect(await log.addResult('a/test', 'lss_one', r('wh_notlogged'), NOW, 3)).toBe('no_event');
    expect(await log.addResult('a/test', 'lss_one', r(ids[5]!), NOW, 3)).toBe('no_event');
    expect(await log.addResult('a/test', 'lss_one', r(ids[4]!), NOW, 3)).toBe('no_event');
    expect(await log.addResult('a/test', 'lss_two', r(ids[4]!), NOW + 11, 3)).toBe('stored');
    // Not a session of the scope.
    expect(await log.addResult('a/live', 'lss_one', r(ids[5]!), NOW, 3)).toBe('no_session');
    expect(await log.addResult('a/test', 'lss_none', r(ids[0]!), NOW, 3)).toBe('no_session');

    await log.touchSession('lss_two', NOW + 500);
    await log.closeSession('lss_one', NOW + 20);
    await log.touchSession('lss_one', NOW + 900); // closed: no longer renewed
    const list = await log.listSessions('a/test', 10, 2);
    expect(list.map((s) => s.session_id)).toEqual(['lss_two', 'lss_one']);
    expect(list[0]).toMatchObject({ closed_at: null, last_seen_at: new Date(NOW + 500).toISOString() });
    expect(list[1]).toMatchObject({ closed_at: new Date(NOW + 20).toISOString(), last_seen_at: new Date(NOW + 20).toISOString(), environment: 'test', events: ['verification.completed'] });
    expect(list[1]!.results.map((x) => [x.event_id, x.route])).toEqual([[ids[1], '/other'], [ids[0], null]]);
    const all = (await log.listSessions('a/test', 10, 100))[1]!.results;
    expect(all).toHaveLength(7);
    expect(all.find((x) => x.event_id === ids[0] && x.route === '/h')).toMatchObject({ status: 200, at: new Date(NOW).toISOString() });
    expect(await log.listSessions('a/live', 10, 10)).toEqual([]);
    // Purge: the closed session goes with its results; an open one last seen before the cutoff
    // (its process killed) goes too; one seen since stays.
    await log.openSession({ id: 'lss_lost', scope: 'a/test', events: ['verification.completed'], openedMs: NOW + 2 });
    await log.purge(NOW + 100);
    expect((await log.listSessions('a/test', 10, 10)).map((s) => s.session_id)).toEqual(['lss_two']);
    // lss_two's result (stored at NOW + 11) is older than the cutoff: gone with its event's retention.
    expect((await log.listSessions('a/test', 10, 10))[0]!.results).toEqual([]);
  });
});

describe('event log on SQLite: upgrade to event_stream@2', () => {
  it('keeps one result per (session, event, route) — the latest — and dates old sessions by their open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-log-up-'));
    const file = await openStore(join(dir, 'verity.db'));
    closers.push(async () => {
      file.close();
      rmSync(dir, { recursive: true, force: true });
    });
    migrate(file.db, 'event_stream', SQLITE_EVENT_STREAM.slice(0, 1));
    file.db.prepare("INSERT INTO event_stream_sessions (id, scope, events, opened_ms) VALUES ('lss_old', 'a/test', '[\"verification.completed\"]', ?)").run(NOW);
    const add = file.db.prepare('INSERT INTO event_stream_results (session_id, event_id, route, status, latency_ms, error, at_ms) VALUES (?, ?, ?, ?, 1, NULL, ?)');
    add.run('lss_old', 'wh_1', '/h', 500, NOW);
    add.run('lss_old', 'wh_1', '/h', 200, NOW + 1);
    add.run('lss_old', 'wh_1', null, null, NOW + 2);
    add.run('lss_old', 'wh_1', null, null, NOW + 3);
    add.run('lss_old', 'wh_2', '/h', 201, NOW + 4);
    const store = sqliteServerStore(file.db);
    closers.push(() => store.close());
    const [old] = await store.eventStream!.listSessions('a/test', 10, 10);
    expect(old).toMatchObject({ session_id: 'lss_old', closed_at: null, last_seen_at: new Date(NOW).toISOString() });
    expect(old!.results.map((r) => [r.event_id, r.route, r.status])).toEqual([
      ['wh_2', '/h', 201],
      ['wh_1', null, null],
      ['wh_1', '/h', 200],
    ]);
  });
});

describe.skipIf(!pgAdmin)('event log on PostgreSQL: commit order', () => {
  it('an event whose transaction commits late is not skipped: the reader waits, then gets both in order', async () => {
    const store = await postgres();
    const { enqueue } = await import('../../../src/store/postgres/outbox.js');
    const log = store.eventStream;
    await log.keepScope('c/test', NOW + 60_000);
    const start = await log.tail();
    const early = entry('c/test');
    const late = entry('c/test');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let written!: () => void;
    const inserted = new Promise<void>((r) => (written = r));
    // Transaction 1 writes first (its id and sequence value are the lower ones) and commits last.
    const t1 = store.sql.begin(async (tx) => {
      await enqueue(tx, early, NOW);
      written();
      await gate;
    });
    await inserted;
    const opened = await log.tail();
    await store.commitFailure({ outbox: [late] });
    const held = await readAll(log, 'c/test', start);
    expect(held.ids).toEqual([]);
    expect(held.pending).toBe(true);
    release();
    await t1;
    const got = await readAll(log, 'c/test', held.cursor);
    expect(got.ids).toEqual([early.event.id, late.event.id]);
    expect(got.pending).toBe(false);
    // A stream that opened while transaction 1 ran gets its event too.
    expect((await readAll(log, 'c/test', opened)).ids).toEqual([early.event.id, late.event.id]);
  });
});
