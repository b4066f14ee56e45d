/**
 * The PostgreSQL implementation of the server store (src/store/server-store.ts), for several
 * `serve` / `worker` processes (and machines) on one database. Driver: `postgres` (porsager):
 * statements are prepared once per connection automatically, queries issued together are
 * pipelined, and LISTEN runs on its own connection with reconnection.
 *
 * What one SQLite process keeps in memory lives here in the database, so it holds across processes:
 * - rate windows: one row per key, locked by `verity_rate_take`, timed by the database's clock;
 * - quota holds: rows with an expiry (a process killed mid-request leaves nothing for long);
 * - idempotency: a `running` record first (a duplicate from another process gets 409), then
 *   `completed` with the response in the commit transaction;
 * - the outbox: written in the commit transaction, announced by NOTIFY on commit (a trigger),
 *   claimed with FOR UPDATE SKIP LOCKED and a lease, per-endpoint limits in a locked lane row.
 * Keys are read on every request (one indexed look-up), so a revocation anywhere answers 401 on
 * the next request everywhere.
 */
import type { ReservedSql, Sql, TransactionSql } from 'postgres';
import { VerityError } from '../../api/errors.js';
import { webhookId } from '../../api/ids.js';
import { WebhookConfig, type EventEnvelope, type Webhook } from '../../api/webhooks.js';
import { checkName, checkPlan, hashKey, keyPrefixOf, newKeyValue, planChangeRefused } from '../../domain/keys.js';
import { randomBase62 } from '../../api/ids.js';
import { envelope, sampleData } from '../../domain/events.js';
import { toWebhook, type EndpointRow } from '../ports/rows.js';
import { MAX_ATTEMPTS } from '../../domain/delivery-schedule.js';
import { generateSecretValue } from '../../domain/webhook-secret.js';
import type {
  AccountRow,
  AdminStore,
  ChargeCommit,
  Claim,
  CreatedKey,
  FailureCommit,
  IdempotencyBegin,
  KeyRecord,
  KeyRow,
  OutboxEntry,
  OutboxStore,
  QuotaAnswer,
  QuotaHold,
  RateDecision,
  RatePolicies,
  RatePolicy,
  ServerStore,
  UsageRow,
  UsageTotals,
  WebhookStore,
} from '../ports/index.js';
import { IDEMPOTENCY_TTL_MS } from '../../domain/idempotency.js';
import { migratePostgres } from './migrations.js';
import type { BatchesBeside } from '../ports/index.js';

/** A live request's credits stay held at most this long if its process dies. */
const HOLD_TTL_MS = 10 * 60_000;
/** A `running` idempotency record older than this (its process died) may be taken over. */
const RUNNING_LEASE_MS = 10 * 60_000;
/** How often one process purges stale idempotency records and expired quota holds (as SQLite does). */
const PURGE_INTERVAL_MS = 3_600_000;
/** Rows one purge statement deletes at most: each statement is its own short transaction. */
const PURGE_BATCH = 1_000;
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

type Tx = Sql | TransactionSql;

/**
 * Usage shard rows per (account, period, environment). Each commit batch adds to one shard row
 * chosen at random, so two processes' batches on one account wait for each other only when they
 * pick the same shard (1 in 16); totals are the sum of the shards.
 */
const USAGE_SHARDS = 16;

/** Advisory lock class of live usage (per account and period): live totals stay a strict chain. */
const LIVE_USAGE_LOCK = 736830702;

type Outcome = { ok: true; usage: UsageTotals } | { ok: false; err: unknown };

/**
 * Live charges of an account commit one after another (in every process): the lock is taken in a
 * statement before the usage statement, whose snapshot then includes every live charge committed
 * before it — so before/after totals form one chain and a credit threshold is crossed exactly
 * once. Test usage has no quota or thresholds, so it takes no lock: its totals are those committed
 * when the batch's statement ran (exact within one process). Locks in hash order: no deadlock.
 */
function lockLiveUsage(tx: Tx, accountPeriods: string[]): Promise<unknown> {
  return tx`SELECT pg_advisory_xact_lock(${LIVE_USAGE_LOCK}, s.k)::text FROM (
    SELECT DISTINCT hashtext(x) AS k FROM unnest(${accountPeriods}::text[]) AS x ORDER BY 1 OFFSET 0) s`;
}

/** Each upserted usage row's total over all shards (the other shards as the statement's snapshot has them). */
const UP_TOTAL = `up.credits + (SELECT coalesce(sum(o.credits), 0) FROM usage o
      WHERE o.account_id = up.account_id AND o.period = up.period AND o.environment = up.environment AND o.shard <> up.shard)`;

/**
 * The usage part of a group commit in one statement ($1–$5 the usage rows, $6 the shard, $7 the
 * holds turned into usage, $8–$13 the idempotency records, $14 the likely event scopes): usage
 * upserted into the batch's shard row (rows in key order: one lock order for every batch), holds
 * deleted, idempotency records completed; returns each row's total over all shards (the other
 * shards as committed when the statement began) and which of the scopes have webhook endpoints.
 */
