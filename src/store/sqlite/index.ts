/**
 * The SQLite implementation of the server store (src/store/ports/index.ts): the embedded default
 * and the fast path. One `serve` process per file (src/store/sqlite/serve-lock.ts), so what must be exact
 * across requests can live in this process:
 * - rate windows in memory (src/domain/rate-limit.ts), quota holds as in-memory reservations;
 * - key rows cached, emptied when any connection changes keys (PRAGMA data_version for other
 *   processes, TEMP triggers for this connection);
 * - request-path writes (usage + idempotency + outbox, last-used times) share one commit per
 *   event-loop turn (src/store/sqlite/group-commit.ts); each caller's write is its own savepoint.
 * Statements are prepared once, when the store is opened.
 */
import { VerityError } from '../../api/errors.js';
import {
  createKey,
  ensureAccount,
  listKeys,
  listUsage,
  migrateServer,
  revokeKey,
} from './accounts.js';
import { createGroupCommit, type GroupCommit } from './group-commit.js';
import { endpointPresence, type EndpointPresence } from './endpoint-presence.js';
import { onWrites } from './write-listeners.js';
import { RateLimiter } from '../../domain/rate-limit.js';
import { createStorageHealth, storageFaultCause } from './storage-health.js';
import {
  createWebhook,
  deleteWebhook,
  deliveryLog,
  enqueueEvent,
  ensureWebhookSchema,
  getWebhook,
  listWebhooks,
  markThreshold,
  replayEvent,
  rotateSecret,
  enqueueTestEvent,
} from './webhooks.js';
import type { Database } from '../local/database.js';
import type {
  AdminStore,
  ChargeCommit,
  Claim,
  FailureCommit,
  IdempotencyBegin,
  KeyRecord,
  OutboxEntry,
  OutboxStore,
  QuotaAnswer,
  QuotaHold,
  RateDecision,
  RatePolicy,
  ServerStore,
  StoredResponse,
  SyncHotPath,
  UsageTotals,
  WebhookStore,
  BatchesBeside,
} from '../ports/index.js';
import { IDEMPOTENCY_TTL_MS, idempotencyMismatch } from '../../domain/idempotency.js';
import { createSqliteBatchStore } from './batches.js';
import { sqliteOutbox, writeOutbox } from './outbox.js';
import { sqliteEventStream, streamedScope } from './event-log.js';
import type { EventStreamStore } from '../ports/event-stream.js';

export { sqliteOutbox };


/** One account/period/environment's usage within a batch: `total` as of now, `credits`/`requests` not yet written. */
interface BatchUsage {
  accountId: string;
  period: string;
  environment: string;
  total: number;
  credits: number;
  requests: number;
}
/** Beyond this many cached keys the cache starts over (bounds memory, not correctness). */
const CACHE_MAX = 10_000;

/** Calls `listener` on this connection's writes to keys or accounts; returns the unsubscribe function. */
const onKeyWrites = (db: Database, listener: () => void): (() => void) =>
  onWrites(
    db,
    'verity_keys_changed',
    // Only the columns a lookup returns: last_used_at updates must not empty the cache.
    `CREATE TEMP TRIGGER IF NOT EXISTS verity_keys_upd AFTER UPDATE OF id, account_id, environment, prefix, key_hash, revoked_at
       ON main.api_keys BEGIN SELECT verity_keys_changed(); END;
     CREATE TEMP TRIGGER IF NOT EXISTS verity_keys_del AFTER DELETE ON main.api_keys BEGIN SELECT verity_keys_changed(); END;
     CREATE TEMP TRIGGER IF NOT EXISTS verity_accounts_upd AFTER UPDATE OF id, plan
       ON main.accounts BEGIN SELECT verity_keys_changed(); END;
     CREATE TEMP TRIGGER IF NOT EXISTS verity_accounts_del AFTER DELETE ON main.accounts BEGIN SELECT verity_keys_changed(); END;`,
    listener,
  );

