/**
 * The outbox on SQLite: events' deliveries written in the charge's transaction (writeOutbox, via
 * enqueueEvent in webhooks.ts) and the worker's side — due deliveries, a claim with a lease, the
 * attempt recorded, claims given back. One process, so claims are serialised by SQLite's
 * synchronous transactions and the worker is woken in-process (subscribe).
 */
import type { Database } from '../local/database.js';
import { MAX_ATTEMPTS } from '../../domain/delivery-schedule.js';
import type { AttemptOutcome, Claim, OutboxEntry, OutboxStore } from '../ports/index.js';
import { enqueueEvent, markThreshold } from './webhooks.js';
import { logForStreams } from './event-log.js';

/** Writes the outbox entries on `db` (inside the caller's transaction); returns how many deliveries were queued. */
export function writeOutbox(db: Database, entries: readonly OutboxEntry[], nowMs: number): number {
  let queued = 0;
  for (const e of entries) {
    if (e.once && !markThreshold(db, e.scope, e.once.period, e.once.threshold)) continue;
    queued += enqueueEvent(db, e.scope, e.event, nowMs).length;
    // Beside the endpoints' deliveries, never instead of them: a stream changes nothing they receive.
    logForStreams(db, e.scope, e.event, nowMs);
  }
  return queued;
}

export interface DueDelivery {
  id: number;
  event_id: string;
  webhook_id: string;
  url: string;
}

/**
 * Due deliveries, at most `perEndpoint` per endpoint URL (earliest first), so one busy endpoint
 * cannot crowd the others out of a poll. Includes claims whose lease has expired (a worker died).
 * Index-only: the endpoints with due work first (one probe each), then a bounded range per endpoint.
 */
export function dueDeliveries(db: Database, nowMs: number, perEndpoint: number): DueDelivery[] {
  // One index probe per active endpoint (cheaper than collecting thousands of due rows).
  const hooks = db
    .prepare(
      `SELECT w.id, w.url FROM webhook_endpoints w WHERE w.deleted_at IS NULL AND EXISTS (
         SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= ?)`,
    )
    .all(nowMs) as Array<{ id: string; url: string }>;
  const perHook = db.prepare(
    `SELECT id, event_id, webhook_id FROM webhook_deliveries
     WHERE webhook_id = ? AND status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?`,
  );
  const byUrl = new Map<string, DueDelivery[]>();
  for (const h of hooks) {
    const list = byUrl.get(h.url) ?? [];
    if (list.length >= perEndpoint) continue;
    for (const r of perHook.all(h.id, nowMs, perEndpoint - list.length) as Array<Omit<DueDelivery, 'url'>>) list.push({ ...r, url: h.url });
    byUrl.set(h.url, list);
  }
  const expired = db
    .prepare(
      `SELECT d.id, d.event_id, d.webhook_id, w.url FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_id
       WHERE d.status = 'delivering' AND d.lease_until <= ? LIMIT 1000`,
    )
    .all(nowMs) as DueDelivery[];
  return [...expired, ...[...byUrl.values()].flat()];
}

