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
import type { Sql, TransactionSql } from 'postgres';
import { VerityError } from '../../api/errors.js';
import { webhookId } from '../../api/ids.js';
import { WebhookConfig, type EventEnvelope, type Webhook } from '../../api/webhooks.js';
import { checkName, checkPlan, hashKey, keyPrefixOf } from '../../server/accounts.js';
import { randomBase62 } from '../../api/ids.js';
import { envelope, sampleData } from '../../webhooks/events.js';
import { toWebhook, type EndpointRow } from '../../webhooks/repository.js';
import { MAX_ATTEMPTS } from '../../webhooks/schedule.js';
import { generateSecretValue } from '../../webhooks/secret-value.js';
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
} from '../server-store.js';
import { IDEMPOTENCY_TTL_MS } from '../sqlite-server-store.js';
import { migratePostgres } from './migrations.js';

/** A live request's credits stay held at most this long if its process dies. */
const HOLD_TTL_MS = 10 * 60_000;
/** A `running` idempotency record older than this (its process died) may be taken over. */
const RUNNING_LEASE_MS = 10 * 60_000;

type Tx = Sql | TransactionSql;

/** PostgreSQL / driver errors that mean "the store is unavailable", with a short cause. */
const PG_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'the database refuses connections',
  ECONNRESET: 'the database connection was reset',
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