export interface SqliteServerStoreOptions {
  /** The worker's clock in ms (due times of queued deliveries). */
  nowMs?: () => number;
  onBackgroundError?: (err: unknown) => void;
  label?: string;
}

/** One store per connection: the server and the webhook plugin must share its group commit. */
const stores = new WeakMap<Database, SqliteServerStore>();

/** The SQLite server store on an open connection (migrations applied); one instance per connection. */
export function sqliteServerStore(db: Database, o: SqliteServerStoreOptions = {}): SqliteServerStore {
  let s = stores.get(db);
  if (!s || s.closed) {
    s = new SqliteServerStore(db, o);
    stores.set(db, s);
  }
  return s;
}

export class SqliteServerStore implements ServerStore {
  readonly kind = 'sqlite' as const;
  readonly label: string;
  readonly admin: AdminStore;
  readonly webhooks: WebhookStore;
  readonly outbox: OutboxStore;
  readonly eventStream: EventStreamStore;
  readonly sync: SyncHotPath;
  closed = false;
  readonly writes: GroupCommit;
  private readonly find;
  private readonly touch;
  private readonly dataVersion;
  private readonly readUsage;
  private readonly addUsage;
  private readonly getIdem;
  private readonly putIdem;
  private readonly purgeIdem;
  private lastPurge = 0;
  private seenVersion: unknown;
  /** Whether any webhook endpoint is registered (endpoint-presence.ts); data_version checked once per batch. */
  private readonly endpoints: EndpointPresence;
  private batchVersionChecked = false;
  /** A charge of the batch being committed queued webhook deliveries (see afterBatch). */
  private deliveriesQueued = false;
  private readonly inSavepoint: (fn: () => number) => number;
  private readonly cache = new Map<string, KeyRecord>();
  /** Usage charged in the batch being committed, per account/period/environment (see commitCharge). */
  private readonly batchUsage = new Map<string, BatchUsage>();
  private readonly unsubscribe: () => void;
  private readonly limiter: RateLimiter;
  private limiterNow = 0;
  private readonly reserved = new Map<string, number>();
  private holdSeq = 0;
  private readonly released = new WeakSet<QuotaHold>();
  private readonly outboxListeners = new Set<() => void>();
  private readonly healthCheck;
  private readonly nowMs: () => number;

