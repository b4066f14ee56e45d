/**
 * Rate windows in PostgreSQL: one row per key, locked while a take counts, timed by the database's
 * clock. ADMIT answers a batch of requests' key look-ups and takes in one statement; takeRate is
 * the per-key function for a key without a window row yet.
 */
import type { Sql } from 'postgres';
import type { KeyRecord, RateDecision, RatePolicies, RatePolicy } from '../ports/index.js';

/**
 * The request guard for a batch of key hashes ($1, in arrival order; $2 the rate policies as
 * jsonb: {"test":{limit,windowMs},"live":{"<plan>":{limit,windowMs}}}), in one statement: the
 * keys (unknown hashes give a row of NULLs), then for every valid key ONE window update for all of
 * its takes in the batch: the stamps still in the window (stamps are kept in ascending order — a
 * new one is never below the last, should the clock step back — so the expired ones are a prefix,
 * found by binary search: width_bucket), then one stamp per take allowed (at most
 * `limit` in all; none without a limit: a missing policy refuses rather than lets everything
 * through); `taken` = how many were allowed. (Written out here, not as a SQL function: a function
 * call per row cost ~0.5 ms, the inline expression is planned once with the statement; an
 * unnest-filter-sort subquery per row cost ~70 µs.) The window rows are locked first, in key order
 * (the InitPlan runs whole before the update), so batches of different processes cannot deadlock;
 * the update then reads each row's latest version (READ COMMITTED re-check), so concurrent batches
 * count one after another. The database's clock, read once; it is also the key's last-used time
 * (`used_ms`, server@4: no separate UPDATE of api_keys for keys seen here). Per request: the j-th take of a key in
 * the batch is allowed when j <= taken; `remaining` and the reset are what the j-th of separate
 * takes at that instant would have seen.
 */
export const ADMIT = `
  WITH req AS (
    SELECT h.hash, h.i::int AS i FROM unnest($1::text[]) WITH ORDINALITY AS h(hash, i)
  ), k AS (
    -- One index probe per hash (LIMIT keeps the lateral from becoming a hash join that reads
    -- every key: the generic plan guesses a few rows for the batch, and a key table is large).
    SELECT req.i, k.id, k.account_id, k.prefix, k.environment, k.revoked_at, k.plan,
      row_number() OVER (PARTITION BY k.id ORDER BY req.i)::int AS j,
      CASE WHEN k.environment = 'test' THEN $2::text::jsonb -> 'test' ELSE $2::text::jsonb -> 'live' -> k.plan END AS pol
    FROM req CROSS JOIN LATERAL (
      SELECT kk.id, kk.account_id, kk.prefix, kk.environment, kk.revoked_at, a.plan
      FROM api_keys kk JOIN accounts a ON a.id = kk.account_id WHERE kk.key_hash = req.hash LIMIT 1) k
  ), w AS (
    SELECT id, count(*)::int AS n, min((pol ->> 'limit')::int) AS lim, min((pol ->> 'windowMs')::float8) AS win
    FROM k WHERE revoked_at IS NULL GROUP BY id
  ), c AS MATERIALIZED (
    SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now_ms
  ), locked AS (
    SELECT r.key_id FROM rate_windows r WHERE r.key_id IN (SELECT id FROM w) ORDER BY r.key_id FOR UPDATE
  ), upd AS (
    UPDATE rate_windows r SET (stamps, taken, used_ms) = (
      SELECT nx.f || array_fill(greatest(c.now_ms, nx.f[cardinality(nx.f)]), ARRAY[nx.t]), nx.t, c.now_ms FROM (
        SELECT f.f, CASE WHEN w.lim IS NULL THEN 0 ELSE greatest(0, least(w.n, w.lim - cardinality(f.f))) END AS t
        FROM (SELECT r.stamps[width_bucket(c.now_ms - w.win, r.stamps) + 1:] AS f OFFSET 0) f) nx)
    FROM w, c
    WHERE r.key_id = w.id AND r.key_id = ANY (ARRAY(SELECT key_id FROM locked))
    RETURNING r.key_id, r.stamps, r.taken, w.lim, w.win, c.now_ms
  )
  SELECT req.i, k.id, k.account_id, k.prefix, k.environment, k.revoked_at, k.plan,
    (k.j <= u.taken) AS allowed,
    CASE WHEN k.j <= u.taken THEN u.lim - (cardinality(u.stamps) - u.taken) - k.j ELSE 0 END AS remaining,
    CASE WHEN k.j <= u.taken THEN u.stamps[1] + u.win - u.now_ms
      ELSE u.stamps[cardinality(u.stamps) - u.lim + 1] + u.win - u.now_ms END AS reset_ms,
    u.lim, u.win AS window_ms
  FROM req LEFT JOIN k ON k.i = req.i LEFT JOIN upd u ON u.key_id = k.id
  ORDER BY req.i`;