/** When the next delivery becomes due (a pending retry, or an expiring lease), if any. */
export function nextDueAt(db: Database): number | undefined {
  const pending = db.prepare("SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'").pluck().get() as number | null;
  const lease = db.prepare("SELECT MIN(lease_until) FROM webhook_deliveries WHERE status = 'delivering'").pluck().get() as number | null;
  const t = Math.min(pending ?? Infinity, lease ?? Infinity);
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Atomically takes a due delivery for one attempt, with a lease. A delivery whose previous
 * claim's lease expired had its attempt lost (the worker died): that attempt is logged as `lost`
 * and counts, and the event goes out again with the same id. Returns undefined when another
 * worker took it first, it is no longer due, or it has used all its attempts.
 */
export function claimDelivery(db: Database, id: number, nowMs: number, leaseMs: number): Claim | undefined {
  return db.transaction((): Claim | undefined => {
    const d = db
      .prepare(
        `SELECT d.id, d.event_id, d.webhook_id, d.status, d.attempts, d.lease_until, d.replay, e.type AS event_type, e.body, w.url, w.secret
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.webhook_id
         WHERE d.id = @id AND ((d.status = 'pending' AND d.next_attempt_at <= @now) OR (d.status = 'delivering' AND d.lease_until <= @now))`,
      )
      .get({ id, now: nowMs }) as
      | { id: number; event_id: string; webhook_id: string; status: string; attempts: number; lease_until: number | null; replay: number; event_type: string; body: string; url: string; secret: string }
      | undefined;
    if (!d) return undefined;
    if (d.status === 'delivering') {
      db.prepare(
        "INSERT INTO webhook_attempts (delivery_id, event_id, webhook_id, attempt, started_at, outcome, error) VALUES (?, ?, ?, ?, ?, 'lost', ?)",
      ).run(d.id, d.event_id, d.webhook_id, d.attempts, (d.lease_until ?? nowMs) - leaseMs, 'the worker stopped mid-delivery; outcome unknown, sending again');
      if (d.attempts >= MAX_ATTEMPTS) {
        db.prepare("UPDATE webhook_deliveries SET status = 'failed', lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ?").run(
          'the last attempt was lost when the worker stopped',
          nowMs,
          d.id,
        );
        return undefined;
      }
    }
    const attempt = d.attempts + 1;
    db.prepare("UPDATE webhook_deliveries SET status = 'delivering', attempts = ?, lease_until = ?, updated_at = ? WHERE id = ?").run(
      attempt,
      nowMs + leaseMs,
      nowMs,
      d.id,
    );
    return { id: d.id, event_id: d.event_id, event_type: d.event_type, webhook_id: d.webhook_id, url: d.url, secret: d.secret, body: d.body, attempt, replay: d.replay === 1 };
  })();
}

/** Logs an attempt and moves the delivery on: delivered, pending again, or failed (kept for replay). */
export function recordAttempt(db: Database, claim: Claim, o: AttemptOutcome): void {
  db.transaction(() => {
    db.prepare(
      'INSERT INTO webhook_attempts (delivery_id, event_id, webhook_id, attempt, started_at, outcome, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(claim.id, claim.event_id, claim.webhook_id, claim.attempt, o.startedAt, o.ok ? 'delivered' : 'failed', o.statusCode, o.finishedAt - o.startedAt, o.error);
    // Only the holder of the current claim may move the row (a replay may have reset it meanwhile).
    const status = o.ok ? 'delivered' : o.nextAt === undefined ? 'failed' : 'pending';
    db.prepare(
      `UPDATE webhook_deliveries SET status = ?, next_attempt_at = COALESCE(?, next_attempt_at), lease_until = NULL, last_error = ?, updated_at = ?
       WHERE id = ? AND status = 'delivering' AND attempts = ?`,
    ).run(status, o.nextAt ?? null, o.error, o.finishedAt, claim.id, claim.attempt);
  })();
}

/** For tests and `deliver`: how many deliveries are still to be attempted. */
export function outstandingCount(db: Database): number {
  return (db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'delivering')").get() as { n: number }).n;
}

/** The outbox on a SQLite connection (also used alone by `verity webhooks deliver` in embedded mode). */
export function sqliteOutbox(db: Database, listeners: Set<() => void> = new Set()): OutboxStore {
  const release = db.prepare(
    "UPDATE webhook_deliveries SET status = 'pending', attempts = attempts - 1, lease_until = NULL, next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'delivering' AND attempts = ?",
  );
  return {
    shared: false,
    due: async (nowMs, perEndpoint) => dueDeliveries(db, nowMs, perEndpoint),
    nextDueAt: async () => nextDueAt(db),
    claim: async (id, nowMs, leaseMs) => claimDelivery(db, id, nowMs, leaseMs),
    recordAttempt: async (claim: Claim, outcome) => recordAttempt(db, claim, outcome),
    release: async (claims, nowMs) => {
      db.transaction(() => {
        for (const c of claims) release.run(nowMs, nowMs, c.id, c.attempt);
      })();
    },
    outstanding: async () => outstandingCount(db),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
