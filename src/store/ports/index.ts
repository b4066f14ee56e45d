/**
 * The server's store interface: everything `verity serve` and the webhook worker keep between
 * requests, as one async contract with two implementations —
 * - SQLite (src/store/sqlite/index.ts): the embedded default, one process per file, the
 *   fast path (statements prepared once, group commit, windows and holds in memory because the
 *   serve lock guarantees one process);
 * - PostgreSQL (src/store/postgres/…): several `serve` / `worker` processes on one database, with
 *   rate windows, quota holds, idempotency records and outbox leases in the database.
 *
 * Routes and the worker only see this interface; the contract suite (test/unit/store/) runs the
 * same cases against both.
 */
import type { Plan } from '../../api/errors.js';
import type { EventEnvelope, EventType, Webhook } from '../../api/webhooks.js';
import type { TransactionSql } from 'postgres';
import type { Database } from '../local/database.js';
import type { BatchStore } from './batches.js';
import type { EventStreamStore } from './event-stream.js';
export type { AddResultOutcome, EventStreamStore, LoggedEvent, StreamResultInput, StreamSession } from './event-stream.js';

import type { KeyEnvironment } from '../../domain/keys.js';
export type { KeyEnvironment };

/** What authentication needs of a key row (revoked keys too: they answer "revoked"). */
export interface KeyRecord {
  id: string;
  account_id: string;
  prefix: string;
  environment: KeyEnvironment;
  revoked_at: string | null;
  plan: Plan;
}

import type { RateDecision, RatePolicies, RatePolicy } from '../../domain/rate-limit.js';
export type { RateDecision, RatePolicies, RatePolicy };

export interface StoredResponse {
  status: number;
  body: string;
}

/** One event for the outbox, for every endpoint of `scope` subscribed to its type. */
export interface OutboxEntry {
  scope: string;
  event: EventEnvelope;
  /** Queued only the first time this (scope, period, threshold) is seen (credit.threshold). */
  once?: { period: string; threshold: number };
}

/** What a store tells a charge's `outbox` function (ChargeCommit.outbox). */
export interface OutboxOptions {
  /** No webhook endpoint exists: only the entries with `once` are needed. */
  onceOnly?: boolean;
}

export interface UsageTotals {
  /**
   * The account's credits this period in this environment before and after the charge. Live totals
   * form one chain across every process (credit thresholds cross once); on a shared store, test
   * totals count the other processes' charges committed when this one's commit began (a chain
   * within one process).
   */
  before: number;
  after: number;
}

export interface QuotaHold {
  readonly id: string;
  readonly accountId: string;
  readonly credits: number;
}

export type QuotaAnswer = { ok: true; hold: QuotaHold } | { ok: false; used: number };

export interface IdempotencyRecordInput {
  accountId: string;
  key: string;
  hash: string;
  response: StoredResponse;
}

/** The commit of a successful verification: usage, idempotency record and outbox, all or nothing. */
export interface ChargeCommit {
  accountId: string;
  environment: KeyEnvironment;
  period: string;
  credits: number;
  /** The request's time (server clock): the idempotency record's age counts from it. */
  nowMs: number;
  /** The quota hold this charge turns into usage (deleted in the same transaction). */
  hold?: QuotaHold;
  idempotency?: IdempotencyRecordInput;
  /**
   * Computes the events from the usage totals, inside the transaction (pure, synchronous).
   * `o.onceOnly`: no webhook endpoint exists, so only the once-per-period entries (credit
   * thresholds, marked whether or not anyone receives them) are needed; others may be left out.
   */
  outbox?: (usage: UsageTotals, o?: OutboxOptions) => OutboxEntry[];
  /** SQLite only: a synchronous hook on the raw handle inside the same savepoint (legacy extension point). */
  sqliteHook?: (db: Database, usage: UsageTotals) => void;
  /**
   * PostgreSQL only: a step on the commit's transaction, run after the usage upsert and before the
   * outbox rows; when it throws, the charge is not committed (a charge with a hook gets its own
   * transaction, outside the group commit).
   */
  pgHook?: (tx: TransactionSql, usage: UsageTotals) => Promise<void>;
}

