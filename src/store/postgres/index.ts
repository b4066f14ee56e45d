/**
 * The PostgreSQL implementation of the server store (src/store/ports/index.ts), for several
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
import type { Sql } from 'postgres';
import type {
  AdminStore,
  BatchesBeside,
  ChargeCommit,
  FailureCommit,
  IdempotencyBegin,
  KeyRecord,
  OutboxStore,
  QuotaAnswer,
  QuotaHold,
  RateDecision,
  RatePolicies,
  RatePolicy,
  ServerStore,
  UsageTotals,
  WebhookStore,
} from '../ports/index.js';
import { CONNECT_TIMEOUT_S, GENERIC_PLANS, HEALTH_TIMEOUT_MS, KEEP_ALIVE_S, openError, postgresFaultCause, reconnectDelaySeconds, redactDatabaseUrl, type PostgresStoreOptions } from './connection.js';
import { idempotencyAbandon, idempotencyBegin } from './idempotency.js';
import { findKey, postgresAdmin } from './keys.js';
import { migratePostgres } from './migrations.js';
import { postgresOutbox } from './outbox.js';
import { postgresEventStream } from './event-log.js';
import type { EventStreamStore } from '../ports/event-stream.js';
import { Purger } from './purge.js';
import { holdQuota, releaseHold } from './quota.js';
import { runAdmits, takeRate, type PendingAdmit } from './rate.js';
import { retryConflict, type Outcome } from './usage-sql.js';
import { UsageCommits } from './usage.js';
import { postgresWebhooks } from './webhooks.js';

export { connectionGone, HEALTH_TIMEOUT_MS, postgresFaultCause, reconnectDelaySeconds, redactDatabaseUrl, type PostgresStoreOptions } from './connection.js';

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

export async function openPostgresStore(o: PostgresStoreOptions): Promise<PostgresServerStore> {
  // The driver with its write-after-close fault fixed (./driver.ts): without the fix a database
  // restart killed the process (issue 28).
  const driver = await import('./driver.js');
  const postgres = driver.loadPostgres();
  // No deadline while the migrations run (one may take long on a big table); set after them.
  driver.setAnswerDeadline(undefined);
  const common = {
    onnotice: () => undefined,
    connect_timeout: CONNECT_TIMEOUT_S,
    keep_alive: KEEP_ALIVE_S,
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
    driver.setAnswerDeadline(o.answerTimeoutMs);
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

export class PostgresServerStore implements ServerStore {
  readonly kind = 'postgres' as const;
  readonly sqlite = undefined;
  readonly admin: AdminStore;
  readonly webhooks: WebhookStore;
  readonly outbox: OutboxStore;
  readonly eventStream: EventStreamStore;
  private readonly listeners = new Set<() => void>();
  private readonly eventListeners = new Set<(scope: string) => void>();
  private unlisten: (() => Promise<void>) | undefined;
  private unlistenEvents: (() => Promise<void>) | undefined;
  private degraded: string | undefined;
  private closed = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly usage: UsageCommits;
  private readonly purger: Purger;
  private admits: PendingAdmit[] = [];
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
  constructor(
    readonly sql: Sql,
    readonly label: string,
    private readonly onBackgroundError: (err: unknown) => void,
    /** The request guard's connection (see openPostgresStore); the main pool when not given. */
    private readonly guard: Sql = sql,
    /** The commit batches' connection (see openPostgresStore); the main pool when not given. */
    private readonly commits: Sql = sql,
  ) {
    this.admin = postgresAdmin(sql);
    this.webhooks = postgresWebhooks(sql);
    this.outbox = postgresOutbox(sql, this.listeners);
    this.eventStream = postgresEventStream(sql, this.eventListeners);
    this.usage = new UsageCommits(sql, commits, (err) => this.report(err));
    this.purger = new Purger(sql, () => this.closed, (p) => this.background(p), (err) => this.report(err));
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
    // The event streams of this process: a scope's events were logged by some process. After a
    // reconnection every scope is told (''), as notifications made meanwhile are lost.
    let firstEvents = true;
    const e = await this.sql.listen(
      'verity_events',
      (scope) => this.announceEvents(scope),
      () => {
        if (!firstEvents) this.announceEvents('');
        firstEvents = false;
      },
    );
    this.unlistenEvents = e.unlisten;
  }

  private announceEvents(scope: string): void {
    for (const l of this.eventListeners) {
      try {
        l(scope);
      } catch (err) {
        this.report(err);
      }
    }
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

  findKey(hash: string): Promise<KeyRecord | undefined> {
    return findKey(this.sql, hash);
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
    await runAdmits(this.guard, this.sql, items, this.admitPolicies, this.stamped);
  }

  // ---- rate limit, in the database

  takeRate(keyId: string, policy: RatePolicy): Promise<RateDecision> {
    return takeRate(this.sql, keyId, policy);
  }

  // ---- quota holds, idempotency (each drives the hourly purge: purge.ts)

  holdQuota(o: { accountId: string; period: string; credits: number; quota: number; nowMs: number; batchId?: string }): Promise<QuotaAnswer> {
    return holdQuota(this.sql, o).then((answer) => {
      this.purger.maybePurge(o.nowMs);
      return answer;
    });
  }

  releaseHold(hold: QuotaHold): Promise<void> {
    return releaseHold(this.sql, hold);
  }

  idempotencyBegin(accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin> {
    this.purger.maybePurge(nowMs);
    return idempotencyBegin(this.sql, accountId, key, hash, nowMs);
  }

  idempotencyAbandon(accountId: string, key: string): Promise<void> {
    return idempotencyAbandon(this.sql, accountId, key);
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
    if (c.pgHook) return this.usage.chargeAlone(c);
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
      outcomes = await retryConflict(() => this.usage.commitBatch(items.map((x) => x.c)));
    } catch (err) {
      for (const it of items) it.reject(err);
      return;
    }
    outcomes.forEach((o, i) => (o.ok ? items[i]!.resolve(o.usage) : items[i]!.reject(o.err)));
  }

  commitFailure(c: FailureCommit): Promise<void> {
    return this.usage.commitFailure(c);
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
    await this.unlistenEvents?.().catch(() => undefined);
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
}
