/**
 * The event stream's log on SQLite (src/store/ports/event-stream.ts): events of streamed scopes,
 * written by the outbox in the commit of the event (writeOutbox → logForStreams), read by the
 * streams in rowid order. One process writes the file (the serve lock) and its commits are
 * synchronous, so rowid order is commit order and a reader never sees half a batch: a stream that
 * read up to rowid N can never be passed by an event committed later with a smaller rowid.
 * AUTOINCREMENT: a purged rowid is never handed out again, so a position stays unique.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { migrate, type Database } from '../local/database.js';
import type { EventEnvelope } from '../../api/webhooks.js';
import type { AddResultOutcome, EventStreamStore, LoggedEvent, StreamSession } from '../ports/event-stream.js';

/** The event_stream component's steps (exported for the upgrade test). */
export const MIGRATIONS = [
  `CREATE TABLE event_log (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     scope TEXT NOT NULL,
     id TEXT NOT NULL,
     type TEXT NOT NULL,
     created_at TEXT NOT NULL,
     body TEXT NOT NULL,
     logged_at INTEGER NOT NULL
   );
   CREATE INDEX event_log_scope ON event_log (scope, seq);
   CREATE INDEX event_log_id ON event_log (scope, id);
   CREATE INDEX event_log_logged ON event_log (logged_at);
   CREATE TABLE event_stream_scopes (
     scope TEXT PRIMARY KEY,
     until_ms INTEGER NOT NULL
   );
   CREATE TABLE event_stream_sessions (
     id TEXT PRIMARY KEY,
     scope TEXT NOT NULL,
     events TEXT NOT NULL,
     opened_ms INTEGER NOT NULL,
     closed_ms INTEGER
   );
   CREATE INDEX event_stream_sessions_scope ON event_stream_sessions (scope, opened_ms);
   CREATE TABLE event_stream_results (
     id INTEGER PRIMARY KEY,
     session_id TEXT NOT NULL,
     event_id TEXT NOT NULL,
     route TEXT,
     status INTEGER,
     latency_ms INTEGER,
     error TEXT,
     at_ms INTEGER NOT NULL
   );
   CREATE INDEX event_stream_results_session ON event_stream_results (session_id, id);`,
  // @2: a session's last sign of life (renewed by its process: a killed process's sessions show as
  // lost), and one result per (session, event, route) — the report-back route is not rate limited,
  // so its writes are bounded by what was streamed. Null last_seen: a session of before @2.
  `ALTER TABLE event_stream_sessions ADD COLUMN last_seen_ms INTEGER;
   UPDATE event_stream_sessions SET last_seen_ms = COALESCE(closed_ms, opened_ms);
   DELETE FROM event_stream_results WHERE id NOT IN (
     SELECT MAX(id) FROM event_stream_results GROUP BY session_id, event_id, COALESCE(route, ''));
   CREATE UNIQUE INDEX event_stream_results_once ON event_stream_results (session_id, event_id, COALESCE(route, ''));
   CREATE INDEX event_stream_results_at ON event_stream_results (at_ms);`,
];

export function migrateEventStream(db: Database): void {
  migrate(db, 'event_stream', MIGRATIONS);
}

/** Per connection: the streamed scopes (until when) and who to tell about logged events. */
interface LogState {
  scopes: Map<string, number> | undefined;
  listeners: Set<(scope: string) => void>;
  logged: Set<string>;
  insert: BetterSqlite3.Statement<unknown[]> | undefined;
}
const states = new WeakMap<Database, LogState>();
function stateOf(db: Database): LogState {
  let s = states.get(db);
  if (!s) states.set(db, (s = { scopes: undefined, listeners: new Set(), logged: new Set(), insert: undefined }));
  return s;
}

/**
 * Whether `scope` is streamed: kept in memory (one process owns the file), read from the table
 * once per connection, so the request path pays a map look-up, not a query.
 */
function streamed(db: Database, s: LogState, scope: string, nowMs: number): boolean {
  if (!s.scopes) {
    const rows = db.prepare('SELECT scope, until_ms FROM event_stream_scopes').all() as Array<{ scope: string; until_ms: number }>;
    s.scopes = new Map(rows.map((r) => [r.scope, r.until_ms]));
  }
  return (s.scopes.get(scope) ?? 0) > nowMs;
}