export interface FailureCommit {
  outbox: OutboxEntry[];
  sqliteHook?: (db: Database) => void;
  /** PostgreSQL only: a step in the same transaction as the outbox rows; throwing rolls it all back. */
  pgHook?: (tx: TransactionSql) => Promise<void>;
}

/** Stripe-style begin: a new request may run; a completed one is replayed; a running one conflicts. */
export type IdempotencyBegin = { state: 'new' } | { state: 'replay'; response: StoredResponse } | { state: 'running' };

export interface AccountRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
}

export interface KeyRow {
  id: string;
  account_id: string;
  account_name: string;
  plan: Plan;
  name: string;
  environment: KeyEnvironment;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreatedKey extends KeyRow {
  /** The full key: shown once, never stored. */
  key: string;
}

export interface UsageRow {
  account_name: string;
  plan: Plan;
  period: string;
  environment: KeyEnvironment;
  credits: number;
  requests: number;
}

/** `verity admin …`: accounts, keys and usage. */
export interface AdminStore {
  ensureAccount(name: string, plan: string | undefined, now: Date): Promise<AccountRow>;
  /** Refuses a --plan that differs from an existing account's unless `changePlan` (plans are per account). */
  createKey(o: { name: string; environment: KeyEnvironment; account: string; plan?: string; now: Date; changePlan?: boolean }): Promise<CreatedKey>;
  listKeys(o?: { includeRevoked?: boolean }): Promise<KeyRow[]>;
  revokeKey(nameOrPrefix: string, now: Date): Promise<KeyRow>;
  listUsage(period: string): Promise<UsageRow[]>;
}

export interface AttemptRecord {
  event_id: string;
  event_type: string;
  attempt: number;
  attempted_at: string;
  outcome: 'delivered' | 'failed' | 'lost';
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
}

export interface DeliveryState {
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivering' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
}

/** The /v1/webhooks routes' storage. `scope` is `<account>/<environment>`. */
export interface WebhookStore {
  /** With `idempotency`, the record is written in the same transaction as the endpoint. */
  create(scope: string, input: unknown, now: Date, idempotency?: Omit<IdempotencyRecordInput, 'response'> & { respond: (w: Webhook) => StoredResponse }): Promise<Webhook>;
  get(scope: string, id: string): Promise<Webhook>;
  list(scope: string): Promise<Webhook[]>;
  remove(scope: string, id: string, now: Date): Promise<void>;
  /** `now` starts a standard endpoint's overlap, when its previous secret still signs too. */
  rotate(scope: string, id: string, secret: string | undefined, now: Date): Promise<Webhook>;
  /** A sample event for one endpoint; returns the event and its delivery id. */
  enqueueTest(scope: string, id: string, type: EventType | undefined, nowMs: number): Promise<{ event: EventEnvelope; deliveryId: number }>;
  replay(scope: string, eventId: string, nowMs: number, webhookId?: string): Promise<{ event_id: string; deliveries: number }>;
  deliveryLog(scope: string, id: string, limit?: number): Promise<{ data: AttemptRecord[]; outstanding: DeliveryState[] }>;
}

export interface DueDelivery {
  id: number;
  event_id: string;
  webhook_id: string;
  url: string;
}

export interface Claim {
  id: number;
  event_id: string;
  event_type: string;
  webhook_id: string;
  url: string;
  secret: string;
  /** How the attempt is signed (the endpoint's scheme, read when claimed). */
  signature_scheme: 'verity' | 'standard';
  /** Standard scheme within a rotation's overlap: the previous secret also signs; else null. */
  previous_secret: string | null;
  body: string;
  attempt: number;
  /** Sent again by a replay: the attempt carries the replay header. */
  replay: boolean;
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

/** Per-endpoint limits the claim enforces when several workers share the outbox. */
export interface LaneLimits {
  ratePerSecond: number;
  rateWindowMs: number;
  minGapMs: number;
  maxInFlight: number;
}

/** A claim refused because the endpoint's shared limits are reached: try again at `retryAt`. */
export interface ClaimDeferred {
  deferred: true;
  retryAt: number;
}

/** The delivery worker's storage. */
export interface OutboxStore {
  /** True when other processes may claim from the same outbox (limits are then enforced in the claim). */
  readonly shared: boolean;
  due(nowMs: number, perEndpoint: number): Promise<DueDelivery[]>;
  nextDueAt(): Promise<number | undefined>;
  claim(id: number, nowMs: number, leaseMs: number, limits: LaneLimits): Promise<Claim | ClaimDeferred | undefined>;
  recordAttempt(claim: Claim, outcome: AttemptOutcome): Promise<void>;
  /** Gives claims back (graceful shutdown): due again at once, the attempt not counted. */
  release(claims: Claim[], nowMs: number): Promise<void>;
  outstanding(): Promise<number>;
  /** Called when events were queued (this process's commits, or another's NOTIFY). */
  subscribe(listener: () => void): () => void;
}

/**
 * Checks an implementation can answer in-process, without a promise (the SQLite fast path: the
 * request guard then runs as one synchronous callback, as before the interface existed).
 */
export interface SyncHotPath {
  findKey(hash: string): KeyRecord | undefined;
  takeRate(keyId: string, policy: RatePolicy, nowMs: number): RateDecision;
}

export interface ServerStore {
  readonly kind: 'sqlite' | 'postgres';
  /** For /healthz and logs: never a password. */
  readonly label: string;
  /** The SQLite handle (kind 'sqlite'), for legacy hooks and plugins that need it; else undefined. */
  readonly sqlite: Database | undefined;
  readonly admin: AdminStore;
  readonly webhooks: WebhookStore;
  readonly outbox: OutboxStore;
  /** The event stream's log and sessions (issue 29); undefined where a store has none. */
  readonly eventStream?: EventStreamStore;
  readonly sync?: SyncHotPath;

