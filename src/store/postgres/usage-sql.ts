/**
 * The usage side of a PostgreSQL commit as statements: usage shard rows, the live-usage advisory
 * lock, the one-statement group commit (COMMIT_BATCH) and its transaction-free twin for test
 * usage (COMMIT_ONE), and the column arrays they take. The commit's logic is in usage.ts.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { ChargeCommit, UsageTotals } from '../ports/index.js';

export type Tx = Sql | TransactionSql;

/**
 * Usage shard rows per (account, period, environment). Each commit batch adds to one shard row
 * chosen at random, so two processes' batches on one account wait for each other only when they
 * pick the same shard (1 in 16); totals are the sum of the shards.
 */
export const USAGE_SHARDS = 16;

/** Advisory lock class of live usage (per account and period): live totals stay a strict chain. */
export const LIVE_USAGE_LOCK = 736830702;

export type Outcome = { ok: true; usage: UsageTotals } | { ok: false; err: unknown };

/**
 * Live charges of an account commit one after another (in every process): the lock is taken in a
 * statement before the usage statement, whose snapshot then includes every live charge committed
 * before it — so before/after totals form one chain and a credit threshold is crossed exactly
 * once. Test usage has no quota or thresholds, so it takes no lock: its totals are those committed
 * when the batch's statement ran (exact within one process). Locks in hash order: no deadlock.
 */
export function lockLiveUsage(tx: Tx, accountPeriods: string[]): Promise<unknown> {
  return tx`SELECT pg_advisory_xact_lock(${LIVE_USAGE_LOCK}, s.k)::text FROM (
    SELECT DISTINCT hashtext(x) AS k FROM unnest(${accountPeriods}::text[]) AS x ORDER BY 1 OFFSET 0) s`;
}

/** Each upserted usage row's total over all shards (the other shards as the statement's snapshot has them). */
export const UP_TOTAL = `up.credits + (SELECT coalesce(sum(o.credits), 0) FROM usage o
      WHERE o.account_id = up.account_id AND o.period = up.period AND o.environment = up.environment AND o.shard <> up.shard)`;

/**
 * The scopes among `param` (a text[] parameter) whose events are written: those with a webhook
 * endpoint, and those with an event stream (event-log.ts; the outbox write checks its time).
 */
const SCOPES_WITH_EVENTS = (param: string): string => `
    SELECT w.account_id AS scope FROM webhook_endpoints w WHERE w.account_id = ANY (${param}::text[]) AND w.deleted_at IS NULL
    UNION ALL SELECT x.scope FROM event_stream_scopes x WHERE x.scope = ANY (${param}::text[])`;

/**
 * The usage part of a group commit in one statement ($1–$5 the usage rows, $6 the shard, $7 the
 * holds turned into usage, $8–$13 the idempotency records, $14 the likely event scopes): usage
 * upserted into the batch's shard row (rows in key order: one lock order for every batch), holds
 * deleted, idempotency records completed; returns each row's total over all shards (the other
 * shards as committed when the statement began) and which of the scopes have webhook endpoints.
 */
export const COMMIT_BATCH = `
  WITH up AS (
    INSERT INTO usage AS u (account_id, period, environment, shard, credits, requests)
    SELECT t.a, t.p, t.e, $6::smallint, t.c, t.r FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS t(a, p, e, c, r)
    ORDER BY t.a, t.p, t.e
    ON CONFLICT (account_id, period, environment, shard) DO UPDATE SET credits = u.credits + excluded.credits, requests = u.requests + excluded.requests
    RETURNING u.account_id, u.period, u.environment, u.shard, u.credits
  ), gone AS (
    DELETE FROM quota_holds WHERE id = ANY ($7::bigint[]) RETURNING 1
  ), idem AS (
    INSERT INTO idempotency AS i (account_id, key, request_hash, state, status, body, created_at, lease_until)
    SELECT x.a, x.k, x.h, 'completed', x.s, x.b, x.t, x.t FROM unnest($8::text[], $9::text[], $10::text[], $11::int[], $12::text[], $13::bigint[]) AS x(a, k, h, s, b, t)
    ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'completed',
      status = excluded.status, body = excluded.body, created_at = excluded.created_at, lease_until = excluded.lease_until
    RETURNING 1
  )
  SELECT up.account_id, up.period, up.environment, ${UP_TOTAL} AS total,
    (SELECT array_agg(DISTINCT s.scope) FROM (${SCOPES_WITH_EVENTS('$14')}) s) AS scopes
  FROM up`;

/**
 * A batch without live charges and without idempotency records, in ONE statement and its own
 * (implicit) transaction: one round trip and one statement instead of BEGIN + COMMIT_BATCH, then
 * COMMIT (and the outbox rows) in a second round trip. Test usage takes no advisory lock and has no
 * quota holds, so nothing has to precede the statement. Its outbox rows cannot be written here
 * (events are computed from the totals it returns), so it writes only when none of the batch's
 * scopes ($7) has a webhook endpoint — checked in the statement's snapshot, exactly as
 * COMMIT_BATCH's question is — and otherwise writes nothing and returns the scopes that have one (a
 * row with NULL totals): the batch then goes through COMMIT_BATCH's transaction. $1–$5 the usage
 * rows, $6 the shard. (Idempotency records never come here: a record committed `completed` before
 * the outbox functions ran could be read by a retry before a failed charge's take-back.)
 */
