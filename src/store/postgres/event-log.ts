/**
 * The event stream's log on PostgreSQL (src/store/ports/event-stream.ts), shared by every serve
 * process: rows written by the outbox in the commit of the event (outbox.ts `enqueue`), announced
 * by NOTIFY `verity_events` (payload: the scope) on commit, read by the streams of any process.
 *
 * Order. A sequence value is taken when a row is inserted, not when it commits: with concurrent
 * writers, seq 8 can commit after a reader has already read seq 9, and a reader that continued
 * "after 9" would skip 8 for good. So every row also records its transaction id (xid8, DEFAULT
 * pg_current_xact_id()), and a reader reads only rows whose transaction id is below the xmin of
 * its own snapshot, ordered by (xid, seq). Every transaction below xmin has ended, so no row can
 * later appear in that range: a position (xid, seq) is final once passed, and a resume from it
 * loses nothing — without a time window to guess. Rows of transactions at or above xmin that have
 * already committed (a newer commit while an older transaction still runs) are reported as
 * `pending`: the stream reads again shortly, and gets them once the older transaction ends.
 * The cost: a transaction left open anywhere on the cluster (idle in transaction) holds streams
 * back until it ends (docs/webhooks.md "Event stream").
 */
import type { Sql } from 'postgres';
import type { AddResultOutcome, EventStreamStore, LoggedEvent, StreamSession } from '../ports/event-stream.js';

/** The event_stream component's steps (appended to PG_MIGRATIONS in migrations.ts). */
export const EVENT_STREAM: readonly string[] = [
  `CREATE TABLE event_log (
     seq bigserial NOT NULL,
     xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
     scope text NOT NULL,
     id text NOT NULL,
     type text NOT NULL,
     created_at text NOT NULL,
     body text NOT NULL,
     logged_at bigint NOT NULL,
     PRIMARY KEY (scope, xid, seq)
   );
   CREATE INDEX event_log_id ON event_log (scope, id);
   CREATE INDEX event_log_logged ON event_log (logged_at);
   CREATE TABLE event_stream_scopes (
     scope text PRIMARY KEY,
     until_ms bigint NOT NULL
   );
   CREATE TABLE event_stream_sessions (
     id text PRIMARY KEY,
     scope text NOT NULL,
     events jsonb NOT NULL,
     opened_ms bigint NOT NULL,
     closed_ms bigint
   );
   CREATE INDEX event_stream_sessions_scope ON event_stream_sessions (scope, opened_ms);
   CREATE TABLE event_stream_results (
     id bigserial PRIMARY KEY,
     session_id text NOT NULL,
     event_id text NOT NULL,
     route text,
     status integer,
     latency_ms bigint,
     error text,
     at_ms bigint NOT NULL
   );
   CREATE INDEX event_stream_results_session ON event_stream_results (session_id, id);
   -- Streams in every process hear of a scope's new events when their transaction commits
   -- (identical notifications of one transaction are folded into one).
   CREATE FUNCTION verity_event_log_notify() RETURNS trigger AS $$
   BEGIN
     PERFORM pg_notify('verity_events', NEW.scope);
     RETURN NULL;
   END $$ LANGUAGE plpgsql;
   CREATE TRIGGER event_log_notify AFTER INSERT ON event_log FOR EACH ROW EXECUTE FUNCTION verity_event_log_notify();`,
  // @2: a session's last sign of life (renewed by its process: a killed process's sessions show as
  // lost), and one result per (session, event, route) — the report-back route is not rate limited,
  // so its writes are bounded by what was streamed. Null last_seen: a session of before @2 (or one
  // opened by a process of that version during a rolling upgrade).
  `ALTER TABLE event_stream_sessions ADD COLUMN last_seen_ms bigint;
   UPDATE event_stream_sessions SET last_seen_ms = COALESCE(closed_ms, opened_ms);
   DELETE FROM event_stream_results r USING event_stream_results k
     WHERE r.session_id = k.session_id AND r.event_id = k.event_id AND COALESCE(r.route, '') = COALESCE(k.route, '') AND r.id < k.id;
   CREATE UNIQUE INDEX event_stream_results_once ON event_stream_results (session_id, event_id, (COALESCE(route, '')));
   CREATE INDEX event_stream_results_at ON event_stream_results (at_ms);`,
];

