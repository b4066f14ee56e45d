/**
 * Webhook endpoints in PostgreSQL (the routes' side): create (with its idempotency record), list,
 * remove, rotate, a test event, replay and the delivery log. The worker's side is outbox.ts.
 */
import type { Sql, TransactionSql } from 'postgres';
import { VerityError } from '../../api/errors.js';
import type { Webhook } from '../../api/webhooks.js';
import { envelope, sampleData } from '../../domain/events.js';
import type { WebhookStore } from '../ports/index.js';
import { newEndpointRow, rotatedRow, toWebhook, type EndpointRow } from '../ports/rows.js';
import { enqueue } from './outbox.js';

type Tx = Sql | TransactionSql;

export function postgresWebhooks(sql: Sql): WebhookStore {
  return {
    create: async (scope, input, now, idem) => {
      if (!idem) return insert(sql, scope, input, now);
      return sql.begin(async (tx) => {
        const w = await insert(tx, scope, input, now);
        const res = idem.respond(w);
        const t = now.getTime();
        await tx`INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
          VALUES (${idem.accountId}, ${idem.key}, ${idem.hash}, 'completed', ${res.status}, ${res.body}, ${t}, ${t})
          ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'completed',
            status = excluded.status, body = excluded.body, created_at = excluded.created_at, lease_until = excluded.lease_until`;
        return w;
      }) as Promise<Webhook>;
    },
    get: async (scope, id) => toWebhook(await endpointRow(sql, scope, id)),
    list: async (scope) =>
      (
        await sql<EndpointRow[]>`SELECT id, account_id, url, events::text AS events, secret, created_at, signature_scheme, previous_secret, previous_secret_until FROM webhook_endpoints
          WHERE account_id = ${scope} AND deleted_at IS NULL ORDER BY created_at, id`
      ).map((r) => toWebhook(r)),
    remove: async (scope, id, now) => {
      await sql.begin(async (tx) => {
        await endpointRow(tx, scope, id);
        await tx`UPDATE webhook_endpoints SET deleted_at = ${now.toISOString()} WHERE id = ${id}`;
        await tx`UPDATE webhook_deliveries SET status = 'cancelled', last_error = 'webhook removed', updated_at = ${now.getTime()}
          WHERE webhook_id = ${id} AND status IN ('pending', 'delivering')`;
      });
    },
    rotate: async (scope, id, secret, now) => {
      const row = rotatedRow(await endpointRow(sql, scope, id), secret, now.getTime());
      await sql`UPDATE webhook_endpoints SET secret = ${row.secret}, previous_secret = ${row.previous_secret},
        previous_secret_until = ${row.previous_secret_until} WHERE id = ${id}`;
      return toWebhook(row, true);
    },
    enqueueTest: async (scope, id, type, nowMs) => {
      const w = toWebhook(await endpointRow(sql, scope, id));
      const t = type ?? w.events[0]!;
      const ev = envelope(t, sampleData(t, new Date(nowMs)), new Date(nowMs));
      const ids = await sql.begin((tx) => enqueue(tx, { scope, event: ev }, nowMs, w.id));
      return { event: ev, deliveryId: (ids as number[])[0]! };
    },
    replay: (scope, eventIdValue, nowMs, webhook) => replay(sql, scope, eventIdValue, nowMs, webhook),
    deliveryLog: (scope, id, limit = 50) => deliveryLog(sql, scope, id, limit),
  };
}

async function endpointRow(tx: Tx, scope: string, id: string): Promise<EndpointRow> {
  const [r] = await tx<EndpointRow[]>`
    SELECT id, account_id, url, events::text AS events, secret, created_at, signature_scheme, previous_secret, previous_secret_until FROM webhook_endpoints
    WHERE id = ${id} AND account_id = ${scope} AND deleted_at IS NULL`;
  if (!r) throw new VerityError('NOT_FOUND', `No webhook ${id}`);
  return r;
}