export async function openPostgresStore(o: PostgresStoreOptions): Promise<PostgresServerStore> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(o.url, {
    max: o.poolSize ?? 10,
    onnotice: () => undefined,
    connect_timeout: 10,
    // bigint (int8) columns come back as JS numbers: every value here is far below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  });
  try {
    await sql`SELECT 1`;
    if (o.migrate !== false) await migratePostgres(sql);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    throw openError(err, o.url);
  }
  const store = new PostgresServerStore(sql, redactDatabaseUrl(o.url), o.onBackgroundError ?? (() => undefined));
  if (o.listen !== false) await store.startListening();
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
  private admitPolicies = '{}';
  private readonly touches = new Map<string, string>();
  private touchTimer: NodeJS.Timeout | undefined;
  private charges: Array<{ c: ChargeCommit; resolve: (u: UsageTotals) => void; reject: (err: unknown) => void }> = [];
  private chargeScheduled = false;

  constructor(
    readonly sql: Sql,
    readonly label: string,
    private readonly onBackgroundError: (err: unknown) => void,
  ) {
    this.admin = this.makeAdmin();
    this.webhooks = this.makeWebhooks();
    this.outbox = this.makeOutbox();
  }

  async startListening(): Promise<void> {
    const r = await this.sql.listen('verity_outbox', () => this.announce());
    this.unlisten = r.unlisten;
  }

  private announce(): void {
    for (const l of this.listeners) l();
  }

  private background(p: Promise<unknown>): void {
    this.pending.add(p);
    p.catch((err: unknown) => this.onBackgroundError(err)).finally(() => this.pending.delete(p));
  }

  // ---- keys

  async findKey(hash: string): Promise<KeyRecord | undefined> {
    const [row] = await this.sql<KeyRecord[]>`
      SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${hash}`;
    return row;
  }

  /** Last-used times are collected and written together, once a second, in one statement. */
  touchKey(keyId: string, at: Date): void {
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
    this.touches.clear();
    this.background(this.sql`UPDATE api_keys k SET last_used_at = t.at FROM unnest(${ids}::text[], ${ats}::text[]) AS t(id, at) WHERE k.id = t.id`);
  }

  /**
   * Key look-up and rate take in one round trip (`verity_admit`); no take for unknown or revoked
   * keys. The admits of one event-loop turn go out as ONE statement (one socket write: on this
   * machine's VM a write costs more than the query), answered row by row in order; takes of the
   * same key within it run one after another, as separate statements would.
   */
  admit(hash: string, policies: RatePolicies): Promise<{ key: KeyRecord | undefined; decision: RateDecision | undefined }> {
    return new Promise((resolve, reject) => {
      this.admits.push({ hash, resolve, reject });
      this.admitPolicies = JSON.stringify(policies);
      if (!this.admitScheduled) {
        this.admitScheduled = true;
        setImmediate(() => void this.flushAdmits());
      }
    });
  }

  private async flushAdmits(): Promise<void> {
    this.admitScheduled = false;
    // In hash order: every batch locks its keys' rate rows in the same order, so batches of
    // different processes cannot deadlock.
    const items = this.admits.splice(0).sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    if (!items.length) return;
    type Row = KeyRecord & { i: number; allowed: boolean | null; remaining: number | null; reset_ms: number | null; lim: number | null; window_ms: number | null };
    let rows: Row[];
    const query = () =>
      this.sql<Row[]>`
        SELECT h.i::int AS i, a.id, a.account_id, a.prefix, a.environment, a.revoked_at, a.plan, a.allowed, a.remaining, a.reset_ms, a.lim, a.window_ms
        FROM unnest(${items.map((x) => x.hash)}::text[]) WITH ORDINALITY AS h(hash, i)
        CROSS JOIN LATERAL verity_admit(h.hash, ${this.admitPolicies}::text::jsonb) AS a
        ORDER BY h.i`;
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
      if (r.allowed === null) {
        x.resolve({ key, decision: undefined });
        continue;
      }
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

  async holdQuota(o: { accountId: string; period: string; credits: number; quota: number; batchId?: string }): Promise<QuotaAnswer> {
    const [r] = o.batchId
      ? await this.sql<{ hold_id: number | null; used: number }[]>`
          SELECT hold_id, used FROM verity_hold_batch(${o.accountId}, ${o.period}, ${o.batchId}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`
      : await this.sql<{ hold_id: number | null; used: number }[]>`
          SELECT hold_id, used FROM verity_hold_quota(${o.accountId}, ${o.period}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`;
    if (r!.hold_id === null) return { ok: false, used: Number(r!.used) };
    return { ok: true, hold: { id: String(r!.hold_id), accountId: o.accountId, credits: o.credits } };
  }

  async releaseHold(hold: QuotaHold): Promise<void> {
    await this.sql`DELETE FROM quota_holds WHERE id = ${hold.id}`;
  }

  // ---- idempotency (Stripe-style)

  async idempotencyBegin(accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin> {
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

  // ---- the commit

  /**
   * Group commit, as on SQLite: the charges queued during one event-loop turn share ONE
   * transaction — their usage upserts pipelined (one round trip), then every idempotency record,
   * hold removal and outbox row pipelined (one more), then COMMIT — instead of four round trips
   * and a commit each. Rows are locked in a fixed order (account, period, environment), so two
   * processes' batches cannot deadlock on usage rows; a deadlock or serialization failure anyway
   * is retried once. A charge whose outbox function throws is undone inside the batch (its usage
   * increment subtracted) and only its caller fails; a database error fails the whole batch, and
   * nothing of it is stored.
   */
  commitCharge(c: ChargeCommit): Promise<UsageTotals> {
    if (c.pgHook) return this.chargeAlone(c);
    return new Promise<UsageTotals>((resolve, reject) => {
      this.charges.push({ c, resolve, reject });
      if (!this.chargeScheduled) {
        this.chargeScheduled = true;
        setImmediate(() => {
          const p = this.flushCharges();
          this.pending.add(p);
          void p.finally(() => this.pending.delete(p));
        });
      }
    });
  }

  private async flushCharges(): Promise<void> {
    this.chargeScheduled = false;
    const items = this.charges.splice(0);
    if (!items.length) return;
    const rowKey = (c: ChargeCommit): string => `${c.accountId}\0${c.period}\0${c.environment}`;
    items.sort((a, b) => (rowKey(a.c) < rowKey(b.c) ? -1 : rowKey(a.c) > rowKey(b.c) ? 1 : 0));
    // Which of the likely event scopes (`<account>/<environment>`, the webhook plugin's) have
    // endpoints, asked BEFORE the transaction: the usage rows are locked from the upsert to the
    // commit, and on a busy account every other process's batch waits for that lock, so nothing
    // that can be done before it is done inside it. Scopes not guessed are asked inside.
    const guessed = [...new Set(items.filter(({ c }) => c.outbox).map(({ c }) => `${c.accountId}/${c.environment}`))];
    const known = new Map<string, boolean>(guessed.map((g) => [g, false]));
    if (guessed.length)
      try {
        for (const r of await this.sql<{ account_id: string }[]>`
          SELECT DISTINCT account_id FROM webhook_endpoints WHERE account_id = ANY(${guessed}::text[]) AND deleted_at IS NULL`)
          known.set(r.account_id, true);
      } catch (err) {
        for (const it of items) it.reject(err);
        return;
      }
    const run = (): Promise<Array<{ ok: true; usage: UsageTotals } | { ok: false; err: unknown }>> =>
      this.sql.begin(async (tx) => {
        // One statement for the whole batch (one socket write, one round trip): the charges summed
        // per usage row, rows in lock order; each charge's running total is then derived from its
        // row's final total by walking the row's charges backwards.
        const rows = new Map<string, { accountId: string; period: string; environment: string; credits: number; requests: number }>();
        for (const { c } of items) {
          const k = rowKey(c);
          const r = rows.get(k) ?? { accountId: c.accountId, period: c.period, environment: c.environment, credits: 0, requests: 0 };
          r.credits += c.credits;
          r.requests += 1;
          rows.set(k, r);
        }
        const list = [...rows.values()];
        const finals = await tx<{ account_id: string; period: string; environment: string; credits: number }[]>`
          INSERT INTO usage (account_id, period, environment, credits, requests)
          SELECT * FROM unnest(${list.map((r) => r.accountId)}::text[], ${list.map((r) => r.period)}::text[], ${list.map((r) => r.environment)}::text[],
            ${list.map((r) => r.credits)}::bigint[], ${list.map((r) => r.requests)}::bigint[])
          ON CONFLICT (account_id, period, environment) DO UPDATE SET credits = usage.credits + excluded.credits, requests = usage.requests + excluded.requests
          RETURNING account_id, period, environment, credits`;
        const running = new Map(finals.map((f) => [`${f.account_id}\0${f.period}\0${f.environment}`, Number(f.credits)]));
        const totals: number[] = new Array(items.length);
        for (let i = items.length - 1; i >= 0; i--) {
          const k = rowKey(items[i]!.c);
          const after = running.get(k)!;
          totals[i] = after;
          running.set(k, after - items[i]!.c.credits);
        }
        const now = Date.now();
        const writes: Array<Promise<unknown>> = [];
        const events: OutboxEntry[] = [];
        const outcomes = items.map(({ c }, i): { ok: true; usage: UsageTotals } | { ok: false; err: unknown } => {
          const after = totals[i]!;
          const usage = { before: after - c.credits, after };
          let entries: OutboxEntry[];
          try {
            entries = c.outbox?.(usage) ?? [];
          } catch (err) {
            writes.push(tx`UPDATE usage SET credits = credits - ${c.credits}, requests = requests - 1
              WHERE account_id = ${c.accountId} AND period = ${c.period} AND environment = ${c.environment}`);
            return { ok: false, err };
          }
          writes.push(...chargeSideWrites(tx, c));
          events.push(...entries);
          return { ok: true, usage };
        });
        if (events.length) {
          // Which scopes have endpoints at all: one query for the batch instead of one per event
          // (the same snapshot rule as the per-event statement: endpoints committed before it).
          // An endpoint registered between that question and this commit may miss this batch's
          // events, as it would with any snapshot taken before the commit.
          const unknown = [...new Set(events.map((e) => e.scope))].filter((x) => !known.has(x));
          const live = new Set([...known].filter(([, has]) => has).map(([scope]) => scope));
          if (unknown.length)
            for (const r of await tx<{ account_id: string }[]>`
              SELECT DISTINCT account_id FROM webhook_endpoints WHERE account_id = ANY(${unknown}::text[]) AND deleted_at IS NULL`)
              live.add(r.account_id);
          for (const e of events) if (live.has(e.scope)) writes.push(enqueue(tx, e, now));
        }
        await Promise.all(writes);
        return outcomes;
      }) as Promise<Array<{ ok: true; usage: UsageTotals } | { ok: false; err: unknown }>>;
    let outcomes;
    try {
      try {
        outcomes = await run();
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== '40P01' && code !== '40001') throw err;
        outcomes = await run();
      }
    } catch (err) {
      for (const it of items) it.reject(err);
      return;
    }
    outcomes.forEach((o, i) => (o.ok ? items[i]!.resolve(o.usage) : items[i]!.reject(o.err)));
  }

  /**
   * A charge with a `pgHook` (a batch item's finish): its own transaction — usage upsert, the hook,
   * hold, idempotency and outbox rows — so a hook that throws (the item's claim was lost) undoes
   * only this charge. Locks: the usage row first, then what the hook locks (as in every commit).
   */
  private async chargeAlone(c: ChargeCommit): Promise<UsageTotals> {
    const run = () =>
      this.sql.begin(async (tx) => {
        const [f] = await tx<{ credits: number }[]>`
          INSERT INTO usage (account_id, period, environment, credits, requests)
          VALUES (${c.accountId}, ${c.period}, ${c.environment}, ${c.credits}, 1)
          ON CONFLICT (account_id, period, environment) DO UPDATE SET credits = usage.credits + excluded.credits, requests = usage.requests + 1
          RETURNING credits`;
        const after = Number(f!.credits);
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
    try {
      await this.sql`SELECT 1`;
      this.degraded = undefined;
    } catch (err) {
      this.degraded = postgresFaultCause(err) ?? 'the database is not available';
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
    await Promise.allSettled([...this.pending]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    await this.unlisten?.().catch(() => undefined);
    await this.sql.end({ timeout: 5 });
  }

  // ---- admin

  private makeAdmin(): AdminStore {
    const sql = this.sql;
    const KEY_SELECT = sql`SELECT k.id, k.account_id, a.name AS account_name, a.plan, k.name, k.environment, k.prefix, k.last4,
      k.created_at, k.last_used_at, k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id`;
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
          const account = await ensureAccount(tx, o.account, o.plan, o.now);
          const key = `vty_${o.environment}_${randomBase62(32)}`;
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
            SELECT a.name AS account_name, a.plan, u.period, u.environment, u.credits, u.requests
            FROM usage u JOIN accounts a ON a.id = u.account_id WHERE u.period = ${period} AND u.requests > 0 ORDER BY a.name, u.environment`
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
