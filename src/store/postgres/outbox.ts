/**
 * The outbox in PostgreSQL: events and their pending deliveries written in the charge's
 * transaction (enqueue), and the worker's side: due deliveries, a claim under the endpoint's
 * limits (`verity_claim`, FOR UPDATE SKIP LOCKED and a lease), the attempt recorded, claims
 * released at shutdown. NOTIFY on commit (a trigger) wakes the workers; LISTEN is in index.ts.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { EventEnvelope } from '../../api/webhooks.js';
import { MAX_ATTEMPTS } from '../../domain/delivery-schedule.js';
import type { Claim, OutboxEntry, OutboxStore } from '../ports/index.js';

type Tx = Sql | TransactionSql;

/**
 * One outbox entry in one statement: the event and one pending delivery per subscribed endpoint of
 * the scope (or only `onlyWebhook`), and the event in the stream log when the scope is streamed
 * (not for a test event to one endpoint); nothing when neither, or when its `once`
 * threshold already fired this period. Returns the delivery ids.
 */
export async function enqueue(tx: Tx, e: OutboxEntry, nowMs: number, onlyWebhook?: string): Promise<number[]> {
  const ev: EventEnvelope = e.event;
  const body = JSON.stringify(ev);
  if (e.once) {
    const fired = await tx`INSERT INTO webhook_credit_thresholds (account_id, period, threshold)
      VALUES (${e.scope}, ${e.once.period}, ${e.once.threshold}) ON CONFLICT DO NOTHING RETURNING 1`;
    if (fired.count === 0) return [];
  }
  const rows = await tx<{ id: number }[]>`
    WITH targets AS (
      SELECT id FROM webhook_endpoints WHERE account_id = ${e.scope} AND deleted_at IS NULL
        AND (${onlyWebhook ?? null}::text IS NULL AND events @> jsonb_build_array(${ev.type}::text) OR id = ${onlyWebhook ?? null}::text)
    ), event AS (
      INSERT INTO webhook_events (id, account_id, type, created_at, body)
      SELECT ${ev.id}, ${e.scope}, ${ev.type}, ${ev.created_at}, ${body} WHERE EXISTS (SELECT 1 FROM targets)
      RETURNING id
    ), logged AS (
      -- The event stream's log (event-log.ts), beside the deliveries: a stream changes nothing they receive.
      INSERT INTO event_log (scope, id, type, created_at, body, logged_at)
      SELECT ${e.scope}, ${ev.id}, ${ev.type}, ${ev.created_at}, ${body}, ${nowMs}
      WHERE EXISTS (SELECT 1 FROM event_stream_scopes WHERE scope = ${e.scope} AND until_ms > ${nowMs})
    )
    INSERT INTO webhook_deliveries (event_id, webhook_id, status, next_attempt_at, updated_at)
    SELECT event.id, targets.id, 'pending', ${nowMs}, ${nowMs} FROM event, targets
    RETURNING id`;
  return rows.map((r) => Number(r.id));
}

export function postgresOutbox(sql: Sql, listeners: Set<() => void>): OutboxStore {
  return {
    shared: true,
    due: async (nowMs, perEndpoint) => {
      const rows = await sql<Array<{ id: number; event_id: string; webhook_id: string; url: string }>>`
        SELECT d.id, d.event_id, d.webhook_id, w.url FROM webhook_endpoints w
        CROSS JOIN LATERAL (
          SELECT id, event_id, webhook_id FROM webhook_deliveries dd
          WHERE dd.webhook_id = w.id AND dd.status = 'pending' AND dd.next_attempt_at <= ${nowMs}
          ORDER BY dd.next_attempt_at LIMIT ${perEndpoint}) d
        WHERE w.deleted_at IS NULL
        UNION ALL
        (SELECT d.id, d.event_id, d.webhook_id, w.url FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_id
         WHERE d.status = 'delivering' AND d.lease_until <= ${nowMs} LIMIT 1000)`;
      // Several endpoints may share a URL: at most perEndpoint per URL, as in SQLite.
      const perUrl = new Map<string, number>();
      return rows
        .map((r) => ({ ...r, id: Number(r.id) }))
        .filter((r) => {
          const n = (perUrl.get(r.url) ?? 0) + 1;
          perUrl.set(r.url, n);
          return n <= perEndpoint;
        });
    },
    nextDueAt: async () => {
      const [r] = await sql<{ t: number | null }[]>`
        SELECT LEAST(
          (SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE status = 'pending'),
          (SELECT MIN(lease_until) FROM webhook_deliveries WHERE status = 'delivering')) AS t`;
      return r?.t === null || r?.t === undefined ? undefined : Number(r.t);
    },
    claim: async (id, nowMs, leaseMs, limits) => {
      const got = (await sql.begin(async (tx) => {
        const [r] = await tx<{ result: string; retry_in_ms: number | null; attempt: number | null }[]>`
          SELECT result, retry_in_ms, attempt FROM verity_claim(${id}, ${nowMs}, ${leaseMs}, ${limits.ratePerSecond}, ${limits.rateWindowMs},
            ${limits.minGapMs}, ${limits.maxInFlight}, ${MAX_ATTEMPTS})`;
        if (r!.result !== 'claimed') return r!;
        const [d] = await tx<Array<Omit<Claim, 'attempt'>>>`
          SELECT d.id, d.event_id, e.type AS event_type, d.webhook_id, w.url, w.secret, e.body, d.replay
          FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.webhook_id
          WHERE d.id = ${id}`;
        return { ...r!, claim: { ...d!, id: Number(d!.id), attempt: r!.attempt! } };
      })) as { result: string; retry_in_ms: number | null; claim?: Claim };
      if (got.result === 'deferred') return { deferred: true as const, retryAt: nowMs + Math.ceil(got.retry_in_ms ?? 50) };
      return got.claim;
    },
    recordAttempt: async (claim, o) => {
      const status = o.ok ? 'delivered' : o.nextAt === undefined ? 'failed' : 'pending';
      await sql.begin(async (tx) => {
        await Promise.all([
          tx`INSERT INTO webhook_attempts (delivery_id, event_id, webhook_id, attempt, started_at, outcome, status_code, latency_ms, error)
            VALUES (${claim.id}, ${claim.event_id}, ${claim.webhook_id}, ${claim.attempt}, ${o.startedAt}, ${o.ok ? 'delivered' : 'failed'},
              ${o.statusCode}, ${o.finishedAt - o.startedAt}, ${o.error})`,
          // Only the holder of the current claim may move the row (a replay may have reset it meanwhile).
          tx`UPDATE webhook_deliveries SET status = ${status}, next_attempt_at = COALESCE(${o.nextAt ?? null}::bigint, next_attempt_at),
            lease_until = NULL, last_error = ${o.error}, updated_at = ${o.finishedAt}
            WHERE id = ${claim.id} AND status = 'delivering' AND attempts = ${claim.attempt}`,
        ]);
      });
    },
    release: async (claims, nowMs) => {
      if (!claims.length) return;
      await sql.begin(async (tx) => {
        for (const c of claims)
          await tx`UPDATE webhook_deliveries SET status = 'pending', attempts = attempts - 1, lease_until = NULL, next_attempt_at = ${nowMs},
            updated_at = ${nowMs} WHERE id = ${c.id} AND status = 'delivering' AND attempts = ${c.attempt}`;
      });
    },
    outstanding: async () => {
      const [r] = await sql<{ n: number }[]>`SELECT COUNT(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'delivering')`;
      return r!.n;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