/** Whether events of `scope` are logged for streams now (a map look-up on the request path). */
export function streamedScope(db: Database, scope: string, nowMs: number): boolean {
  return streamed(db, stateOf(db), scope, nowMs);
}

/**
 * Logs an event for the scope's streams, inside the caller's transaction (the outbox write), when
 * the scope is streamed; listeners hear of it on the next loop turn, after the commit (the group
 * commit runs its whole batch synchronously).
 */
export function logForStreams(db: Database, scope: string, event: EventEnvelope, nowMs: number): void {
  const s = stateOf(db);
  if (!streamed(db, s, scope, nowMs)) return;
  s.insert ??= db.prepare('INSERT INTO event_log (scope, id, type, created_at, body, logged_at) VALUES (?, ?, ?, ?, ?, ?)');
  s.insert.run(scope, event.id, event.type, event.created_at, JSON.stringify(event), nowMs);
  if (s.logged.size === 0)
    setImmediate(() => {
      const scopes = [...s.logged];
      s.logged.clear();
      for (const x of scopes) for (const l of s.listeners) l(x);
    });
  s.logged.add(scope);
}

type Row = { seq: number; id: string; type: string; created_at: string; body: string };
const toEvent = (r: Row): LoggedEvent => ({ id: r.id, type: r.type, created_at: r.created_at, body: r.body, cursor: String(r.seq) });

export function sqliteEventStream(db: Database): EventStreamStore {
  migrateEventStream(db);
  const s = stateOf(db);
  const after = db.prepare('SELECT seq, id, type, created_at, body FROM event_log WHERE scope = ? AND seq > ? ORDER BY seq LIMIT ?');
  const keep = db.prepare(
    'INSERT INTO event_stream_scopes (scope, until_ms) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET until_ms = MAX(until_ms, excluded.until_ms)',
  );
  return {
    keepScope: async (scope, untilMs) => {
      streamed(db, s, scope, 0);
      keep.run(scope, untilMs);
      s.scopes!.set(scope, Math.max(untilMs, s.scopes!.get(scope) ?? 0));
    },
    tail: async () => String((db.prepare('SELECT COALESCE(MAX(seq), 0) FROM event_log').pluck().get() as number) ?? 0),
    head: () => '0',
    locate: async (scope, id) => {
      const seq = db.prepare('SELECT seq FROM event_log WHERE scope = ? AND id = ?').pluck().get(scope, id) as number | undefined;
      return seq === undefined ? undefined : String(seq);
    },
    oldest: async (scope) => db.prepare('SELECT id FROM event_log WHERE scope = ? ORDER BY seq LIMIT 1').pluck().get(scope) as string | undefined,
    after: async (scope, cursor, limit) => {
      const rows = (after.all(scope, Number(cursor), limit) as Row[]).map(toEvent);
      return { events: rows, cursor: rows.length ? rows[rows.length - 1]!.cursor : cursor, pending: false };
    },
    purge: async (beforeMs) => {
      db.transaction(() => {
        db.prepare('DELETE FROM event_log WHERE logged_at < ?').run(beforeMs);
        db.prepare('DELETE FROM event_stream_scopes WHERE until_ms < ?').run(beforeMs);
        // A session ends when closed, or (its process killed) when last seen.
        const gone = 'SELECT id FROM event_stream_sessions WHERE COALESCE(closed_ms, last_seen_ms, opened_ms) < ?';
        db.prepare(`DELETE FROM event_stream_results WHERE session_id IN (${gone}) OR at_ms < ?`).run(beforeMs, beforeMs);
        db.prepare(`DELETE FROM event_stream_sessions WHERE id IN (${gone})`).run(beforeMs);
      })();
      for (const [scope, until] of s.scopes ?? []) if (until < beforeMs) s.scopes!.delete(scope);
    },
    subscribe: (listener) => {
      s.listeners.add(listener);
      return () => s.listeners.delete(listener);
    },
    ...streamSessions(db),
  };
}

type StreamResultRow = { event_id: string; route: string | null; status: number | null; latency_ms: number | null; error: string | null; at_ms: number };