  constructor(
    readonly db: Database,
    o: SqliteServerStoreOptions = {},
  ) {
    this.label = o.label ?? 'sqlite';
    this.nowMs = o.nowMs ?? Date.now;
    migrateServer(db);
    ensureWebhookSchema(db);
    this.writes = createGroupCommit(db, o.onBackgroundError, {
      beforeCommit: () => this.writeBatchedUsage(),
      afterBatch: () => {
        this.batchUsage.clear();
        this.batchVersionChecked = false;
        // Deliveries were queued: wake the delivery worker once per batch, after its commit (were
        // the batch rolled back, the worker finds nothing new: harmless).
        if (this.deliveriesQueued) {
          this.deliveriesQueued = false;
          this.announce();
        }
      },
    });
    this.endpoints = endpointPresence(db);
    // Inside a batch's transaction this runs `fn` in a SAVEPOINT (rolled back alone on a throw).
    this.inSavepoint = db.transaction((fn: () => number) => fn());
    this.find = db.prepare(
      `SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
    );
    this.touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.readUsage = db.prepare('SELECT credits FROM usage WHERE account_id = ? AND period = ? AND environment = ?').pluck();
    // (No RETURNING: an upsert with RETURNING costs several times the plain upsert in SQLite.)
    this.addUsage = db.prepare(
      `INSERT INTO usage (account_id, period, environment, credits, requests) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (account_id, period, environment) DO UPDATE SET credits = credits + excluded.credits, requests = requests + excluded.requests`,
    );
    this.getIdem = db.prepare('SELECT request_hash, status, body, created_at FROM idempotency WHERE account_id = ? AND key = ?');
    this.putIdem = db.prepare(
      `INSERT INTO idempotency (account_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
         body = excluded.body, created_at = excluded.created_at`,
    );
    this.purgeIdem = db.prepare('DELETE FROM idempotency WHERE created_at < ?');
    this.seenVersion = this.dataVersion.get();
    this.unsubscribe = onKeyWrites(db, () => this.cache.clear());
    this.limiter = new RateLimiter(() => this.limiterNow);
    this.healthCheck = createStorageHealth(db);
    this.admin = this.makeAdmin();
    this.webhooks = this.makeWebhooks();
    this.outbox = this.makeOutbox();
    this.eventStream = sqliteEventStream(db);
    this.sync = { findKey: (h) => this.findKeySync(h), takeRate: (k, p, n) => this.takeRateSync(k, p, n) };
  }

  get sqlite(): Database {
    return this.db;
  }

  // ---- keys

  findKeySync(hash: string): KeyRecord | undefined {
    const version = this.dataVersion.get();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.cache.clear();
      this.endpoints.forget();
    }
    let row = this.cache.get(hash);
    if (row) return row;
    // Found rows only (revoked ones too): unknown keys are not cached, so guessing cannot fill memory.
    row = this.find.get(hash) as KeyRecord | undefined;
    if (row) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(hash, row);
    }
    return row;
  }

  async findKey(hash: string): Promise<KeyRecord | undefined> {
    return this.findKeySync(hash);
  }

  touchKey(keyId: string, at: Date): void {
    const iso = at.toISOString();
    this.writes.defer(() => this.touch.run(iso, keyId), { savepoint: false }); // one statement
  }

  // ---- rate limit: in memory, exact because one process owns the file

  takeRateSync(keyId: string, policy: RatePolicy, nowMs: number): RateDecision {
    this.limiterNow = nowMs;
    return this.limiter.take(keyId, policy);
  }

  async takeRate(keyId: string, policy: RatePolicy, nowMs: number): Promise<RateDecision> {
    return this.takeRateSync(keyId, policy, nowMs);
  }

  // ---- quota holds: in-memory reservations against the stored usage

  holdQuotaSync(o: { accountId: string; period: string; credits: number; quota: number }): QuotaAnswer {
    const pending = this.reserved.get(o.accountId) ?? 0;
    const used = (this.readUsage.get(o.accountId, o.period, 'live') as number | undefined) ?? 0;
    if (used + pending + o.credits > o.quota) return { ok: false, used };
    this.reserved.set(o.accountId, pending + o.credits);
    return { ok: true, hold: { id: `h${++this.holdSeq}`, accountId: o.accountId, credits: o.credits } };
  }

  async holdQuota(o: { accountId: string; period: string; credits: number; quota: number; nowMs: number }): Promise<QuotaAnswer> {
    return this.holdQuotaSync(o);
  }

  releaseHoldSync(hold: QuotaHold): void {
    // Idempotent: the commit releases a hold, and a route's cleanup may release it again.
    if (this.released.has(hold)) return;
    this.released.add(hold);
    const left = (this.reserved.get(hold.accountId) ?? hold.credits) - hold.credits;
    if (left > 0) this.reserved.set(hold.accountId, left);
    else this.reserved.delete(hold.accountId);
  }

  async releaseHold(hold: QuotaHold): Promise<void> {
    this.releaseHoldSync(hold);
  }

  // ---- idempotency: completed records only (one process: concurrent duplicates wait in memory)

  lookupIdempotency(accountId: string, key: string, hash: string, nowMs: number): StoredResponse | undefined {
    const row = this.getIdem.get(accountId, key) as { request_hash: string; status: number; body: string; created_at: number } | undefined;
    if (!row || row.created_at < nowMs - IDEMPOTENCY_TTL_MS) return undefined;
    if (row.request_hash !== hash) throw idempotencyMismatch();
    return { status: row.status, body: row.body };
  }

  async idempotencyBegin(accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin> {
    const r = this.lookupIdempotency(accountId, key, hash, nowMs);
    return r ? { state: 'replay', response: r } : { state: 'new' };
  }

  async idempotencyAbandon(): Promise<void> {
    // Nothing was written before the commit.
  }

  /** Inside the caller's transaction. */
  saveIdempotency(accountId: string, key: string, hash: string, res: StoredResponse, now: number): void {
    this.putIdem.run(accountId, key, hash, res.status, res.body, now);
    if (now - this.lastPurge > 3_600_000) {
      this.lastPurge = now;
      this.purgeIdem.run(now - IDEMPOTENCY_TTL_MS);
    }
  }

  // ---- the commit

  /**
   * The charge, in the next group commit. Usage is summed in memory over the batch and written
   * as one upsert per account/period/environment just before the batch commits (one statement
   * instead of one per request, and no savepoint for a charge that writes nothing else). Each
   * charge's before/after totals come from that running sum, seeded by one read per batch.
   * A charge with an `afterVerification` hook (which may read the usage table) writes the sums
   * so far and its own upsert first, inside its savepoint, so the table is current for the hook.
   */
  /** Inside a batch's transaction: whether any webhook endpoint is registered now. */
  private anyEndpoints(): boolean {
    // Another connection may have registered one since this connection last looked.
    if (!this.batchVersionChecked) {
      this.batchVersionChecked = true;
      const version = this.dataVersion.get();
      if (version !== this.seenVersion) {
        this.seenVersion = version;
        this.cache.clear();
        this.endpoints.forget();
      }
    }
    return this.endpoints.any();
  }

  commitCharge(c: ChargeCommit): Promise<UsageTotals> {
    const key = `${c.accountId}\0${c.period}\0${c.environment}`;
    // Events need a savepoint only when they may write rows; with no endpoint known, the check in
    // the transaction decides (and takes one itself if an endpoint appeared meanwhile).
    const savepointed = c.sqliteHook !== undefined || Boolean(c.idempotency) || (c.outbox !== undefined && this.endpoints.known() !== false);
    const apply = (usage: UsageTotals): void => {
      if (c.idempotency) this.saveIdempotency(c.idempotency.accountId, c.idempotency.key, c.idempotency.hash, c.idempotency.response, c.nowMs);
      if (!c.outbox) return;
      // No endpoint and no stream of this scope: no recipient; only once-per-period marks (credit
      // thresholds) are written. A streamed scope's events are logged even with no endpoint.
      const recipients = this.anyEndpoints() || streamedScope(this.db, `${c.accountId}/${c.environment}`, this.nowMs());
      const entries = recipients ? c.outbox(usage) : c.outbox(usage, { onceOnly: true }).filter((e) => e.once);
      if (!entries.length) return;
      const write = (): number => writeOutbox(this.db, entries, this.nowMs());
      if ((savepointed ? write() : this.inSavepoint(write)) > 0) this.deliveriesQueued = true;
    };
    const committed = c.sqliteHook
      ? this.writes.run((): UsageTotals => {
          const written = this.writeBatchedUsage();
          this.addUsage.run(c.accountId, c.period, c.environment, c.credits, 1);
          const after = this.readUsage.get(c.accountId, c.period, c.environment) as number;
          const usage = { before: after - c.credits, after };
          apply(usage);
          c.sqliteHook!(this.db, usage);
          // Only now (the hook did not throw): the sums are in the table, this charge too.
          for (const u of written) u.credits = u.requests = 0;
          this.batchUsage.set(key, { accountId: c.accountId, period: c.period, environment: c.environment, total: after, credits: 0, requests: 0 });
          return usage;
        })
      : this.writes.run(
          (): UsageTotals => {
            let u = this.batchUsage.get(key);
            if (!u) {
              const total = (this.readUsage.get(c.accountId, c.period, c.environment) as number | undefined) ?? 0;
              u = { accountId: c.accountId, period: c.period, environment: c.environment, total, credits: 0, requests: 0 };
              this.batchUsage.set(key, u);
            }
            const usage = { before: u.total, after: u.total + c.credits };
            apply(usage);
            // Counted once everything else of this charge went through (a throw above leaves no trace).
            u.total = usage.after;
            u.credits += c.credits;
            u.requests += 1;
            return usage;
          },
          // A charge without an idempotency record or events changes only memory until beforeCommit.
          { savepoint: savepointed },
        );
    // Nothing follows the commit of a charge without a hold (the delivery worker is woken by the
    // batch, after its commit: afterBatch): its promise as it is, rather than one more async step
    // per request.
    if (!c.hold) return committed;
    return committed.then((totals) => {
      this.releaseHoldSync(c.hold!);
      return totals;
    });
  }

  /** Writes the batch's summed charges (inside the batch transaction); returns the entries written. */
  private writeBatchedUsage(): BatchUsage[] {
    const written: BatchUsage[] = [];
    for (const u of this.batchUsage.values()) {
      if (u.requests === 0) continue;
      this.addUsage.run(u.accountId, u.period, u.environment, u.credits, u.requests);
      written.push(u);
    }
    return written;
  }

  async commitFailure(c: FailureCommit): Promise<void> {
    let queued = 0;
    await this.writes.run(() => {
      queued += writeOutbox(this.db, c.outbox, this.nowMs());
      c.sqliteHook?.(this.db);
    });
    if (queued) this.announce();
  }

  private announce(): void {
    for (const l of this.outboxListeners) l();
  }

  // ---- health

  async health(): Promise<string | undefined> {
    return this.healthCheck.check();
  }

  noteFault(err: unknown): void {
    this.healthCheck.noteFault(err);
  }

  faultCause(err: unknown): string | undefined {
    return storageFaultCause(err);
  }

  async flush(): Promise<void> {
    this.writes.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.writes.flush();
    this.closed = true;
    this.unsubscribe();
    this.endpoints.close();
    this.cache.clear();
  }

  // ---- the parts

  private makeAdmin(): AdminStore {
    const db = this.db;
    return {
      ensureAccount: async (name, plan, now) => ensureAccount(db, name, plan, now),
      createKey: async (o) => createKey(db, o),
      listKeys: async (o) => listKeys(db, o),
      revokeKey: async (nameOrPrefix, now) => revokeKey(db, nameOrPrefix, now),
      listUsage: async (period) => listUsage(db, period),
    };
  }

  private makeWebhooks(): WebhookStore {
    const db = this.db;
    return {
      create: async (scope, input, now, idem) => {
        if (!idem) return createWebhook(db, scope, input, now);
        return db.transaction(() => {
          const w = createWebhook(db, scope, input, now);
          this.saveIdempotency(idem.accountId, idem.key, idem.hash, idem.respond(w), now.getTime());
          return w;
        })();
      },
      get: async (scope, id) => getWebhook(db, scope, id),
      list: async (scope) => listWebhooks(db, scope),
      remove: async (scope, id, now) => deleteWebhook(db, scope, id, now),
      rotate: async (scope, id, secret, now) => rotateSecret(db, scope, id, secret, now),
      enqueueTest: async (scope, id, type, nowMs) => {
        const r = enqueueTestEvent(db, scope, id, type, nowMs);
        this.announce();
        return r;
      },
      replay: async (scope, eventId, nowMs, webhookId) => {
        const r = replayEvent(db, scope, eventId, nowMs, webhookId);
        this.announce();
        return r;
      },
      deliveryLog: async (scope, id, limit) => deliveryLog(db, scope, id, limit),
    };
  }

  async batchStore(): Promise<BatchesBeside> {
    return {
      store: createSqliteBatchStore(this.db, { transact: (fn) => this.writes.run(fn) }),
      saveIdempotency: (accountId, key, hash, response, nowMs) => this.saveIdempotency(accountId, key, hash, response, nowMs),
    };
  }

  private makeOutbox(): OutboxStore {
    return sqliteOutbox(this.db, this.outboxListeners);
  }
}