/** A position: `<xid>:<seq>` (the reader continues after it). */
const parse = (cursor: string): [string, number] => {
  const [x, s] = cursor.split(':');
  return [x ?? '0', Number(s ?? 0)];
};

type Row = { seq: number; xid: string; id: string; type: string; created_at: string; body: string };

/**
 * Events of `scope` after `cursor`, in commit-safe order: only transactions below the oldest
 * running one (xmin), so nothing can later commit behind the returned position.
 */
async function readAfter(sql: Sql, scope: string, cursor: string, limit: number): Promise<{ events: LoggedEvent[]; cursor: string; pending: boolean }> {
  const [x, s] = parse(cursor);
  const [snap] = await sql<{ xmin: string }[]>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`;
  // One xmin for both statements: an older transaction ending between them would otherwise
  // leave an event neither read nor reported pending (found by bench/listen-remote.mjs).
  const xmin = snap!.xmin;
  const rows = await sql<Row[]>`
    SELECT seq, xid::text AS xid, id, type, created_at, body FROM event_log
    WHERE scope = ${scope} AND (xid, seq) > (${x}::xid8, ${s}::bigint) AND xid < ${xmin}::xid8
    ORDER BY xid, seq LIMIT ${limit}`;
  const events = rows.map((r): LoggedEvent => ({ id: r.id, type: r.type, created_at: r.created_at, body: r.body, cursor: `${r.xid}:${r.seq}` }));
  const next = events.length ? events[events.length - 1]!.cursor : cursor;
  if (events.length === limit) return { events, cursor: next, pending: true };
  const [p] = await sql<{ p: boolean }[]>`SELECT EXISTS (SELECT 1 FROM event_log WHERE scope = ${scope} AND xid >= ${xmin}::xid8) AS p`;
  return { events, cursor: next, pending: p!.p };
}

export function postgresEventStream(sql: Sql, listeners: Set<(scope: string) => void>): EventStreamStore {
  return {
    keepScope: async (scope, untilMs) => {
      await sql`INSERT INTO event_stream_scopes (scope, until_ms) VALUES (${scope}, ${untilMs})
        ON CONFLICT (scope) DO UPDATE SET until_ms = GREATEST(event_stream_scopes.until_ms, excluded.until_ms)`;
    },
    // Everything below xmin has ended: a new stream starts there, so a transaction still running
    // when the stream opened is read once it commits.
    tail: async () => {
      const [r] = await sql<{ x: string }[]>`SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::numeric - 1)::text AS x`;
      return `${r!.x}:${Number.MAX_SAFE_INTEGER}`;
    },
    head: () => '0:0',
    locate: async (scope, id) => {
      const [r] = await sql<{ xid: string; seq: number }[]>`SELECT xid::text AS xid, seq FROM event_log WHERE scope = ${scope} AND id = ${id}`;
      return r ? `${r.xid}:${r.seq}` : undefined;
    },
    oldest: async (scope) => {
      const [r] = await sql<{ id: string }[]>`SELECT id FROM event_log WHERE scope = ${scope} ORDER BY xid, seq LIMIT 1`;
      return r?.id;
    },
    after: (scope, cursor, limit) => readAfter(sql, scope, cursor, limit),
    purge: async (beforeMs) => {
      await sql`DELETE FROM event_log WHERE logged_at < ${beforeMs}`;
      await sql`DELETE FROM event_stream_scopes WHERE until_ms < ${beforeMs}`;
      // A session ends when closed, or (its process killed) when last seen.
      await sql`DELETE FROM event_stream_results WHERE at_ms < ${beforeMs} OR session_id IN (
        SELECT id FROM event_stream_sessions WHERE COALESCE(closed_ms, last_seen_ms, opened_ms) < ${beforeMs})`;
      await sql`DELETE FROM event_stream_sessions WHERE COALESCE(closed_ms, last_seen_ms, opened_ms) < ${beforeMs}`;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ...streamSessions(sql),
  };
}

type SessionPart = Pick<EventStreamStore, 'openSession' | 'touchSession' | 'closeSession' | 'addResult' | 'listSessions'>;

/** The streams' sessions and what their apps answered (the report-back bounds: EventStreamStore.addResult). */
function streamSessions(sql: Sql): SessionPart {
  return {
    openSession: async (o) => {
      await sql`INSERT INTO event_stream_sessions (id, scope, events, opened_ms, last_seen_ms)
        VALUES (${o.id}, ${o.scope}, ${JSON.stringify(o.events)}::text::jsonb, ${o.openedMs}, ${o.openedMs})`;
    },
    touchSession: async (id, seenMs) => {
      await sql`UPDATE event_stream_sessions SET last_seen_ms = GREATEST(last_seen_ms, ${seenMs}) WHERE id = ${id} AND closed_ms IS NULL`;
    },
    closeSession: async (id, closedMs) => {
      await sql`UPDATE event_stream_sessions SET closed_ms = ${closedMs}, last_seen_ms = ${closedMs} WHERE id = ${id} AND closed_ms IS NULL`;
    },
    addResult: (scope, sessionId, r, atMs, maxRoutes) =>
      sql.begin(async (tx): Promise<AddResultOutcome> => {
        // The session's row lock: one result of a session at a time, so the route count holds.
        const [session] = await tx<{ events: string[] }[]>`SELECT events FROM event_stream_sessions WHERE id = ${sessionId} AND scope = ${scope} FOR UPDATE`;
        if (!session) return 'no_session';
        const [ev] = await tx<{ type: string }[]>`SELECT type FROM event_log WHERE scope = ${scope} AND id = ${r.event_id} LIMIT 1`;
        if (!ev || !session.events.includes(ev.type)) return 'no_event';
        const route = r.route ?? '';
        const [seen] = await tx<{ is_repeat: boolean; known_route: boolean; routes: number }[]>`SELECT
          EXISTS (SELECT 1 FROM event_stream_results WHERE session_id = ${sessionId} AND event_id = ${r.event_id} AND COALESCE(route, '') = ${route}) AS is_repeat,
          EXISTS (SELECT 1 FROM event_stream_results WHERE session_id = ${sessionId} AND COALESCE(route, '') = ${route}) AS known_route,
          (SELECT COUNT(DISTINCT COALESCE(route, ''))::int FROM event_stream_results WHERE session_id = ${sessionId}) AS routes`;
        if (seen!.is_repeat) return 'repeat';
        if (!seen!.known_route && seen!.routes >= maxRoutes) return 'too_many_routes';
        const inserted = await tx`INSERT INTO event_stream_results (session_id, event_id, route, status, latency_ms, error, at_ms)
          VALUES (${sessionId}, ${r.event_id}, ${r.route}, ${r.status}, ${r.latency_ms}, ${r.error}, ${atMs}) ON CONFLICT DO NOTHING`;
        return inserted.count === 1 ? 'stored' : 'repeat';
      }) as Promise<AddResultOutcome>,
    listSessions: async (scope, limit, results) => {
      const rows = await sql<Array<{ id: string; events: string; opened_ms: number; closed_ms: number | null; seen_ms: number }>>`
        SELECT id, events::text AS events, opened_ms, closed_ms, COALESCE(last_seen_ms, closed_ms, opened_ms) AS seen_ms
        FROM event_stream_sessions WHERE scope = ${scope}
        ORDER BY opened_ms DESC, id DESC LIMIT ${limit}`;
      const res = await sql<Array<{ session_id: string; event_id: string; route: string | null; status: number | null; latency_ms: number | null; error: string | null; at_ms: number }>>`
        SELECT r.session_id, r.event_id, r.route, r.status, r.latency_ms, r.error, r.at_ms FROM unnest(${rows.map((r) => r.id)}::text[]) AS s(id)
        CROSS JOIN LATERAL (SELECT * FROM event_stream_results x WHERE x.session_id = s.id ORDER BY x.id DESC LIMIT ${results}) r
        ORDER BY r.id DESC`;
      return rows.map((r): StreamSession => ({
        session_id: r.id,
        opened_at: new Date(Number(r.opened_ms)).toISOString(),
        closed_at: r.closed_ms === null ? null : new Date(Number(r.closed_ms)).toISOString(),
        last_seen_at: new Date(Number(r.seen_ms)).toISOString(),
        events: JSON.parse(r.events) as string[],
        environment: scope.slice(scope.lastIndexOf('/') + 1),
        results: res.filter((x) => x.session_id === r.id).map(({ session_id: _s, at_ms, ...x }) => ({ ...x, at: new Date(Number(at_ms)).toISOString() })),
      }));
    },
  };
}