const COMMIT_BATCH = `
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
    (SELECT array_agg(DISTINCT w.account_id) FROM webhook_endpoints w WHERE w.account_id = ANY ($14::text[]) AND w.deleted_at IS NULL) AS scopes
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
const COMMIT_ONE = `
  WITH ep AS MATERIALIZED (
    SELECT array_agg(DISTINCT w.account_id) AS scopes FROM webhook_endpoints w WHERE w.account_id = ANY ($7::text[]) AND w.deleted_at IS NULL
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
const GENERIC_PLANS = 'force_generic_plan';

/** How long a scope seen with webhook endpoints sends its batches straight to the transaction. */
const SCOPE_WITH_ENDPOINTS_MS = 10_000;

/**
 * Hot-path statements (an admit batch or a commit batch) one process keeps at the database at once.
 * One: while a commit batch is out, arriving requests' admits wait and go together after it, and
 * the other way round, so under load every statement carries twice the requests it would with the
 * two kinds out side by side — and the fixed cost of a statement (a round trip, a transaction's
 * commit record, the driver's work on both sides) is shared by more. Measured with three
 * processes on two cores: PostgreSQL's CPU per request fell by about 30 %, the serve processes'
 * stayed the same, and throughput moved within the noise for one and for three (docs/server.md).
 */
const HOT_IN_FLIGHT = 1;

/**
 * How long key checks wait behind a commit batch that is still at the database (HOT_IN_FLIGHT)
 * before they go out beside it: a batch held up there (a lock, a slow disk) must not hold up
 * authentication of every new request of the process with it.
 */
const HOT_WAIT_MS = 250;

/** Admit statements one process keeps at the database at once; the rest wait and go together. */
const ADMITS_IN_FLIGHT = 1;

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
const ADMIT = `
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
}

/**
 * How long a connection attempt may take (seconds). While the database is away, requests wait at
 * most this long for a connection before they are answered 503 (issue 28: "a few seconds"); a
 * server on the same network answers a connect in milliseconds, so a slow one is down, not busy.
 */
const CONNECT_TIMEOUT_S = 5;

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

/** How long /healthz waits for each connection's `SELECT 1` before it reports the database down. */
export const HEALTH_TIMEOUT_MS = 3_000;

export async function openPostgresStore(o: PostgresStoreOptions): Promise<PostgresServerStore> {
  // The driver with its write-after-close fault fixed (./driver.ts): without the fix a database
  // restart killed the process (issue 28).
  const postgres = (await import('./driver.js')).loadPostgres();
  const common = {
    onnotice: () => undefined,
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: reconnectDelaySeconds,
    // bigint (int8) columns come back as JS numbers: every value here is far below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  };
  const sql = postgres(o.url, { ...common, max: o.poolSize ?? 10 });
  // The request guard's own connection, whose commits do not wait for the WAL flush
  // (synchronous_commit off). Safe for rate takes: a request answered 200 was charged in a commit
  // that does wait, and that flush covers every earlier WAL record, its take's included; a crash
  // can only forget takes of requests that were never charged.
  // Its statement is planned once (GENERIC_PLANS).
  const guard = postgres(o.url, { ...common, max: ADMITS_IN_FLIGHT, connection: { synchronous_commit: 'off', plan_cache_mode: GENERIC_PLANS } });
  // The commit batches' connection (one batch at the database per process): its statements are
  // planned once too.
  const commits = postgres(o.url, { ...common, max: 1, connection: { plan_cache_mode: GENERIC_PLANS } });
  try {
    await sql`SELECT 1`;
    if (o.migrate !== false) await migratePostgres(sql);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    await guard.end({ timeout: 1 }).catch(() => undefined);
    await commits.end({ timeout: 1 }).catch(() => undefined);
    throw openError(err, o.url);
  }
  const store = new PostgresServerStore(sql, redactDatabaseUrl(o.url), o.onBackgroundError ?? (() => undefined), guard, commits);
  if (o.listen !== false) {
    try {
      await store.startListening();
    } catch (err) {
      // The store is not handed out, so nobody else would close its connections.
      await store.close().catch(() => undefined);
      throw openError(err, o.url);
    }
  }
  return store;
}

function openError(err: unknown, url: string): VerityError {
  const cause = postgresFaultCause(err) ?? (err as Error)?.message ?? String(err);
  return new VerityError('UNAVAILABLE', `Cannot use the PostgreSQL database ${redactDatabaseUrl(url)}: ${cause}`, { cause: err });
}

export class PostgresServerStore implements ServerStore {
  readonly kind = 'postgres' as const;
  readonly sqlite = undefined;
  readonly admin: AdminStore;
  readonly webhooks: WebhookStore;
  readonly outbox: OutboxStore;
  private readonly listeners = new Set<() => void>();
  private unlisten: (() => Promise<void>) | undefined;
  private degraded: string | undefined;
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  private admits: Array<{ hash: string; resolve: (r: { key: KeyRecord | undefined; decision: RateDecision | undefined }) => void; reject: (err: unknown) => void }> = [];
  private admitScheduled = false;
  private admitsInFlight = 0;
  private admitPolicies = '{}';
  private admitPoliciesOf: RatePolicies | undefined;
  private readonly touches = new Map<string, string>();
  /** Keys whose last-used time the latest admit statement wrote (touchKey then has nothing to do). */
  private readonly stamped = new Set<string>();
  private touchTimer: NodeJS.Timeout | undefined;
  private charges: Array<{ c: ChargeCommit; resolve: (u: UsageTotals) => void; reject: (err: unknown) => void }> = [];
  private chargeScheduled = false;
  private chargeInFlight = false;
  /** When the commit batch at the database went out (Date.now()). */
  private chargeOutAt = 0;
  /** Wakes waiting key checks once the commit batch has been out HOT_WAIT_MS. */
  private admitTimer: NodeJS.Timeout | undefined;
  /** Hot-path statements (admit batches and commit batches) of this process at the database or about to go. */
  private hot = 0;
  /** Scopes found with webhook endpoints lately (until when): their batches go straight to the transaction. */
  private readonly scopesWithEndpoints = new Map<string, number>();
  /** An outbox function emitted an event for a scope not its charge's own: every batch takes the transaction. */
  private foreignScopes = false;
  /** The request time (the store's clock) of this process's last purge (maybePurge). */
  private lastPurge = 0;
  private purging = false;
  /** Purge runs in a row that failed (the retry backs off). */
  private purgeFailures = 0;

  constructor(
    readonly sql: Sql,
    readonly label: string,
    private readonly onBackgroundError: (err: unknown) => void,
    /** The request guard's connection (see openPostgresStore); the main pool when not given. */
    private readonly guard: Sql = sql,
    /** The commit batches' connection (see openPostgresStore); the main pool when not given. */
    private readonly commits: Sql = sql,
  ) {
    this.admin = this.makeAdmin();
    this.webhooks = this.makeWebhooks();
    this.outbox = this.makeOutbox();
  }

  async startListening(): Promise<void> {
    // The driver listens again by itself after its connection was lost (it retries with backoff
    // until the database is back); announcements made meanwhile are lost, so every (re)listen is
    // announced too: the workers look at the outbox at once instead of at their next poll.
    let first = true;
    const r = await this.sql.listen(
      'verity_outbox',
      () => this.announce(),
      () => {
        if (!first) this.announce();
        first = false;
      },
    );
    this.unlisten = r.unlisten;
  }

  private announce(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch (err) {
        this.report(err);
      }
    }
  }

  /** onBackgroundError, which must not throw into a driver callback or a timer either. */
  private report(err: unknown): void {
    try {
      this.onBackgroundError(err);
    } catch {
      // nowhere left to report it
    }
  }

  private background(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.catch((err: unknown) => this.report(err)).finally(() => this.pending.delete(p));
  }

  /**
   * A hot-path batch (admits, commits) tracked for flush(). Its own errors are handled inside (each
   * caller is rejected); anything that still escapes is reported, never left as an unhandled
   * rejection (which would end the process).
   */
  private track(p: Promise<unknown>): void {
    const settled = p.catch((err: unknown) => this.report(err));
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }

  // ---- keys

  async findKey(hash: string): Promise<KeyRecord | undefined> {
    const [row] = await this.sql<KeyRecord[]>`
      SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${hash}`;
    return row;
  }

  /**
   * Last-used times are collected and written together, once a second, in one statement — except
   * for keys the request guard's statement just stamped (their window row's `used_ms`, written in
   * the same update as the rate take: no extra write at all).
   */
  touchKey(keyId: string, at: Date): void {
    if (this.stamped.has(keyId)) return;
    this.touches.set(keyId, at.toISOString());
    if (!this.touchTimer) {
      this.touchTimer = setTimeout(() => this.writeTouches(), 1_000);
      this.touchTimer.unref();
    }
  }

  private writeTouches(): void {
    this.touchTimer = undefined;
    if (!this.touches.size) return;
    const ids = [...this.touches.keys()];
    const ats = [...this.touches.values()];
    const stale = ats.map((at) => new Date(Date.parse(at) - 1_000).toISOString());
    this.touches.clear();
    // A key another process stamped less than a second before is left alone: with traffic spread
    // over N processes, a busy key is written about once a second, not N times (ISO times in one
    // format compare as text).
    this.background(this.sql`UPDATE api_keys k SET last_used_at = t.at FROM unnest(${ids}::text[], ${ats}::text[], ${stale}::text[]) AS t(id, at, stale)
      WHERE k.id = t.id AND (k.last_used_at IS NULL OR k.last_used_at < t.stale)`);
  }

  /**
   * Key look-up and rate take in one round trip. The admits that arrive while the previous batch
   * is at the database go out together as ONE statement (`ADMIT`): at most `ADMITS_IN_FLIGHT`
   * statements per process at a time, so a busy process sends fewer, larger statements instead of
   * one per event-loop turn (statements, not rows, are what costs on both sides). Takes of the same
   * key within a batch count one after another, as separate statements would.
   */
  admit(hash: string, policies: RatePolicies): Promise<{ key: KeyRecord | undefined; decision: RateDecision | undefined }> {
    return new Promise((resolve, reject) => {
      this.admits.push({ hash, resolve, reject });
      // The server passes one policies object for its life: serialized once, not per request.
      if (policies !== this.admitPoliciesOf) {
        this.admitPoliciesOf = policies;
        this.admitPolicies = JSON.stringify(policies);
      }
      this.scheduleAdmits();
    });
  }

  private scheduleAdmits(): void {
    if (this.admitScheduled || this.admitsInFlight >= ADMITS_IN_FLIGHT || !this.admits.length) return;
    if (this.hot >= HOT_IN_FLIGHT && !this.commitOverdue()) return;
    this.admitScheduled = true;
    this.hot++;
    setImmediate(() => {
      this.admitScheduled = false;
      this.admitsInFlight++;
      this.track(
        this.flushAdmits().finally(() => {
          this.admitsInFlight--;
          this.hot--;
          this.scheduleCharges();
          this.scheduleAdmits();
        }),
      );
    });
  }

  /**
   * Whether the commit batch at the database has been out HOT_WAIT_MS (the key checks then go
   * beside it); if not yet, a timer asks again when it will have been. Only a commit batch can
   * hold the hot slot when this is asked (an admit batch out returns before).
   */
  private commitOverdue(): boolean {
    if (!this.chargeInFlight) return false; // about to go: the admits follow it
    const waited = Date.now() - this.chargeOutAt;
    if (waited >= HOT_WAIT_MS) return true;
    if (!this.admitTimer && !this.closed) {
      this.admitTimer = setTimeout(() => {
        this.admitTimer = undefined;
        this.scheduleAdmits();
      }, HOT_WAIT_MS - waited);
      this.admitTimer.unref();
    }
    return false;
  }

  private async flushAdmits(): Promise<void> {
    const items = this.admits.splice(0);
    // The previous batch's callers (auth's touchKey calls) ran in the microtasks after it resolved.
    this.stamped.clear();
    if (!items.length) return;
    type Row = KeyRecord & { i: number; allowed: boolean | null; remaining: number | null; reset_ms: number | null; lim: number | null; window_ms: number | null };
    let rows: Row[];
    const query = () => this.guard.unsafe<Row[]>(ADMIT, [items.map((x) => x.hash), this.admitPolicies], { prepare: true });
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
    for (const r of rows) {
      const x = items[r.i - 1]!;
      if (r.id === null) {
        x.resolve({ key: undefined, decision: undefined });
        continue;
      }
      const key: KeyRecord = { id: r.id, account_id: r.account_id, prefix: r.prefix, environment: r.environment, revoked_at: r.revoked_at, plan: r.plan };
      if (r.revoked_at !== null) {
        x.resolve({ key, decision: undefined });
        continue;
      }
      if (r.allowed === null) {
        // A valid key without a window row (created by a version before server@3 while this one
        // ran): the per-key function creates the row and takes, as before.
        const policies = JSON.parse(this.admitPolicies) as RatePolicies;
        const policy = key.environment === 'test' ? policies.test : policies.live[key.plan];
        this.takeRate(key.id, policy).then((decision) => x.resolve({ key, decision }), x.reject);
        continue;
      }
      this.stamped.add(key.id);
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
  }

  // ---- rate limit, in the database

  async takeRate(keyId: string, policy: RatePolicy): Promise<RateDecision> {
    const [r] = await this.sql<{ allowed: boolean; remaining: number; reset_ms: number }[]>`
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

  // ---- quota holds

  async holdQuota(o: { accountId: string; period: string; credits: number; quota: number; nowMs: number; batchId?: string }): Promise<QuotaAnswer> {
    const [r] = o.batchId
      ? await this.sql<{ hold_id: number | null; used: number }[]>`
          SELECT hold_id, used FROM verity_hold_batch(${o.accountId}, ${o.period}, ${o.batchId}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`
      : await this.sql<{ hold_id: number | null; used: number }[]>`
          SELECT hold_id, used FROM verity_hold_quota(${o.accountId}, ${o.period}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`;
    this.maybePurge(o.nowMs);
    if (r!.hold_id === null) return { ok: false, used: Number(r!.used) };
    return { ok: true, hold: { id: String(r!.hold_id), accountId: o.accountId, credits: o.credits } };
  }

  async releaseHold(hold: QuotaHold): Promise<void> {
    await this.sql`DELETE FROM quota_holds WHERE id = ${hold.id}`;
  }

  // ---- idempotency (Stripe-style)

  async idempotencyBegin(accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin> {
    this.maybePurge(nowMs);
    const fresh = await this.sql`
      INSERT INTO idempotency (account_id, key, request_hash, state, created_at, lease_until)
      VALUES (${accountId}, ${key}, ${hash}, 'running', ${nowMs}, ${nowMs + RUNNING_LEASE_MS})
      ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'running', status = 0, body = '',
        created_at = excluded.created_at, lease_until = excluded.lease_until
      WHERE (idempotency.state = 'completed' AND idempotency.created_at < ${nowMs - IDEMPOTENCY_TTL_MS})
         OR (idempotency.state = 'running' AND idempotency.lease_until < ${nowMs})
      RETURNING 1`;
    if (fresh.count === 1) return { state: 'new' };
    const [row] = await this.sql<{ request_hash: string; state: string; status: number; body: string }[]>`
      SELECT request_hash, state, status, body FROM idempotency WHERE account_id = ${accountId} AND key = ${key}`;
    // Deleted in between (the first request failed): this one may run.
    if (!row) return this.idempotencyBegin(accountId, key, hash, nowMs);
    if (row.request_hash !== hash)
      throw new VerityError('VALIDATION_FAILED', 'This Idempotency-Key was already used with a different request', {
        details: [{ field: 'Idempotency-Key', issue: 'reused with a different method, path or body; use a new key' }],
      });
    if (row.state === 'running') return { state: 'running' };
    return { state: 'replay', response: { status: row.status, body: row.body } };
  }

  async idempotencyAbandon(accountId: string, key: string): Promise<void> {
    await this.sql`DELETE FROM idempotency WHERE account_id = ${accountId} AND key = ${key} AND state = 'running'`;
  }

  // ---- purging what nobody needs any more

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
  private maybePurge(nowMs: number): void {
    if (this.purging || this.closed || nowMs - this.lastPurge < PURGE_INTERVAL_MS) return;
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
          if (this.closed) return;
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

  // ---- the commit

  /**
   * Group commit, adaptive: charges wait while this process's previous batch is at the database
   * and then go together, so a busy process sends one larger transaction rather than many small
   * ones queued behind each other (one batch in flight per process). A batch is ONE transaction in
   * two round trips on one connection: BEGIN, the live accounts' usage locks and `COMMIT_BATCH`
   * (usage into one shard row per account, hold removals, idempotency records, which scopes have
   * webhook endpoints) pipelined; then the outbox rows and COMMIT pipelined. A charge whose outbox
   * function throws is undone inside the batch (its usage increment subtracted) and only its
   * caller fails; a database error fails the whole batch, and nothing of it is stored.
   */
  commitCharge(c: ChargeCommit): Promise<UsageTotals> {
    if (c.pgHook) return this.chargeAlone(c);
    return new Promise<UsageTotals>((resolve, reject) => {
      this.charges.push({ c, resolve, reject });
      this.scheduleCharges();
    });
  }

  private scheduleCharges(): void {
    if (this.chargeScheduled || this.chargeInFlight || this.hot >= HOT_IN_FLIGHT || !this.charges.length) return;
    this.chargeScheduled = true;
    this.hot++;
    setImmediate(() => {
      this.chargeScheduled = false;
      this.chargeInFlight = true;
      this.chargeOutAt = Date.now();
      // Key checks already waiting get their deadline now (commitOverdue).
      if (this.admits.length) this.scheduleAdmits();
      this.track(
        this.flushCharges().finally(() => {
          this.chargeInFlight = false;
          this.hot--;
          this.scheduleAdmits();
          this.scheduleCharges();
        }),
      );
    });
  }

  private async flushCharges(): Promise<void> {
    const items = this.charges.splice(0);
    if (!items.length) return;
    let outcomes: Outcome[];
    try {
      outcomes = await retryConflict(() => this.commitBatch(items.map((x) => x.c)));
    } catch (err) {
      for (const it of items) it.reject(err);
      return;
    }
    outcomes.forEach((o, i) => (o.ok ? items[i]!.resolve(o.usage) : items[i]!.reject(o.err)));
  }

  private async commitBatch(charges: ChargeCommit[]): Promise<Outcome[]> {
    // A batch carrying an idempotency record takes the transaction: COMMIT_ONE commits the record
    // `completed` before the outbox functions run, so a charge whose function threw would be taken
    // back only by a second statement — and a retry with the same key arriving in between would be
    // answered from a completed record of a request answered 500. In the transaction, no other
    // session sees the record `completed` before the outbox functions have run (a retry waits on
    // its row lock), and a failed charge's record is deleted in the same transaction.
    if (!this.foreignScopes && charges.every((c) => c.environment === 'test' && !c.hold && !c.idempotency)) {
      const now = Date.now();
      const scopes = [...new Set(charges.filter((c) => c.outbox).map((c) => `${c.accountId}/${c.environment}`))];
      if (!scopes.some((x) => (this.scopesWithEndpoints.get(x) ?? 0) > now)) {
        const done = await this.commitOne(charges, scopes);
        if (done) return done;
      }
    }
    return this.commitTransaction(charges);
  }

  /**
   * A test-usage batch in one statement (COMMIT_ONE), when none of its scopes has a webhook
   * endpoint: undefined (nothing written) when one has, and the batch must take the transaction.
   * The events are still computed from the totals: for the batch's own scopes they had no endpoint
   * to go to (dropped, as in the transaction); an outbox function that throws has its charge taken
   * back by a second statement (the charge fails; a batch with idempotency records never comes
   * here, see commitBatch); events for a scope that is not the charge's own (no hook of verity's
   * emits one) are queued in their own transaction right after, and from then on this process
   * commits every batch in a transaction.
   */
  private async commitOne(charges: ChargeCommit[], scopes: string[]): Promise<Outcome[] | undefined> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const rows = sumUsageRows(charges);
    const got = await this.commits.unsafe<Array<{ account_id: string | null; period: string; environment: string; total: number; scopes: string[] | null }>>(
      COMMIT_ONE,
      [...usageColumns(rows), shard, scopes] as never[],
      { prepare: true },
    );
    const gated = got.find((g) => g.scopes !== null);
    if (gated) {
      const until = Date.now() + SCOPE_WITH_ENDPOINTS_MS;
      for (const x of gated.scopes!) this.scopesWithEndpoints.set(x, until);
      if (this.scopesWithEndpoints.size > 10_000) this.scopesWithEndpoints.clear();
      return undefined;
    }
    const totals = chargeTotals(charges, got);
    const undo: Array<Promise<unknown>> = [];
    const foreign: OutboxEntry[] = [];
    const outcomes = charges.map((c, i): Outcome => {
      const after = totals[i]!;
      const usage = { before: after - c.credits, after };
      try {
        const own = `${c.accountId}/${c.environment}`;
        for (const e of c.outbox?.(usage) ?? []) if (e.scope !== own) foreign.push(e);
      } catch (err) {
        // (No idempotency record to delete: commitBatch sends batches with records to the transaction.)
        undo.push(this.sql`UPDATE usage SET credits = credits - ${c.credits}, requests = requests - 1
          WHERE account_id = ${c.accountId} AND period = ${c.period} AND environment = ${c.environment} AND shard = ${shard}`);
        return { ok: false, err };
      }
      return { ok: true, usage };
    });
    if (foreign.length) {
      this.foreignScopes = true;
      undo.push(this.commitFailure({ outbox: foreign }));
    }
    // The batch is committed: its charges' answers stand; a failure here is the server's to log.
    await Promise.all(undo).catch((err: unknown) => this.report(err));
    return outcomes;
  }

  private async commitTransaction(charges: ChargeCommit[]): Promise<Outcome[]> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const list = sumUsageRows(charges);
    const live = [...new Set(charges.filter((c) => c.environment === 'live').map((c) => `${c.accountId}/${c.period}`))];
    const ids = idempotencyRecords(charges);
    const scopes = [...new Set(charges.filter((c) => c.outbox).map((c) => `${c.accountId}/${c.environment}`))];

    const conn = await this.reserveCommits();
    let open = false;
    let gone = false;
    try {
      open = true;
      const [, , got] = await Promise.all([
        conn`BEGIN`,
        live.length ? lockLiveUsage(conn, live) : undefined,
        conn.unsafe<Array<{ account_id: string; period: string; environment: string; total: number; scopes: string[] | null }>>(
          COMMIT_BATCH,
          [
            ...usageColumns(list),
            shard,
            charges.filter((c) => c.hold).map((c) => Number(c.hold!.id)),
            ...idempotencyColumns(ids),
            scopes,
          ] as never[],
          { prepare: true },
        ),
      ]);
      const totals = chargeTotals(charges, got);
      const known = new Set(got[0]?.scopes ?? []);
      const now = Date.now();
      const writes: Array<Promise<unknown>> = [];
      const events: OutboxEntry[] = [];
      const outcomes = charges.map((c, i): Outcome => {
        const after = totals[i]!;
        const usage = { before: after - c.credits, after };
        try {
          events.push(...(c.outbox?.(usage) ?? []));
        } catch (err) {
          // (Its hold is gone with the batch's; the caller's release then finds nothing to release.)
          writes.push(conn`UPDATE usage SET credits = credits - ${c.credits}, requests = requests - 1
            WHERE account_id = ${c.accountId} AND period = ${c.period} AND environment = ${c.environment} AND shard = ${shard}`);
          return { ok: false, err };
        }
        return { ok: true, usage };
      });
      // A charge that failed keeps no idempotency record (the request was not answered as charged).
      for (const [i, o] of outcomes.entries()) {
        const r = charges[i]!.idempotency;
        if (!o.ok && r && ids.find((x) => x.r.accountId === r.accountId && x.r.key === r.key)?.c === charges[i])
          writes.push(conn`DELETE FROM idempotency WHERE account_id = ${r.accountId} AND key = ${r.key}`);
      }
      if (events.length) {
        // Scopes the batch did not guess (a plugin's own): asked inside the transaction.
        const unknown = [...new Set(events.map((e) => e.scope))].filter((x) => !scopes.includes(x));
        if (unknown.length)
          for (const r of await conn<{ account_id: string }[]>`
            SELECT DISTINCT account_id FROM webhook_endpoints WHERE account_id = ANY(${unknown}::text[]) AND deleted_at IS NULL`)
            known.add(r.account_id);
        for (const e of events) if (known.has(e.scope)) writes.push(enqueue(conn, e, now));
      }
      await Promise.all([...writes, conn`COMMIT`]);
      open = false;
      return outcomes;
    } catch (err) {
      // The connection is gone (a restart, a crash, a cut): its transaction died with it, and the
      // pool took the connection back when it closed. Neither ROLLBACK nor release() then: a
      // release hands the pool's connection — by now reconnecting for another caller — to the
      // open queue, where the next query would be written ahead of its StartupMessage.
      gone = connectionGone(err);
      if (open && !gone) await conn`ROLLBACK`.catch(() => undefined);
      throw err;
    } finally {
      if (!gone) conn.release();
    }
  }

  /**
   * The commit connection, reserved within RESERVE_TIMEOUT_MS. The driver can lose a reserve() whose
   * connect is cut twice (a restart just then: it is taken off the pool's queue for the second
   * attempt and dropped once the connection reads its types), and a reserve that never resolves
   * would hold this process's commit batches — every charged request — for ever. Late, it is
   * answered as a database that does not answer (503), and a connection that still comes is
   * released.
   */
  private async reserveCommits(): Promise<ReservedSql> {
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const reserving = this.commits.reserve();
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

  /**
   * A charge with a `pgHook` (a batch item's finish): its own transaction — usage, the hook, hold,
   * idempotency and outbox rows — so a hook that throws (the item's claim was lost) undoes only
   * this charge. Locks: the live account's usage lock first, then what the hook locks.
   */
  private async chargeAlone(c: ChargeCommit): Promise<UsageTotals> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const run = () =>
      this.sql.begin(async (tx) => {
        if (c.environment === 'live') await lockLiveUsage(tx, [`${c.accountId}/${c.period}`]);
        const [f] = await tx<{ total: number }[]>`
          WITH up AS (
            INSERT INTO usage AS u (account_id, period, environment, shard, credits, requests)
            VALUES (${c.accountId}, ${c.period}, ${c.environment}, ${shard}, ${c.credits}, 1)
            ON CONFLICT (account_id, period, environment, shard) DO UPDATE SET credits = u.credits + excluded.credits, requests = u.requests + 1
            RETURNING u.credits)
          SELECT up.credits + (SELECT coalesce(sum(o.credits), 0) FROM usage o
            WHERE o.account_id = ${c.accountId} AND o.period = ${c.period} AND o.environment = ${c.environment} AND o.shard <> ${shard}) AS total
          FROM up`;
        const after = Number(f!.total);
        const usage = { before: after - c.credits, after };
        await c.pgHook!(tx, usage);
        const entries = c.outbox?.(usage) ?? [];
        const now = Date.now();
        await Promise.all([...chargeSideWrites(tx, c), ...entries.map((e) => enqueue(tx, e, now))]);
        return usage;
      }) as Promise<UsageTotals>;
    return retryConflict(run);
  }

  async commitFailure(c: FailureCommit): Promise<void> {
    if (!c.outbox.length && !c.pgHook) return;
    await retryConflict(() =>
      this.sql.begin(async (tx) => {
        await c.pgHook?.(tx);
        const now = Date.now();
        await Promise.all(c.outbox.map((e) => enqueue(tx, e, now)));
      }),
    );
  }

  // ---- health

  async health(): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // Every connection the hot path uses: the pool, and the request guard's and commit batches'
      // own (a process whose commit connection cannot connect fails every test charge while the
      // pool still answers). Each takes one statement at a time, so this waits for the one out —
      // at most HEALTH_TIMEOUT_MS: a database that does not answer is down, and /healthz says so
      // in time for a load balancer's probe instead of hanging with it.
      const conns = [...new Set([this.sql, this.guard, this.commits])];
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('health check timed out'), { code: 'ETIMEDOUT' })), HEALTH_TIMEOUT_MS);
      });
      const checks = Promise.all(conns.map((c) => c`SELECT 1`));
      checks.catch(() => undefined); // settles after the deadline: nobody waits for it any more
      await Promise.race([checks, late]);
      this.degraded = undefined;
    } catch (err) {
      this.degraded = postgresFaultCause(err) ?? 'the database is not available';
    } finally {
      clearTimeout(timer);
    }
    return this.degraded;
  }

  noteFault(err: unknown): void {
    this.degraded = postgresFaultCause(err) ?? this.degraded;
  }

  faultCause(err: unknown): string | undefined {
    return postgresFaultCause(err);
  }

  async flush(): Promise<void> {
    if (this.touchTimer) {
      clearTimeout(this.touchTimer);
      this.writeTouches();
    }
    // Until nothing is queued or at the database (a batch that ends may start the next).
    while (this.pending.size || this.charges.length || this.admits.length || this.admitsInFlight) {
      await Promise.allSettled([...this.pending]);
      await new Promise((r) => setImmediate(r));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.admitTimer);
    this.admitTimer = undefined;
    await this.flush();
    await this.unlisten?.().catch(() => undefined);
    await this.sql.end({ timeout: 5 });
    if (this.guard !== this.sql) await this.guard.end({ timeout: 5 });
    if (this.commits !== this.sql) await this.commits.end({ timeout: 5 });
  }

  // ---- admin

  /** Imported on this path only: the batch tables live in this database (its `batches` migration). */
  async batchStore(): Promise<BatchesBeside> {
    const { createPostgresBatchStore } = await import('./batches.js');
    const store = createPostgresBatchStore(this.sql);
    return { store, saveIdempotency: (accountId, key, hash, response, nowMs) => store.stageIdempotency({ accountId, key, hash, response, nowMs }) };
  }

  private makeAdmin(): AdminStore {
    const sql = this.sql;
    // Last used: the later of a touch (api_keys) and the request guard's stamp on the window row
    // (server@4), both ISO-8601 UTC with milliseconds, so they compare as text.
    const KEY_SELECT = sql`SELECT k.id, k.account_id, a.name AS account_name, a.plan, k.name, k.environment, k.prefix, k.last4,
      k.created_at, greatest(k.last_used_at, (SELECT to_char(to_timestamp(r.used_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM rate_windows r WHERE r.key_id = k.id)) AS last_used_at,
      k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id`;
    const ensureAccount = async (tx: Tx, name: string, plan: string | undefined, now: Date): Promise<AccountRow> => {
      checkName('account', name);
      const wanted = plan === undefined ? undefined : checkPlan(plan);
      const row: AccountRow = { id: `acct_${randomBase62(16)}`, name, plan: wanted ?? 'starter', created_at: now.toISOString() };
      await tx`INSERT INTO accounts (id, name, plan, created_at) VALUES (${row.id}, ${name}, ${row.plan}, ${row.created_at}) ON CONFLICT (name) DO NOTHING`;
      const [existing] = await tx<AccountRow[]>`SELECT id, name, plan, created_at FROM accounts WHERE name = ${name} FOR UPDATE`;
      if (wanted && existing!.plan !== wanted) {
        await tx`UPDATE accounts SET plan = ${wanted} WHERE id = ${existing!.id}`;
        return { ...existing!, plan: wanted };
      }
      return existing!;
    };
    return {
      ensureAccount: (name, plan, now) => sql.begin((tx) => ensureAccount(tx, name, plan, now)) as Promise<AccountRow>,
      createKey: async (o) => {
        checkName('key', o.name);
        return sql.begin(async (tx) => {
          const [dup] = await tx`SELECT 1 FROM api_keys WHERE name = ${o.name}`;
          if (dup)
            throw new VerityError('VALIDATION_FAILED', `A key named "${o.name}" already exists`, {
              details: [{ field: 'name', issue: 'must be unique (revoked keys keep their name)' }],
            });
          if (o.plan !== undefined && !o.changePlan) {
            const wanted = checkPlan(o.plan);
            const [existing] = await tx<{ id: string; plan: string }[]>`SELECT id, plan FROM accounts WHERE name = ${o.account} FOR UPDATE`;
            if (existing && existing.plan !== wanted) {
              const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM api_keys WHERE account_id = ${existing.id} AND revoked_at IS NULL`;
              throw planChangeRefused(o.account, existing.plan, wanted, count?.n ?? 0);
            }
          }
          const account = await ensureAccount(tx, o.account, o.plan, o.now);
          const key = newKeyValue(o.environment);
          const row = {
            id: `key_${randomBase62(16)}`,
            account_id: account.id,
            name: o.name,
            environment: o.environment,
            prefix: keyPrefixOf(key),
            last4: key.slice(-4),
            created_at: o.now.toISOString(),
          };
          await tx`INSERT INTO api_keys (id, account_id, name, environment, prefix, last4, key_hash, created_at)
            VALUES (${row.id}, ${row.account_id}, ${row.name}, ${row.environment}, ${row.prefix}, ${row.last4}, ${hashKey(key)}, ${row.created_at})`;
          // Its rate window row from the start: the request guard's statement only updates.
          await tx`INSERT INTO rate_windows (key_id) VALUES (${row.id}) ON CONFLICT (key_id) DO NOTHING`;
          return { ...row, account_name: account.name, plan: account.plan, last_used_at: null, revoked_at: null, key };
        }) as Promise<CreatedKey>;
      },
      listKeys: async (o = {}) =>
        o.includeRevoked
          ? await sql<KeyRow[]>`${KEY_SELECT} ORDER BY k.created_at, k.name`
          : await sql<KeyRow[]>`${KEY_SELECT} WHERE k.revoked_at IS NULL ORDER BY k.created_at, k.name`,
      revokeKey: (nameOrPrefix, now) =>
        sql.begin(async (tx) => {
          let matches = await tx<KeyRow[]>`${KEY_SELECT} WHERE k.name = ${nameOrPrefix} FOR UPDATE OF k`;
          if (matches.length === 0) matches = await tx<KeyRow[]>`${KEY_SELECT} WHERE k.prefix = ${nameOrPrefix} FOR UPDATE OF k`;
          if (matches.length === 0) throw new VerityError('NOT_FOUND', `No key named or prefixed "${nameOrPrefix}" (see \`verity admin keys list\`)`);
          if (matches.length > 1)
            throw new VerityError('VALIDATION_FAILED', `"${nameOrPrefix}" matches ${matches.length} keys; revoke by name instead`, {
              details: matches.map((m) => ({ field: 'key', issue: `${m.name} (${m.prefix}…${m.last4})` })),
            });
          const key = matches[0]!;
          if (key.revoked_at) return key;
          const at = now.toISOString();
          await tx`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${key.id}`;
          return { ...key, revoked_at: at };
        }) as Promise<KeyRow>,
      listUsage: async (period) =>
        (
          await sql<UsageRow[]>`
            SELECT a.name AS account_name, a.plan, u.period, u.environment, sum(u.credits) AS credits, sum(u.requests) AS requests
            FROM usage u JOIN accounts a ON a.id = u.account_id WHERE u.period = ${period}
            GROUP BY a.name, a.plan, u.period, u.environment HAVING sum(u.requests) > 0 ORDER BY a.name, u.environment`
        ).map((r) => ({ ...r, credits: Number(r.credits), requests: Number(r.requests) })),
    };
  }

  // ---- webhook routes

  private makeWebhooks(): WebhookStore {
    const sql = this.sql;
    const endpointRow = async (tx: Tx, scope: string, id: string): Promise<EndpointRow> => {
      const [r] = await tx<EndpointRow[]>`
        SELECT id, account_id, url, events::text AS events, secret, created_at FROM webhook_endpoints
        WHERE id = ${id} AND account_id = ${scope} AND deleted_at IS NULL`;
      if (!r) throw new VerityError('NOT_FOUND', `No webhook ${id}`);
      return r;
    };
    const insert = async (tx: Tx, scope: string, input: unknown, now: Date): Promise<Webhook> => {
      const cfg = WebhookConfig.parse(input);
      const row: EndpointRow = {
        id: webhookId(),
        account_id: scope,
        url: cfg.url,
        events: JSON.stringify([...new Set(cfg.events)]),
        secret: cfg.secret ?? generateSecretValue(),
        created_at: now.toISOString(),
      };
      await tx`INSERT INTO webhook_endpoints (id, account_id, url, events, secret, created_at)
        VALUES (${row.id}, ${scope}, ${row.url}, ${row.events}::text::jsonb, ${row.secret}, ${row.created_at})`;
      return toWebhook(row, true);
    };
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
          await sql<EndpointRow[]>`SELECT id, account_id, url, events::text AS events, secret, created_at FROM webhook_endpoints
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
      rotate: async (scope, id, secret) => {
        const row = await endpointRow(sql, scope, id);
        if (secret !== undefined) WebhookConfig.shape.secret.parse(secret);
        row.secret = secret ?? generateSecretValue();
        await sql`UPDATE webhook_endpoints SET secret = ${row.secret} WHERE id = ${id}`;
        return toWebhook(row, true);
      },
      enqueueTest: async (scope, id, type, nowMs) => {
        const w = toWebhook(await endpointRow(sql, scope, id));
        const t = type ?? w.events[0]!;
        const ev = envelope(t, sampleData(t, new Date(nowMs)), new Date(nowMs));
        const ids = await sql.begin((tx) => enqueue(tx, { scope, event: ev }, nowMs, w.id));
        return { event: ev, deliveryId: (ids as number[])[0]! };
      },
      replay: (scope, eventIdValue, nowMs, webhook) =>
        sql.begin(async (tx) => {
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
        }) as Promise<{ event_id: string; deliveries: number }>,
      deliveryLog: async (scope, id, limit = 50) => {
        await endpointRow(sql, scope, id);
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
      },
    };
  }

  // ---- the worker's side

  private makeOutbox(): OutboxStore {
    const sql = this.sql;
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
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
      },
    };
  }
}

const rowKey = (c: { accountId: string; period: string; environment: string }): string => `${c.accountId}\0${c.period}\0${c.environment}`;

/** A batch's charges summed per usage row (an upsert may touch a row once per statement). */
function sumUsageRows(charges: ChargeCommit[]): Array<{ accountId: string; period: string; environment: string; credits: number; requests: number }> {
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
function usageColumns(rows: ReturnType<typeof sumUsageRows>): unknown[][] {
  return [rows.map((r) => r.accountId), rows.map((r) => r.period), rows.map((r) => r.environment), rows.map((r) => r.credits), rows.map((r) => r.requests)];
}

/** Idempotency records as the parallel arrays COMMIT_BATCH unnests. */
function idempotencyColumns(ids: ReturnType<typeof idempotencyRecords>): unknown[][] {
  return [
    ids.map((x) => x.r.accountId),
    ids.map((x) => x.r.key),
    ids.map((x) => x.r.hash),
    ids.map((x) => x.r.response.status),
    ids.map((x) => x.r.response.body),
    ids.map((x) => x.c.nowMs),
  ];
}

function idempotencyRecords(charges: ChargeCommit[]): Array<{ c: ChargeCommit; r: NonNullable<ChargeCommit['idempotency']> }> {
  const idem = new Map<string, { c: ChargeCommit; r: NonNullable<ChargeCommit['idempotency']> }>();
  for (const c of charges) if (c.idempotency) idem.set(`${c.idempotency.accountId}\0${c.idempotency.key}`, { c, r: c.idempotency });
  return [...idem.values()];
}

/** Each charge's total after it: its row's total after the batch, walked backwards over the row's charges. */
function chargeTotals(charges: ChargeCommit[], got: Array<{ account_id: string | null; period: string; environment: string; total: number }>): number[] {
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
async function retryConflict<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== '40P01' && code !== '40001') throw err;
    return run();
  }
}

/** The charge's hold removal and idempotency record, in the commit's transaction. */
function chargeSideWrites(tx: Tx, c: ChargeCommit): Array<Promise<unknown>> {
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

/**
 * One outbox entry in one statement: the event and one pending delivery per subscribed endpoint of
 * the scope (or only `onlyWebhook`); nothing when no endpoint subscribes, or when its `once`
 * threshold already fired this period. Returns the delivery ids.
 */
async function enqueue(tx: Tx, e: OutboxEntry, nowMs: number, onlyWebhook?: string): Promise<number[]> {
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
    )
    INSERT INTO webhook_deliveries (event_id, webhook_id, status, next_attempt_at, updated_at)
    SELECT event.id, targets.id, 'pending', ${nowMs}, ${nowMs} FROM event, targets
    RETURNING id`;
  return rows.map((r) => Number(r.id));
}
