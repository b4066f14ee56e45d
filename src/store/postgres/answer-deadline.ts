/**
 * A deadline on the database's answers (issue 28: a network cut). A PostgreSQL server that stops
 * answering without closing the connection — a partition, a host that froze, a firewall that
 * drops packets — leaves a query waiting for as long as TCP retransmits, which is many minutes,
 * and every request behind it waits as long. TCP keepalive does not help while bytes are unacked
 * (and Node cannot set TCP_USER_TIMEOUT). So each connection is watched: while it has a query out
 * (the driver says so, see driver.ts) and no byte has come from the server for the deadline, the
 * socket is destroyed with an ETIMEDOUT error. The driver then rejects the queries on it (the
 * request is answered 503 `UNAVAILABLE`, "the database does not answer") and connects it again
 * for the next query (its reconnect backoff).
 *
 * Losing the answer is the same case as a connection reset, already handled: a COMMIT whose reply
 * never came may have landed, the request is answered 503, and its retry with the same
 * Idempotency-Key replays the stored answer instead of charging again.
 */
import type { Socket } from 'node:net';

/** What the watcher needs of the clock and timers (a fake clock in tests). */
export interface DeadlineTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): { unref?(): unknown };
  clearTimeout(t: unknown): void;
}

const realTimers: DeadlineTimers = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
};

/** The error a connection is destroyed with: ETIMEDOUT, which the store reports as "the database does not answer". */
export function answerTimedOut(deadlineMs: number): Error {
  return Object.assign(new Error(`the database sent nothing for ${deadlineMs / 1000} s while a query waited`), { code: 'ETIMEDOUT' });
}

/** How often a connection is looked at while no deadline is set (one may be set later). */
const UNSET_TICK_MS = 1_000;

/**
 * Watches one connection's socket: destroyed once `busy()` has been true and nothing was read for
 * the deadline. Checked every fifth of the deadline, so it fires between 0.8 and 1.2 deadlines
 * after the last byte (or after the query went out on an idle connection). Stops when the socket
 * closes. The deadline is read at each check (`deadline()`; undefined: none now), so a
 * connection made while none was set — the one that ran the migrations at start-up — is bounded
 * once one is.
 */
export function watchAnswers(
  socket: Pick<Socket, 'on' | 'once' | 'destroy' | 'destroyed'>,
  busy: () => boolean,
  deadline: number | (() => number | undefined),
  timers: DeadlineTimers = realTimers,
): void {
  const current = typeof deadline === 'function' ? deadline : () => deadline;
  let lastProgress = timers.now();
  let timer: unknown;
  let done = false;
  const check = (): void => {
    timer = undefined;
    if (done || socket.destroyed) return;
    const now = timers.now();
    const deadlineMs = current();
    if (!busy() || deadlineMs === undefined) lastProgress = now;
    else if (now - lastProgress >= deadlineMs) {
      done = true;
      socket.destroy(answerTimedOut(deadlineMs));
      return;
    }
    arm();
  };
  const arm = (): void => {
    const ms = current();
    const t = timers.setTimeout(check, ms === undefined ? UNSET_TICK_MS : Math.max(1, Math.floor(ms / 5)));
    t.unref?.();
    timer = t;
  };
  socket.on('data', () => {
    lastProgress = timers.now();
  });
  socket.once('close', () => {
    done = true;
    if (timer !== undefined) timers.clearTimeout(timer);
  });
  arm();
}
