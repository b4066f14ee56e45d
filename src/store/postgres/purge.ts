/**
 * Purging what no request can use any more: stale idempotency records and expired quota holds,
 * from this process, at most hourly, in batches that never hold locks for long.
 */
import type { Sql } from 'postgres';
import { IDEMPOTENCY_TTL_MS } from '../../domain/idempotency.js';

/** How often one process purges stale idempotency records and expired quota holds (as SQLite does). */
export const PURGE_INTERVAL_MS = 3_600_000;
/** Rows one purge statement deletes at most: each statement is its own short transaction. */
export const PURGE_BATCH = 1_000;
/**
 * Statements one purge run sends at most per table (20,000 rows of each; 40 statements in all). A run is awaited by flush(),
 * which graceful shutdown calls: a backlog of millions (a database that never purged) must not
 * hold a SIGTERM past its grace period. A run that reaches the cap lets the next one start
 * PURGE_AGAIN_MS later instead of an hour later, so a backlog still drains (≈ 7 million rows an
 * hour) while no single run is long.
 */
const PURGE_MAX_STATEMENTS = 20;
const PURGE_AGAIN_MS = 10_000;
/** A purge run that failed is tried again this much later, doubling per failure up to the hour. */
const PURGE_RETRY_MS = 60_000;
/**
 * Records are purged this much later than the TTL: the cutoff comes from the purging process's
 * clock but applies to every process's records, and a process whose clock ran ahead must not
 * delete a record that another process would still replay.
 */
const PURGE_CLOCK_MARGIN_MS = 10 * 60_000;

/**
 * Idempotency records no request can use any more, at most PURGE_BATCH per statement ($1 = now −
 * TTL, the store's clock, as the records' times are written): completed ones older than the TTL
 * (idempotencyBegin no longer replays them) and `running` ones whose lease ran out more than the
 * TTL ago (their process died long ago; a request still alive would re-insert its record at commit
 * anyway). Rows another transaction holds (a commit or a takeover right now) are skipped, never
 * waited for; the conditions are asked again on the row deleted.
 */
const PURGE_IDEMPOTENCY = `
  WITH doomed AS (
    SELECT account_id, key FROM idempotency
    WHERE created_at < $1 AND (state = 'completed' OR lease_until < $1)
    LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)
  DELETE FROM idempotency i USING doomed d
  WHERE i.account_id = d.account_id AND i.key = d.key AND i.created_at < $1 AND (i.state = 'completed' OR i.lease_until < $1)`;

/**
 * Quota holds past their expiry (left by a process killed mid-request; no hold query counts them),
 * by the database's clock as they are written and read. A seq scan is fine: the table holds only
 * running requests' holds once purged.
 */
const PURGE_HOLDS = `
  DELETE FROM quota_holds WHERE id IN (
    SELECT id FROM quota_holds WHERE expires_at < clock_timestamp() LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`;

export class Purger {
  /** The request time (the store's clock) of this process's last purge (maybePurge). */
  private lastPurge = 0;
  private purging = false;
  /** Purge runs in a row that failed (the retry backs off). */
  private purgeFailures = 0;

  constructor(
    private readonly sql: Sql,
    private readonly isClosed: () => boolean,
    /** Runs a promise in the background, tracked for flush() (errors reported). */
    private readonly background: (p: Promise<unknown>) => void,
    private readonly report: (err: unknown) => void,
  ) {}

  /**
   * Deletes stale idempotency records and expired quota holds, at most once per PURGE_INTERVAL_MS
   * per process, in the background (errors go to onBackgroundError; the request that started it
   * never waits for it and never fails by it). Driven from the two request paths that create these
   * rows (idempotencyBegin, holdQuota) — the same once-an-hour rule as SQLite's saveIdempotency —
   * rather than a timer: the records' times are the request's clock (the server's injected one),
   * which a timer in the store would not have, the purge happens where rows pile up (a process
   * that takes no such requests has nothing to purge; any serving process cleans up after a
   * killed one), and a store opened for an admin command starts nothing. On the pool, never on
   * the request guard's or commit batches' connections; one batch of PURGE_BATCH rows per
   * statement until a statement finds fewer, so no purge holds locks for long, and at most
   * PURGE_MAX_STATEMENTS per table in one run (purge()).
   */
  maybePurge(nowMs: number): void {
    if (this.purging || this.isClosed() || nowMs - this.lastPurge < PURGE_INTERVAL_MS) return;
    this.lastPurge = nowMs;
    this.purging = true;
    this.background(this.purge(nowMs).finally(() => (this.purging = false)));
  }

  private async purge(nowMs: number): Promise<void> {
    const started = performance.now();
    const cutoff = nowMs - IDEMPOTENCY_TTL_MS - PURGE_CLOCK_MARGIN_MS;
    let capped = false;
    let failed = false;
    // Each table on its own: a failing idempotency purge (reported) does not stop the holds'.
    for (const [statement, params] of [
      [PURGE_IDEMPOTENCY, [cutoff]],
      [PURGE_HOLDS, []],
    ] as const) {
      try {
        for (let n = 0; ; n++) {
          if (this.isClosed()) return;
          if (n === PURGE_MAX_STATEMENTS) {
            capped = true;
            break;
          }
          const r = await this.sql.unsafe(statement, params as unknown as never[]);
          if (r.count < PURGE_BATCH) break;
        }
      } catch (err) {
        failed = true;
        this.report(err);
      }
    }
    // A failed run (the database away) is tried again sooner than the hour, backing off: 1, 2, 4 …
    // minutes, up to the hour, counted from the request that started it.
    this.purgeFailures = failed ? this.purgeFailures + 1 : 0;
    if (failed) this.lastPurge = nowMs - PURGE_INTERVAL_MS + Math.min(PURGE_INTERVAL_MS, PURGE_RETRY_MS * 2 ** (this.purgeFailures - 1));
    // More is left: a request PURGE_AGAIN_MS after this run ENDED continues (counted from the end,
    // so a slow run on a busy database is not followed at once by the next).
    else if (capped) this.lastPurge = nowMs + (performance.now() - started) - PURGE_INTERVAL_MS + PURGE_AGAIN_MS;
  }
}
