/**
 * PostgreSQL connections for the server store: which errors mean the database is away (and which
 * close the connection), the connect and reconnect timing, the plan-cache mode of the hot-path
 * connections, a URL safe to print, and a reservation that cannot hang.
 */
import type { ReservedSql, Sql } from 'postgres';
import { VerityError } from '../../api/errors.js';

/** PostgreSQL / driver errors that mean "the store is unavailable", with a short cause. */
const PG_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'the database refuses connections',
  ECONNRESET: 'the database connection was reset',
  EPIPE: 'the database connection was reset',
  ECONNABORTED: 'the database connection was reset',
  EHOSTUNREACH: 'the database host is unreachable',
  ENETUNREACH: 'the database host is unreachable',
  EAI_AGAIN: 'the database host is not found',
  ETIMEDOUT: 'the database does not answer',
  ENOTFOUND: 'the database host is not found',
  CONNECT_TIMEOUT: 'the database does not answer',
  CONNECTION_CLOSED: 'the database connection closed',
  CONNECTION_ENDED: 'the database connection ended',
  CONNECTION_DESTROYED: 'the database connection was destroyed',
  '57P01': 'the database is shutting down',
  '57P02': 'the database is restarting',
  '57P03': 'the database is starting up',
  '53300': 'the database has too many connections',
  '53100': 'the database disk is full',
  '25006': 'the database is read-only',
  '40001': 'a serialization conflict',
  '40P01': 'a deadlock',
};

/**
 * Errors after which the connection is closed or closing: the driver's own, the socket's, the
 * server ending the session (57P0x, class 08). Not a deadlock or a full disk: the session lives.
 */
export function connectionGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return (
    code.startsWith('08') ||
    ['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', '57P01', '57P02', '57P03'].includes(code)
  );
}

export function postgresFaultCause(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  // Class 08: connection exceptions.
  if (code.startsWith('08')) return 'the database connection failed';
  return PG_CAUSES[code];
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db` (never a password in output). */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

export interface PostgresStoreOptions {
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Apply missing migrations on open (default true; `verity admin migrate` applies them alone). */
  migrate?: boolean;
  onBackgroundError?: (err: unknown) => void;
  /** LISTEN for outbox announcements (default true; off for admin commands). */
  listen?: boolean;
  /**
   * The answer deadline (ms; ./answer-deadline.ts): a connection with a query out that receives
   * nothing for this long is destroyed, its queries failed as "the database does not answer".
   * `serve` and `worker` set it (--db-answer-timeout-ms); admin commands do not.
   */
  answerTimeoutMs?: number;
}

/**
 * How long a connection attempt may take (seconds). While the database is away, requests wait at
 * most this long for a connection before they are answered 503 (issue 28: "a few seconds"); a
 * server on the same network answers a connect in milliseconds, so a slow one is down, not busy.
 */
export const CONNECT_TIMEOUT_S = 5;

/**
 * The driver's wait before it reconnects a connection (seconds; its `backoff` option, by attempts
 * failed in a row): 25, 50, 100 … ms, at most 1 s, with jitter. The driver's own grows to 10–20 s
 * after eight failed attempts, and a query waits for that reconnect: after a restart of a few
 * seconds, requests waited up to 20 s and a process kept failing long after the database was back.
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(1, 0.025 * 2 ** Math.max(0, retries - 1)) * (0.5 + Math.random() / 2);
}

/** How long a commit batch waits for its connection (see reserveCommits): a connect's bound and a second. */
const RESERVE_TIMEOUT_MS = (CONNECT_TIMEOUT_S + 1) * 1000;

/**
 * TCP keepalive on every connection (seconds idle before the first probe; the driver's default is
 * 60): a connection that sits idle (LISTEN's, a pool's spare) across a network cut is found dead
 * by the kernel sooner. A connection with a query out is bounded by the answer deadline instead.
 */
export const KEEP_ALIVE_S = 10;

/** How long /healthz waits for each connection's `SELECT 1` before it reports the database down. */
export const HEALTH_TIMEOUT_MS = 3_000;

export function openError(err: unknown, url: string): VerityError {
  const cause = postgresFaultCause(err) ?? (err as Error)?.message ?? String(err);
  return new VerityError('UNAVAILABLE', `Cannot use the PostgreSQL database ${redactDatabaseUrl(url)}: ${cause}`, { cause: err });
}

/**
 * The hot-path connections' plan cache mode: a prepared statement is planned once, not on every
 * call. Left to choose, PostgreSQL re-planned COMMIT_ONE on every execution (the generic plan's
 * estimate, made without the arrays' lengths, looked dearer than the custom plans): 230–340 µs of
 * planning per commit batch against 84–195 µs of execution (pg_stat_statements.track_planning);
 * and ADMIT whenever its batches were small (3 processes: 165 µs per call; one process's batches
 * of ~28 keys got the generic plan). A cost per statement, so it grew with the statements per
 * request — with the processes. The generic plans are the custom ones (index probes per row;
 * EXPLAIN ANALYZE, docs/server.md).
 */
export const GENERIC_PLANS = 'force_generic_plan';

/**
 * The commit connection, reserved within RESERVE_TIMEOUT_MS. The driver can lose a reserve() whose
 * connect is cut twice (a restart just then: it is taken off the pool's queue for the second
 * attempt and dropped once the connection reads its types), and a reserve that never resolves
 * would hold this process's commit batches — every charged request — for ever. Late, it is
 * answered as a database that does not answer (503), and a connection that still comes is
 * released.
 */
export async function reserveWithin(commits: Sql): Promise<ReservedSql> {
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const reserving = commits.reserve();
  try {
    return await Promise.race([
      reserving,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          late = true;
          reject(Object.assign(new Error('no database connection for the commit within the connect timeout'), { code: 'CONNECT_TIMEOUT' }));
        }, RESERVE_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (late) void reserving.then((c) => c.release(), () => undefined);
  }
}

