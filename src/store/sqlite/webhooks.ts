/**
 * The webhook tables in the store: endpoints (registrations), the event outbox, one delivery row
 * per (event, endpoint), and the attempt log. All functions are synchronous better-sqlite3 calls
 * on a Database the caller owns, so the server can write the outbox inside the same transaction
 * that records the result and the usage (at-least-once: durable before the response leaves).
 *
 * Times are integer milliseconds since the epoch, from the caller's clock.
 */
import { VerityError } from '../../api/errors.js';
import { webhookId } from '../../api/ids.js';
import { WebhookConfig, type EventEnvelope, type EventType, type Webhook } from '../../api/webhooks.js';
import type BetterSqlite3 from 'better-sqlite3';
import { migrate, type Database } from '../local/database.js';
import type { AttemptRecord, DeliveryState } from '../ports/index.js';
import { MAX_ATTEMPTS } from '../../domain/delivery-schedule.js';

export type { AttemptRecord, DeliveryState };
import { generateSecretValue } from '../../domain/webhook-secret.js';
import { envelope, sampleData } from '../../domain/events.js';

export const EMBEDDED_ACCOUNT = 'local';

const MIGRATIONS = [
  `CREATE TABLE webhook_endpoints (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     url TEXT NOT NULL,
     events TEXT NOT NULL,
     secret TEXT NOT NULL,
     created_at TEXT NOT NULL,
     deleted_at TEXT
   );
   CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id) WHERE deleted_at IS NULL;
   CREATE TABLE webhook_events (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     type TEXT NOT NULL,
     created_at TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE TABLE webhook_deliveries (
     id INTEGER PRIMARY KEY,
     event_id TEXT NOT NULL REFERENCES webhook_events (id),
     webhook_id TEXT NOT NULL REFERENCES webhook_endpoints (id),
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'cancelled')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     lease_until INTEGER,
     last_error TEXT,
     updated_at INTEGER NOT NULL,
     UNIQUE (event_id, webhook_id)
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
   CREATE TABLE webhook_attempts (
     id INTEGER PRIMARY KEY,
     delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id),
     event_id TEXT NOT NULL,
     webhook_id TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     started_at INTEGER NOT NULL,
     outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'lost')),
     status_code INTEGER,
     latency_ms INTEGER,
     error TEXT
   );
   CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
   CREATE TABLE webhook_credit_thresholds (
     account_id TEXT NOT NULL,
     period TEXT NOT NULL,
     threshold INTEGER NOT NULL,
     PRIMARY KEY (account_id, period, threshold)
   );`,
  // The worker's per-endpoint look-ups (dueDeliveries) and the next-due probe stay index-only.
  `CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, status, next_attempt_at);
   CREATE INDEX webhook_deliveries_leases ON webhook_deliveries (status, lease_until);`,
  // Deliveries made by a replay carry the replay header (src/domain/signature.ts).
  `ALTER TABLE webhook_deliveries ADD COLUMN replay INTEGER NOT NULL DEFAULT 0;`,
];

export function ensureWebhookSchema(db: Database): void {
  migrate(db, 'webhooks', MIGRATIONS);
}

export const generateSecret = generateSecretValue;

import { toWebhook, type EndpointRow } from '../ports/rows.js';
export { toWebhook, type EndpointRow };

export function createWebhook(db: Database, accountId: string, input: unknown, now: Date): Webhook {
  const cfg = WebhookConfig.parse(input);
  const events = [...new Set(cfg.events)];
  const row: EndpointRow = {
    id: webhookId(),
    account_id: accountId,
    url: cfg.url,
    events: JSON.stringify(events),
    secret: cfg.secret ?? generateSecret(),
    created_at: now.toISOString(),
  };
  db.prepare(
    'INSERT INTO webhook_endpoints (id, account_id, url, events, secret, created_at) VALUES (@id, @account_id, @url, @events, @secret, @created_at)',
  ).run(row);
  return toWebhook(row, true);
}

function endpointRow(db: Database, accountId: string, id: string): EndpointRow {
  const r = db
    .prepare('SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ? AND deleted_at IS NULL')
    .get(id, accountId) as EndpointRow | undefined;
  if (!r) throw new VerityError('NOT_FOUND', `No webhook ${id}`);
  return r;
}

