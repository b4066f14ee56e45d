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
import { toWebhook, type EndpointRow } from '../ports/rows.js';
import { migrateEventStream } from './event-log.js';

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
  // The event stream's log is written by the same outbox writes (event-log.ts).
  migrateEventStream(db);
}

export const generateSecret = generateSecretValue;

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