export const COMMIT_ONE = `
  WITH ep AS MATERIALIZED (
    SELECT array_agg(DISTINCT s.scope) AS scopes FROM (${SCOPES_WITH_EVENTS('$7')}) s
  ), up AS (
    INSERT INTO usage AS u (account_id, period, environment, shard, credits, requests)
    SELECT t.a, t.p, t.e, $6::smallint, t.c, t.r FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS t(a, p, e, c, r)
    WHERE (SELECT scopes FROM ep) IS NULL
    ORDER BY t.a, t.p, t.e
    ON CONFLICT (account_id, period, environment, shard) DO UPDATE SET credits = u.credits + excluded.credits, requests = u.requests + excluded.requests
    RETURNING u.account_id, u.period, u.environment, u.shard, u.credits
  )
  SELECT up.account_id, up.period, up.environment, ${UP_TOTAL} AS total, NULL::text[] AS scopes
  FROM up
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, ep.scopes FROM ep WHERE ep.scopes IS NOT NULL`;

/** How long a scope seen with webhook endpoints sends its batches straight to the transaction. */
export const SCOPE_WITH_ENDPOINTS_MS = 10_000;

export const rowKey = (c: { accountId: string; period: string; environment: string }): string => `${c.accountId}\0${c.period}\0${c.environment}`;

/** A batch's charges summed per usage row (an upsert may touch a row once per statement). */
export function sumUsageRows(charges: ChargeCommit[]): Array<{ accountId: string; period: string; environment: string; credits: number; requests: number }> {
  const rows = new Map<string, { accountId: string; period: string; environment: string; credits: number; requests: number }>();
  for (const c of charges) {
    const k = rowKey(c);
    const r = rows.get(k) ?? { accountId: c.accountId, period: c.period, environment: c.environment, credits: 0, requests: 0 };
    r.credits += c.credits;
    r.requests += 1;
    rows.set(k, r);
  }
  return [...rows.values()];
}

/** The batch's idempotency records, one per (account, key): the last charge's wins. */
/** Summed usage rows as the parallel arrays COMMIT_BATCH and COMMIT_ONE unnest (same order in both). */
export function usageColumns(rows: ReturnType<typeof sumUsageRows>): unknown[][] {
  return [rows.map((r) => r.accountId), rows.map((r) => r.period), rows.map((r) => r.environment), rows.map((r) => r.credits), rows.map((r) => r.requests)];
}

/** Idempotency records as the parallel arrays COMMIT_BATCH unnests. */
export function idempotencyColumns(ids: ReturnType<typeof idempotencyRecords>): unknown[][] {
  return [
    ids.map((x) => x.r.accountId),
    ids.map((x) => x.r.key),
    ids.map((x) => x.r.hash),
    ids.map((x) => x.r.response.status),
    ids.map((x) => x.r.response.body),
    ids.map((x) => x.c.nowMs),
  ];
}

export function idempotencyRecords(charges: ChargeCommit[]): Array<{ c: ChargeCommit; r: NonNullable<ChargeCommit['idempotency']> }> {
  const idem = new Map<string, { c: ChargeCommit; r: NonNullable<ChargeCommit['idempotency']> }>();
  for (const c of charges) if (c.idempotency) idem.set(`${c.idempotency.accountId}\0${c.idempotency.key}`, { c, r: c.idempotency });
  return [...idem.values()];
}

/** Each charge's total after it: its row's total after the batch, walked backwards over the row's charges. */
export function chargeTotals(charges: ChargeCommit[], got: Array<{ account_id: string | null; period: string; environment: string; total: number }>): number[] {
  const running = new Map(got.map((g) => [rowKey({ accountId: g.account_id!, period: g.period, environment: g.environment }), Number(g.total)]));
  const totals: number[] = new Array(charges.length);
  for (let i = charges.length - 1; i >= 0; i--) {
    const k = rowKey(charges[i]!);
    const after = running.get(k)!;
    totals[i] = after;
    running.set(k, after - charges[i]!.credits);
  }
  return totals;
}

/** A deadlock or serialization failure is retried once (the transaction was rolled back whole). */
export async function retryConflict<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '40P01' && code !== '40001') throw err;
    return run();
  }
}

/** The charge's hold removal and idempotency record, in the commit's transaction. */
export function chargeSideWrites(tx: Tx, c: ChargeCommit): Array<Promise<unknown>> {
  const writes: Array<Promise<unknown>> = [];
  if (c.hold) writes.push(tx`DELETE FROM quota_holds WHERE id = ${c.hold.id}`);
  if (c.idempotency) {
    const r = c.idempotency;
    writes.push(tx`
      INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
      VALUES (${r.accountId}, ${r.key}, ${r.hash}, 'completed', ${r.response.status}, ${r.response.body}, ${c.nowMs}, ${c.nowMs})
      ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'completed',
        status = excluded.status, body = excluded.body, created_at = excluded.created_at, lease_until = excluded.lease_until`);
  }
  return writes;
}

