/**
 * The batch store's interface (issue 15): batches and their items, behind an async API so a
 * PostgreSQL implementation can sit beside the SQLite one (src/store/sqlite/batches.ts).
 *
 * Exactly-once: an item is claimed with a lease (`owner`, `lease_until`) and finished only by the
 * claim that holds it (`finish` returns false otherwise); its charge and events are written by
 * `within`, in the same transaction that marks it finished, so "done", "charged" and "announced"
 * cannot disagree after a crash.
 *
 * The `within` callbacks run inside the store's transaction. In the SQLite implementation they
 * are synchronous better-sqlite3 calls on the same connection (the usage ledger and the webhook
 * outbox live in the same file); an implementation on another database passes its transaction.
 */
import type { VerificationKind } from '../../api/ids.js';
import type { TransactionSql } from 'postgres';
import type { Database } from '../local/database.js';

/**
 * A write that runs inside ANOTHER component's SQLite transaction (the server store's charge
 * commit, src/store/ports/index.ts `sqliteHook`), so the item's finish commits with its charge
 * and its events. A PostgreSQL BatchStore supplies the same steps on its transaction handle.
 */
export type SqliteStep<T> = (db: Database) => T;
/** The same write as a step of a PostgreSQL transaction (the server store's charge commit, `pgHook`). */
export type PgStep<T> = (tx: TransactionSql) => Promise<T>;
/** A step for whichever database the store lives in (exactly one of the two is set). */
export interface BatchStep<T> {
  sqlite?: SqliteStep<T>;
  postgres?: PgStep<T>;
}

/** Thrown by a step when its premise no longer holds (the claim was lost, the batch changed): the transaction rolls back. */
export class StaleBatchWrite extends Error {
  constructor(what: string) {
    super(`stale batch write: ${what}`);
    this.name = 'StaleBatchWrite';
  }
}

export type BatchStatus = 'queued' | 'running' | 'cancelling' | 'completed' | 'partial' | 'cancelled';
export const TERMINAL_STATUSES: readonly BatchStatus[] = ['completed', 'partial', 'cancelled'];
/** The terminal status of a batch with nothing left to run. */
export function terminalStatus(b: Pick<BatchRow, 'cancelled' | 'failed'>): BatchStatus {
  // A cancel that came after every item had started cancels nothing: the batch simply completes.
  return b.cancelled > 0 ? 'cancelled' : b.failed > 0 ? 'partial' : 'completed';
}
export type ItemStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface BatchScope {
  accountId: string;
  environment: 'live' | 'test';
}

export interface BatchRow {
  id: string;
  account_id: string;
  environment: 'live' | 'test';
  /** The key that created it (id and display prefix; never the key). */
  key_id: string;
  key_prefix: string;
  type: VerificationKind;
  status: BatchStatus;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  credits_reserved: number;
  credits_used: number;
  /** Credits of the items finished in any way (reserved minus settled is still held). */
  credits_settled: number;
  /** Items finished so far (the last completion sequence number handed out). */
  finished: number;
  metadata: Record<string, string> | null;
  created_at: string;
  completed_at: string | null;
}

export interface NewItem {
  custom_id: string;
  /** The item's request (without custom_id), as JSON text. */
  request: string;
  credits: number;
}

export interface NewBatch {
  id: string;
  scope: BatchScope;
  key_id: string;
  key_prefix: string;
  type: VerificationKind;
  metadata: Record<string, string> | null;
  created_at: string;
}

export interface ClaimedItem {
  batch_id: string;
  index: number;
  custom_id: string;
  request: string;
  credits: number;
  owner: string;
}

export type ItemOutcome =
  | { status: 'succeeded'; result: string; credits: number }
  | { status: 'failed'; error: { code: string; message: string } }
  | { status: 'cancelled' };

export interface ResultRow {
  seq: number;
  index: number;
  custom_id: string;
  status: 'succeeded' | 'failed' | 'cancelled';
  /** JSON text of the result (succeeded) */
  result: string | null;
  error: { code: string; message: string } | null;
}

export interface BatchStore {
  /** Stores the batch and all its items (status queued); `within` runs in the same transaction. */
  create(batch: NewBatch, items: NewItem[], within?: (row: BatchRow) => void): Promise<BatchRow>;
  get(scope: BatchScope, id: string): Promise<BatchRow | undefined>;
  /** Newest first; `before` is a batch id (the page continues after it). */
  list(scope: BatchScope, o: { limit: number; before?: string }): Promise<BatchRow[]>;
  /** Batches of this account (both environments) not yet terminal. */
  countActive(accountId: string): Promise<number>;
  /** Every batch not yet terminal, oldest first, with its account's current plan. */
  active(): Promise<Array<BatchRow & { plan: string }>>;
  /** Up to `n` queued (or lease-expired) items of the batch, claimed for `owner` until `leaseUntil`. */
  claim(batchId: string, owner: string, n: number, nowMs: number, leaseUntil: number): Promise<ClaimedItem[]>;
  /** Extends the leases of items this owner holds. */
  renew(owner: string, leaseUntil: number): Promise<void>;
  /** Hands items this owner holds back to the queue (graceful stop). */
  release(owner: string, items?: Array<{ batch_id: string; index: number }>): Promise<number>;
  /**
   * After a restart of a single-writer store: items claimed by an owner other than `owner` go back
   * to the queue at once (their process is gone). A shared store waits for the leases instead.
   */
  recover(owner: string): Promise<number>;
  /**
   * Marks a claimed item finished. False (and `within` not run) when the claim is no longer held,
   * so an item is finished, charged and announced once.
   */
  finish(item: ClaimedItem, outcome: ItemOutcome, nowIso: string, within?: (batch: BatchRow) => void): Promise<boolean>;
  /** `finish` as a step of another transaction; throws StaleBatchWrite when the claim is no longer held. */
  finishStep(item: ClaimedItem, outcome: ItemOutcome, nowIso: string): BatchStep<BatchRow>;
  /**
   * `finalize` as a step: sets the terminal status when nothing is unfinished and the counts are
   * still those of `seen` (the row the caller built the batch's event from); else StaleBatchWrite.
   */
  finalizeStep(seen: BatchRow, nowIso: string): BatchStep<BatchRow>;
  /** Queued items become cancelled; status → cancelling (or cancelled when nothing runs). */
  cancel(scope: BatchScope, id: string, nowIso: string): Promise<BatchRow | undefined>;
  /**
   * When no item is queued or running: the terminal status is set (once) and `within` runs in that
   * transaction with the final row. Undefined when the batch is not finished (or already was).
   */
  finalize(batchId: string, nowIso: string, within?: (batch: BatchRow) => void): Promise<BatchRow | undefined>;
  /** Finished items in completion order after `after` (a sequence number), optionally one status. */
  results(batchId: string, o: { after: number; status?: ResultRow['status']; limit: number }): Promise<ResultRow[]>;
}