  findKey(hash: string): Promise<KeyRecord | undefined>;
  /**
   * Optional: the key look-up and, for a valid unrevoked key, the rate take under its policy, in
   * one step (one round trip to a database server). Stores without it get findKey + takeRate.
   */
  admit?(hash: string, policies: RatePolicies, nowMs: number): Promise<{ key: KeyRecord | undefined; decision: RateDecision | undefined }>;
  /** Best effort, batched: last-used time (at most about once a second per key). */
  touchKey(keyId: string, at: Date): void;
  takeRate(keyId: string, policy: RatePolicy, nowMs: number): Promise<RateDecision>;
  /**
   * `batchId`: the hold of a running batch's unfinished items. A shared store keeps one such hold
   * per batch, whichever process takes it (a new one replaces the last), and drops it when the
   * batch ends; a single-process store may ignore it.
   */
  holdQuota(o: { accountId: string; period: string; credits: number; quota: number; nowMs: number; batchId?: string }): Promise<QuotaAnswer>;
  releaseHold(hold: QuotaHold): Promise<void>;
  /** Throws VALIDATION_FAILED when the key was used with a different request. */
  idempotencyBegin(accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin>;
  /** The request failed: forget its running record so it can be retried. */
  idempotencyAbandon(accountId: string, key: string): Promise<void>;
  commitCharge(c: ChargeCommit): Promise<UsageTotals>;
  commitFailure(c: FailureCommit): Promise<void>;

  /** Undefined when healthy; otherwise the cause. */
  health(): Promise<string | undefined>;
  noteFault(err: unknown): void;
  /** A short cause when `err` is a storage fault of this store, else undefined. */
  faultCause(err: unknown): string | undefined;
  /** Commits deferred writes (shutdown, before close). */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * The batches component's store beside this one (same file or database, so an item's finish
   * commits with its charge); undefined where this store has none. Loaded on first use.
   */
  batchStore?(): Promise<BatchesBeside>;
}

/** The batch store beside a server store, and how a batch's Idempotency-Key record commits with it. */
export interface BatchesBeside {
  store: BatchStore;
  /** Writes the record in the same transaction as the stored batch (inside the create call). */
  saveIdempotency(accountId: string, key: string, hash: string, response: StoredResponse, nowMs: number): void;
}
