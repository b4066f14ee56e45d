/**
 * The event stream's storage (issue 29, docs/webhooks.md "Event stream"): an ordered log of the
 * events of scopes that have streams, the streams' sessions and what the listening apps answered.
 *
 * Positions in the log are opaque strings (`cursor`): each store orders the log its own way so
 * that an event committed after a reader passed a position can never land behind it (SQLite: the
 * rowid, in commit order with one writer; PostgreSQL: the writer's transaction id and a sequence,
 * read only below the oldest running transaction — src/store/postgres/event-log.ts).
 */

/** One logged event, as the stream sends it: the exact body a delivery would POST. */
export interface LoggedEvent {
  id: string;
  type: string;
  created_at: string;
  body: string;
  /** The event's position: a reader that sent it continues after this. */
  cursor: string;
}

/** What the local app answered to one event (`POST /v1/events/stream/sessions/{id}/results`). */
export interface StreamResultInput {
  event_id: string;
  route: string | null;
  status: number | null;
  latency_ms: number | null;
  error: string | null;
}

export interface StreamResult extends StreamResultInput {
  at: string;
}

export interface StreamSession {
  session_id: string;
  opened_at: string;
  closed_at: string | null;
  /** When the serve process holding the stream last renewed it (or closed it). */
  last_seen_at: string;
  events: string[];
  environment: string;
  results: StreamResult[];
}

/**
 * What became of a result: `stored`; `repeat` (that session, event and route were already
 * stored: nothing written); `no_session` (not a session of the scope); `no_event` (the event is not
 * in the scope's log — unknown, another account's or environment's, past retention — or of a type
 * the session does not take); `too_many_routes` (a new route past the session's bound).
 */
export type AddResultOutcome = 'stored' | 'repeat' | 'no_session' | 'no_event' | 'too_many_routes';

export interface EventStreamStore {
  /**
   * Marks `scope` as streamed until `untilMs`: its events are logged (by the outbox writes, in the
   * commit of the event) until then. Streams renew it while they are open.
   */
  keepScope(scope: string, untilMs: number): Promise<void>;
  /** The log's position now: a new stream starts here (events committed after it come after it). */
  tail(): Promise<string>;
  /** The position before every retained event. */
  head(): string;
  /** An event's position in the scope's log; undefined when it is not (or no longer) logged. */
  locate(scope: string, eventId: string): Promise<string | undefined>;
  /** The scope's oldest retained event, if any. */
  oldest(scope: string): Promise<string | undefined>;
  /**
   * The scope's logged events after `cursor`, oldest first, at most `limit`; `cursor` is where to
   * read next. `pending`: events may still commit right behind (read again shortly).
   */
  after(scope: string, cursor: string, limit: number): Promise<{ events: LoggedEvent[]; cursor: string; pending: boolean }>;
  /**
   * Deletes what is older than `beforeMs`: logged events, scopes no stream renewed, sessions closed
   * (or last seen) before it, and results stored before it (their events are past retention too).
   */
  purge(beforeMs: number): Promise<void>;
  /** `listener(scope)` when events of a scope were logged (this process's commits, or another's NOTIFY). */
  subscribe(listener: (scope: string) => void): () => void;

  openSession(s: { id: string; scope: string; events: readonly string[]; openedMs: number }): Promise<void>;
  /** The stream is still held (its process renews it with the scope): a session not seen for long was lost. */
  touchSession(id: string, seenMs: number): Promise<void>;
  closeSession(id: string, closedMs: number): Promise<void>;
  /**
   * Stores one result, at most once per (session, event, route): only for an event of the scope's
   * log that the session's filter takes, and for at most `maxRoutes` different routes per session
   * (null is one route). So a session's results are bounded by the events streamed × its routes,
   * and a repeat writes nothing. Results leave with their session, or when older than the purge.
   */
  addResult(scope: string, sessionId: string, r: StreamResultInput, atMs: number, maxRoutes: number): Promise<AddResultOutcome>;
  /** The scope's latest sessions, newest first, each with its latest `results` results. */
  listSessions(scope: string, limit: number, results: number): Promise<StreamSession[]>;
}