async function insert(tx: Tx, scope: string, input: unknown, now: Date): Promise<Webhook> {
  const row = newEndpointRow(scope, input, now);
  await tx`INSERT INTO webhook_endpoints (id, account_id, url, events, secret, created_at, signature_scheme)
    VALUES (${row.id}, ${scope}, ${row.url}, ${row.events}::text::jsonb, ${row.secret}, ${row.created_at}, ${row.signature_scheme})`;
  return toWebhook(row, true);
}

/** Queues an event again for its current subscribers (or one webhook): deliveries reset to pending, marked as a replay. */
function replay(sql: Sql, scope: string, eventIdValue: string, nowMs: number, webhook?: string): Promise<{ event_id: string; deliveries: number }> {
  return sql.begin(async (tx) => {
  const [ev] = await tx<{ id: string; type: string }[]>`SELECT id, type FROM webhook_events WHERE id = ${eventIdValue} AND account_id = ${scope}`;
  if (!ev) throw new VerityError('NOT_FOUND', `No event ${eventIdValue}`);
  if (webhook) await endpointRow(tx, scope, webhook);
  const targets = webhook
    ? await tx<{ id: string }[]>`SELECT id FROM webhook_endpoints WHERE id = ${webhook} AND account_id = ${scope} AND deleted_at IS NULL`
    : await tx<{ id: string }[]>`SELECT id FROM webhook_endpoints WHERE account_id = ${scope} AND deleted_at IS NULL
        AND events @> jsonb_build_array(${ev.type}::text)`;
  if (!targets.length) throw new VerityError('NOT_FOUND', `No current webhook subscribes to ${ev.type}; nothing to replay ${ev.id} to`);
  let n = 0;
  for (const t of targets) {
    const r = await tx`
      INSERT INTO webhook_deliveries (event_id, webhook_id, status, attempts, next_attempt_at, updated_at, replay)
      VALUES (${ev.id}, ${t.id}, 'pending', 0, ${nowMs}, ${nowMs}, true)
      ON CONFLICT (event_id, webhook_id) DO UPDATE SET
        status = 'pending', attempts = 0, next_attempt_at = excluded.next_attempt_at, lease_until = NULL,
        last_error = NULL, updated_at = excluded.updated_at, replay = true
      WHERE webhook_deliveries.status != 'delivering'`;
    n += r.count;
  }
  return { event_id: ev.id, deliveries: n };
}) as Promise<{ event_id: string; deliveries: number }>;
}

/** An endpoint's latest attempts and its deliveries still outstanding. */
async function deliveryLog(sql: Sql, scope: string, id: string, limit: number): ReturnType<WebhookStore['deliveryLog']> {
  await endpointRow(sql, scope, id);
  // One snapshot for both reads: a delivery finishing between them would otherwise be neither an
  // attempt in `data` nor `outstanding` (seen by the kill -9 worker e2e: 7 of 8 delivered, none due).
  return sql.begin('isolation level repeatable read read only', (tx) => deliveryLogIn(tx as unknown as Sql, id, limit));
}

async function deliveryLogIn(sql: Sql, id: string, limit: number): ReturnType<WebhookStore['deliveryLog']> {
  const data = (
    await sql<Array<{ event_id: string; event_type: string; attempt: number; started_at: number; outcome: 'delivered' | 'failed' | 'lost'; status_code: number | null; latency_ms: number | null; error: string | null }>>`
      SELECT a.event_id, e.type AS event_type, a.attempt, a.started_at, a.outcome, a.status_code, a.latency_ms, a.error
      FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id
      WHERE a.webhook_id = ${id} ORDER BY a.id DESC LIMIT ${Math.max(1, Math.min(limit, 1000))}`
  ).map(({ started_at, ...r }) => ({ ...r, attempted_at: new Date(Number(started_at)).toISOString() }));
  const outstanding = (
    await sql<Array<{ event_id: string; event_type: string; status: 'pending' | 'delivering'; attempts: number; next_attempt_at: number; last_error: string | null }>>`
      SELECT d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at, d.last_error
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = ${id} AND d.status IN ('pending', 'delivering') ORDER BY d.next_attempt_at LIMIT 100`
  ).map((r) => ({ ...r, next_attempt_at: new Date(Number(r.next_attempt_at)).toISOString() }));
  return { data, outstanding };
}