type SessionPart = Pick<EventStreamStore, 'openSession' | 'touchSession' | 'closeSession' | 'addResult' | 'listSessions'>;

/** The streams' sessions and what their apps answered (the report-back bounds: EventStreamStore.addResult). */
function streamSessions(db: Database): SessionPart {
  // Prepared once: the report-back route is not rate limited (its writes are bounded instead).
  const q = {
    session: db.prepare('SELECT events FROM event_stream_sessions WHERE id = ? AND scope = ?').pluck(),
    eventType: db.prepare('SELECT type FROM event_log WHERE scope = ? AND id = ? LIMIT 1').pluck(),
    repeat: db.prepare("SELECT 1 FROM event_stream_results WHERE session_id = ? AND event_id = ? AND COALESCE(route, '') = ?"),
    knownRoute: db.prepare("SELECT 1 FROM event_stream_results WHERE session_id = ? AND COALESCE(route, '') = ? LIMIT 1"),
    routes: db.prepare("SELECT COUNT(DISTINCT COALESCE(route, '')) FROM event_stream_results WHERE session_id = ?").pluck(),
    insert: db.prepare('INSERT INTO event_stream_results (session_id, event_id, route, status, latency_ms, error, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)'),
  };
  return {
    openSession: async (o) => {
      db.prepare('INSERT INTO event_stream_sessions (id, scope, events, opened_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?)').run(
        o.id, o.scope, JSON.stringify(o.events), o.openedMs, o.openedMs,
      );
    },
    touchSession: async (id, seenMs) => {
      db.prepare('UPDATE event_stream_sessions SET last_seen_ms = MAX(COALESCE(last_seen_ms, 0), ?) WHERE id = ? AND closed_ms IS NULL').run(seenMs, id);
    },
    closeSession: async (id, closedMs) => {
      db.prepare('UPDATE event_stream_sessions SET closed_ms = ?, last_seen_ms = ? WHERE id = ? AND closed_ms IS NULL').run(closedMs, closedMs, id);
    },
    addResult: async (scope, sessionId, r, atMs, maxRoutes) =>
      db.transaction((): AddResultOutcome => {
        const events = q.session.get(sessionId, scope) as string | undefined;
        if (events === undefined) return 'no_session';
        const type = q.eventType.get(scope, r.event_id) as string | undefined;
        if (type === undefined || !(JSON.parse(events) as string[]).includes(type)) return 'no_event';
        const route = r.route ?? '';
        if (q.repeat.get(sessionId, r.event_id, route)) return 'repeat';
        if (!q.knownRoute.get(sessionId, route) && (q.routes.get(sessionId) as number) >= maxRoutes) return 'too_many_routes';
        q.insert.run(sessionId, r.event_id, r.route, r.status, r.latency_ms, r.error, atMs);
        return 'stored';
      })(),
    listSessions: async (scope, limit, results) => {
      const rows = db
        .prepare(
          'SELECT id, events, opened_ms, closed_ms, COALESCE(last_seen_ms, closed_ms, opened_ms) AS seen_ms FROM event_stream_sessions WHERE scope = ? ORDER BY opened_ms DESC, id DESC LIMIT ?',
        )
        .all(scope, limit) as Array<{ id: string; events: string; opened_ms: number; closed_ms: number | null; seen_ms: number }>;
      const res = db.prepare(
        'SELECT event_id, route, status, latency_ms, error, at_ms FROM event_stream_results WHERE session_id = ? ORDER BY id DESC LIMIT ?',
      );
      return rows.map((r): StreamSession => ({
        session_id: r.id,
        opened_at: new Date(r.opened_ms).toISOString(),
        closed_at: r.closed_ms === null ? null : new Date(r.closed_ms).toISOString(),
        last_seen_at: new Date(r.seen_ms).toISOString(),
        events: JSON.parse(r.events) as string[],
        environment: scope.slice(scope.lastIndexOf('/') + 1),
        results: (res.all(r.id, results) as Array<StreamResultRow>).map(({ at_ms, ...x }) => ({ ...x, at: new Date(at_ms).toISOString() })),
      }));
    },
  };
}