export function getWebhook(db: Database, accountId: string, id: string): Webhook {
  return toWebhook(endpointRow(db, accountId, id));
}

export function listWebhooks(db: Database, accountId: string): Webhook[] {
  const rows = db
    .prepare('SELECT * FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at, id')
    .all(accountId) as EndpointRow[];
  return rows.map((r) => toWebhook(r));
}

export function countWebhooks(db: Database, accountId: string): number {
  return (
    db.prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL').get(accountId) as {
      n: number;
    }
  ).n;
}

/** Soft delete: the attempt log stays readable; undelivered events to it are cancelled. */
export function deleteWebhook(db: Database, accountId: string, id: string, now: Date): void {
  endpointRow(db, accountId, id);
  db.transaction(() => {
    db.prepare('UPDATE webhook_endpoints SET deleted_at = ? WHERE id = ?').run(now.toISOString(), id);
    db.prepare(
      "UPDATE webhook_deliveries SET status = 'cancelled', last_error = 'webhook removed', updated_at = ? WHERE webhook_id = ? AND status IN ('pending', 'delivering')",
    ).run(now.getTime(), id);
  })();
}

/**
 * New secret (given, ≥ 32 characters, or generated). It signs every attempt from now on,
 * including retries of older events: deliveries are signed when sent, not when queued.
 */
export function rotateSecret(db: Database, accountId: string, id: string, secret?: string): Webhook {
  const row = endpointRow(db, accountId, id);
  if (secret !== undefined) WebhookConfig.shape.secret.parse(secret);
  row.secret = secret ?? generateSecret();
  db.prepare('UPDATE webhook_endpoints SET secret = ? WHERE id = ?').run(row.secret, id);
  return toWebhook(row, true);
}

/**
 * Writes an event to the outbox with one pending delivery per subscribed endpoint of the account
 * (or only `onlyWebhook`). Returns the delivery ids; none when no endpoint subscribes, in which
 * case the event is not stored at all.
 */
/**
 * Statements of the per-request path (enqueueEvent runs on every charge of `verity serve`),
 * prepared once per connection: preparing costs more than running them.
 */