/** One waiting admit: its key hash and its caller's promise. */
export interface PendingAdmit {
  hash: string;
  resolve: (r: { key: KeyRecord | undefined; decision: RateDecision | undefined }) => void;
  reject: (err: unknown) => void;
}

type AdmitRow = KeyRecord & { i: number; allowed: boolean | null; remaining: number | null; reset_ms: number | null; lim: number | null; window_ms: number | null };

/**
 * Sends one admit batch (ADMIT, retried once on a deadlock) and answers each caller; keys whose
 * window the statement stamped are added to `stamped` (their last-used time is written).
 */
export async function runAdmits(guard: Sql, sql: Sql, items: PendingAdmit[], policiesJson: string, stamped: Set<string>): Promise<void> {
  let rows: AdmitRow[];
  const query = () => guard.unsafe<AdmitRow[]>(ADMIT, [items.map((x) => x.hash), policiesJson], { prepare: true });
  try {
    try {
      rows = await query();
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01') throw err;
      rows = await query();
    }
  } catch (err) {
    for (const x of items) x.reject(err);
    return;
  }
  for (const r of rows) settleAdmit(sql, items[r.i - 1]!, r, policiesJson, stamped);
}

function settleAdmit(sql: Sql, x: PendingAdmit, r: AdmitRow, policiesJson: string, stamped: Set<string>): void {
  if (r.id === null) return x.resolve({ key: undefined, decision: undefined });
  const key: KeyRecord = { id: r.id, account_id: r.account_id, prefix: r.prefix, environment: r.environment, revoked_at: r.revoked_at, plan: r.plan };
  if (r.revoked_at !== null) return x.resolve({ key, decision: undefined });
  if (r.allowed === null) {
    // A valid key without a window row (created by a version before server@3 while this one
    // ran): the per-key function creates the row and takes, as before.
    const policies = JSON.parse(policiesJson) as RatePolicies;
    const policy = key.environment === 'test' ? policies.test : policies.live[key.plan];
    takeRate(sql, key.id, policy).then((decision) => x.resolve({ key, decision }), x.reject);
    return;
  }
  stamped.add(key.id);
  const reset = Math.ceil(r.reset_ms! / 1000);
  x.resolve({
    key,
    decision: {
      allowed: r.allowed,
      limit: r.lim!,
      remaining: r.remaining!,
      resetSeconds: r.allowed ? Math.max(0, reset) : Math.max(1, reset),
      windowSeconds: Math.round(r.window_ms! / 1000),
    },
  });
}

export async function takeRate(sql: Sql, keyId: string, policy: RatePolicy): Promise<RateDecision> {
  const [r] = await sql<{ allowed: boolean; remaining: number; reset_ms: number }[]>`
    SELECT allowed, remaining, reset_ms FROM verity_rate_take(${keyId}, ${policy.limit}, ${policy.windowMs})`;
  const reset = Math.ceil(r!.reset_ms / 1000);
  return {
    allowed: r!.allowed,
    limit: policy.limit,
    remaining: r!.remaining,
    resetSeconds: r!.allowed ? Math.max(0, reset) : Math.max(1, reset),
    windowSeconds: Math.round(policy.windowMs / 1000),
  };
}
