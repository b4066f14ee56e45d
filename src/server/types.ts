/**
 * The server's extension interface: what `buildServer(deps)` accepts, and what a plugin (the
 * webhooks routes, the delivery worker) can rely on. Other components build against these types,
 * so they change only additively.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Plan, VerityError } from '../api/errors.js';
import type { VerificationKind } from '../api/ids.js';
import type { VerificationResult } from '../api/results.js';
import type { Clock, Engine } from '../engine/types.js';
import type { Database } from '../store/local/database.js';
import type { OutboxEntry, OutboxOptions, ServerStore } from '../store/ports/index.js';
import type { Idempotency } from './idempotency.js';

export type { KeyEnvironment } from '../domain/keys.js';
import type { KeyEnvironment } from '../domain/keys.js';

/** Set on `request.auth` by `requireAuth` (src/server/auth.ts). Never holds the key itself. */
export interface AuthInfo {
  accountId: string;
  keyId: string;
  /** Display prefix such as `vty_test_AbCd` (safe to log and show). */
  keyPrefix: string;
  plan: Plan;
  environment: KeyEnvironment;
}

/** Passed to `afterVerification`, inside the transaction that records the usage. */
export interface VerificationRecordedInfo {
  accountId: string;
  environment: KeyEnvironment;
  kind: VerificationKind;
  result: VerificationResult;
  creditsUsed: number;
  /**
   * The account's credits used this period in this environment, before and after this request.
   * Periods are calendar months (UTC). Only `live` usage counts against `monthlyQuota`, so only
   * live usage can cross a credit threshold; test-key usage is counted separately.
   */
  usageBefore: number;
  usageAfter: number;
  monthlyQuota: number;
  now: Date;
  /** Set when the verification was an item of a batch (issue 15): events carry both ids. */
  batch?: BatchItemRef;
}

/** A batch item's identity, carried into its events. */
export interface BatchItemRef {
  batch_id: string;
  custom_id: string;
}

/** Passed to `afterBatch` inside the transaction that marks a batch finished (issue 15). */
export interface BatchFinishedInfo {
  accountId: string;
  environment: KeyEnvironment;
  /** The batch as the API shows it (GET /v1/batches/{id}). */
  batch: Record<string, unknown> & { id: string; status: 'completed' | 'partial' | 'cancelled' };
  now: Date;
}

/** Passed to `afterFailure`: a verification that failed on our side or upstream (5xx). */
export interface VerificationFailedInfo {
  accountId: string;
  environment: KeyEnvironment;
  kind: VerificationKind;
  /** Id reserved for the failed request (same `vrf_<tag>_…` form as a result id). */
  requestId: string;
  error: VerityError;
  now: Date;
  /** Set when the verification was an item of a batch (issue 15). */
  batch?: BatchItemRef;
}

export type ServerPlugin = (app: FastifyInstance) => Promise<void>;

export interface BackgroundTask {
  /** Called once the server is listening. */
  start(): void;
  /** Called during graceful shutdown, after the listener stops and in-flight requests finish. */
  stop(): Promise<void>;
}

export interface ServerDeps {
  /** The server's store (SQLite or PostgreSQL, behind src/store/ports; opened by src/store/open.ts). */
  store: ServerStore;
  /** Engines per key environment: test keys get the sandbox, live keys the real engine. */
  engines: { live: Engine; test: Engine };
  /** Injected clock: rate-limit windows, idempotency expiry, usage periods, timestamps. */
  clock?: Clock;
  /** pino level for request logs (default `info`); `silent` for none. */
  logLevel?: string;
  /** Where request logs go (default: stderr). */
  logStream?: NodeJS.WritableStream;
  /** Where streamed batches' files wait for their items (server/batches/spool.ts); default: a private temp folder. */
  batchSpoolDir?: string;
  /** Registered after authentication is set up, so their routes can use `requireAuth`. */
  plugins?: ServerPlugin[];
  /**
   * Called SYNCHRONOUSLY inside the better-sqlite3 transaction that records a successful
   * verification's usage, so rows it writes (webhook outbox) commit atomically with it. It must
   * not do I/O other than on `db`; throwing rolls the usage back and the request fails with 500.
   */
  afterVerification?: (db: Database, info: VerificationRecordedInfo) => void;
  /** Likewise, in its own transaction, for a verification that failed with a 5xx error. */
  afterFailure?: (db: Database, info: VerificationFailedInfo) => void;
  /**
   * Store-neutral form (any store): the events to queue in the outbox, computed inside the commit
   * transaction from the usage totals (pure and synchronous; throwing rolls the charge back).
   */
  eventsAfterVerification?: (info: VerificationRecordedInfo, o?: OutboxOptions) => OutboxEntry[];
  /** Likewise for a verification that failed with a 5xx error. */
  eventsAfterFailure?: (info: VerificationFailedInfo) => OutboxEntry[];
  /** Likewise (legacy SQLite form), in the transaction that ends a batch. */
  afterBatch?: (db: Database, info: BatchFinishedInfo) => void;
  /** The events to queue when a batch ends (batch.completed / batch.partial), inside that commit. */
  eventsAfterBatch?: (info: BatchFinishedInfo) => OutboxEntry[];
  /** Started after listen, stopped during graceful shutdown (before the store closes). */
  background?: BackgroundTask;
  /** A request (headers and body) must arrive within this time (default 30 s), else 400. */
  requestTimeoutMs?: number;
  /** The request headers must arrive within this time (default 10 s, at most requestTimeoutMs), else 400 and closed (slowloris). */
  headersTimeoutMs?: number;
}

/** Decorated on the root instance as `app.verity`, visible to every plugin. */
export interface ServerContext {
  /** The SQLite handle when the store is SQLite; reading it on another store throws. */
  readonly db: Database;
  store: ServerStore;
  clock: Clock;
  /** Idempotency-Key handling (24 h per account), shared with the verify routes. */
  idempotency: Idempotency;
  /** Authenticates the Bearer key and sets `request.auth`; replies 401 otherwise. */
  requireAuth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Applies the key's rate limit (after requireAuth); replies 429 when over. */
  rateLimit: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    verity: ServerContext;
  }
  interface FastifyRequest {
    /** Set by requireAuth; null on routes that do not authenticate. */
    auth: AuthInfo | null;
  }
}