const preparedByDb = new WeakMap<Database, Map<string, BetterSqlite3.Statement<unknown[]>>>();
function cached(db: Database, sql: string): BetterSqlite3.Statement<unknown[]> {
  let byText = preparedByDb.get(db);
  if (!byText) preparedByDb.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

export function enqueueEvent(
  db: Database,
  accountId: string,
  event: EventEnvelope,
  nowMs: number,
  onlyWebhook?: string,
): number[] {
  const targets = (
    cached(db, 'SELECT id, events FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL').all(accountId) as Array<{
      id: string;
      events: string;
    }>
  ).filter((w) => (onlyWebhook ? w.id === onlyWebhook : (JSON.parse(w.events) as string[]).includes(event.type)));
  if (!targets.length) return [];
  const body = JSON.stringify(event);
  const insertDelivery = cached(
    db,
    "INSERT INTO webhook_deliveries (event_id, webhook_id, status, next_attempt_at, updated_at) VALUES (?, ?, 'pending', ?, ?)",
  );
  const ids: number[] = [];
  const write = (): void => {
    cached(db, 'INSERT INTO webhook_events (id, account_id, type, created_at, body) VALUES (?, ?, ?, ?, ?)').run(
      event.id,
      accountId,
      event.type,
      event.created_at,
      body,
    );
    for (const t of targets) ids.push(Number(insertDelivery.run(event.id, t.id, nowMs, nowMs).lastInsertRowid));
  };
  // Inside the caller's transaction when there is one (the server's usage transaction).
  if (db.inTransaction) write();
  else db.transaction(write)();
  return ids;
}

/** Records that a credit threshold fired this period; false when it already had. */
export function markThreshold(db: Database, accountId: string, period: string, threshold: number): boolean {
  return (
    db
      .prepare('INSERT OR IGNORE INTO webhook_credit_thresholds (account_id, period, threshold) VALUES (?, ?, ?)')
      .run(accountId, period, threshold).changes === 1
  );
}

/**
 * Replay (SPEC 6.4.4): the same event (same id, created_at and body) is sent again, now, with a
 * fresh series of attempts, to the given endpoint or to every current endpoint subscribed to its
 * type. A delivery waiting for a retry is brought forward; one in flight is left alone.
 */
export function replayEvent(db: Database, accountId: string, eventIdValue: string, nowMs: number, webhook?: string): { event_id: string; deliveries: number } {
  const ev = db.prepare('SELECT id, type FROM webhook_events WHERE id = ? AND account_id = ?').get(eventIdValue, accountId) as
    | { id: string; type: EventType }
    | undefined;
  if (!ev) throw new VerityError('NOT_FOUND', `No event ${eventIdValue}`);
  if (webhook) endpointRow(db, accountId, webhook);
  const targets = (
    cached(db, 'SELECT id, events FROM webhook_endpoints WHERE account_id = ? AND deleted_at IS NULL').all(accountId) as Array<{
      id: string;
      events: string;
    }>
  ).filter((w) => (webhook ? w.id === webhook : (JSON.parse(w.events) as string[]).includes(ev.type)));
  if (!targets.length) throw new VerityError('NOT_FOUND', `No current webhook subscribes to ${ev.type}; nothing to replay ${ev.id} to`);
  const upsert = db.prepare(
    `INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, updated_at, replay)
     VALUES (?, ?, 'pending', 0, ?, ?, 1)
     ON CONFLICT (event_id, webhook_id) DO UPDATE SET
       status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at, lease_until = NULL,
       last_error = NULL, updated_at = excluded.updated_at, replay = 1
     WHERE status != 'delivering'`,
  );
  let n = 0;
  db.transaction(() => {
    for (const t of targets) n += upsert.run(ev.id, t.id, nowMs, nowMs).changes;
  })();
  return { event_id: ev.id, deliveries: n };
}

/** The attempt log of one endpoint, newest first, and its deliveries still in progress. */
export function deliveryLog(db: Database, accountId: string, webhook: string, limit = 50): { data: AttemptRecord[]; outstanding: DeliveryState[] } {
  endpointRow(db, accountId, webhook);
  const data = (
    db
      .prepare(
        `SELECT a.event_id, e.type AS event_type, a.attempt, a.started_at, a.outcome, a.status_code, a.latency_ms, a.error
         FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id
         WHERE a.webhook_id = ? ORDER BY a.id DESC LIMIT ?`,
      )
      .all(webhook, Math.max(1, Math.min(limit, 1000))) as Array<Omit<AttemptRecord, 'attempted_at'> & { started_at: number }>
  ).map(({ started_at, ...r }) => ({ ...r, attempted_at: new Date(started_at).toISOString() }));
  const outstanding = (
    db
      .prepare(
        `SELECT d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.last_error
         FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
         WHERE d.webhook_id = ? AND d.status IN ('pending', 'delivering') ORDER BY d.next_attempt_at LIMIT 100`,
      )
      .all(webhook) as Array<Omit<DeliveryState, 'next_attempt_at'> & { next_attempt_at: number }>
  ).map((r) => ({ ...r, next_attempt_at: new Date(r.next_attempt_at).toISOString() }));
  return { data, outstanding };
}

// ---- the worker's side

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

export interface Claim {
  id: number;
  event_id: string;
  event_type: string;
  webhook_id: string;
  url: string;
  secret: string;
  body: string;
  attempt: number;
  /** Sent again by a replay: the attempt carries the replay header. */
  replay: boolean;
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

export interface AttemptOutcome {
  startedAt: number;
  finishedAt: number;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** When to try again; undefined = no more attempts (delivered, or failed for good). */
  nextAt: number | undefined;
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

/**
 * Queues a signed sample event for one endpoint: of the given type, or its first subscribed
 * type. `data.sample` is true so receivers can tell it from a real event.
 */
export function enqueueTestEvent(db: Database, scope: string, webhook: string, type: EventType | undefined, nowMs: number) {
  const w = getWebhook(db, scope, webhook);
  const t = type ?? w.events[0]!;
  const ev = envelope(t, sampleData(t, new Date(nowMs)), new Date(nowMs));
  const [deliveryId] = enqueueEvent(db, scope, ev, nowMs, w.id);
  return { event: ev, deliveryId: deliveryId! };
}
