/**
 * Credits and monthly quotas (DESIGN.md: claim 1, business 2 +1 officers +1 filings, document 3,
 * media 5; quotas 1k/10k/50k/250k per month). Only a successful verification is charged. Live
 * usage counts against the quota; test-key (sandbox) usage is counted apart and never blocks.
 *
 * Concurrency: credits of requests still running are reserved in memory, so two requests that
 * together would pass the quota cannot both start. The charge itself, the idempotency record and
 * the `afterVerification` hook (webhook outbox) commit in ONE SQLite savepoint of a group commit
 * (src/server/group-commit.ts): all or none of them, committed before the caller's promise settles.
 */
import { VerityError } from '../api/errors.js';
import type { VerificationKind } from '../api/ids.js';
import { PLAN_LIMITS } from '../api/plans.js';
import type { VerificationResult } from '../api/results.js';
import type { Clock } from '../engine/types.js';
import type { Database } from '../store/database.js';
import { periodOf } from './accounts.js';
import type { GroupCommit } from './group-commit.js';
import type { IdempotencyStore, StoredResponse } from './idempotency.js';
import type { AuthInfo, BatchItemRef, ServerDeps } from './types.js';

export function createLedger(
  db: Database,
  clock: Clock,
  idempotency: IdempotencyStore,
  hooks: Pick<ServerDeps, 'afterVerification' | 'afterFailure'>,
  writes: GroupCommit,
) {
  const read = db.prepare('SELECT credits FROM usage WHERE account_id = ? AND period = ? AND environment = ?').pluck();
  const add = db
    .prepare(
      `INSERT INTO usage (account_id, period, environment, credits, requests) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (account_id, period, environment) DO UPDATE SET credits = credits + excluded.credits, requests = requests + 1
       RETURNING credits`,
    )
    .pluck();
  const reserved = new Map<string, number>();

  const usedNow = (accountId: string, environment: string, period: string): number =>
    (read.get(accountId, period, environment) as number | undefined) ?? 0;

  /** The charge and the hook, synchronously inside the caller's transaction. */
  function charge(auth: AuthInfo, kind: VerificationKind, result: VerificationResult, batch?: BatchItemRef): void {
    const now = clock.now();
    const credits = result.credits_used;
    // One statement reads and writes: the total after this charge, hence the one before.
    const after = add.get(auth.accountId, periodOf(now), auth.environment, credits) as number;
    hooks.afterVerification?.(db, {
      accountId: auth.accountId,
      environment: auth.environment,
      kind,
      result,
      creditsUsed: credits,
      usageBefore: after - credits,
      usageAfter: after,
      monthlyQuota: PLAN_LIMITS[auth.plan].monthlyCredits,
      now,
      ...(batch ? { batch } : {}),
    });
  }

  return {
    /** Reserves `credits` against the live quota, or fails with 402. Returns the release function. */
    reserve(auth: AuthInfo, credits: number): () => void {
      if (auth.environment !== 'live') return () => undefined;
      const quota = PLAN_LIMITS[auth.plan].monthlyCredits;
      const now = clock.now();
      const pending = reserved.get(auth.accountId) ?? 0;
      const used = usedNow(auth.accountId, 'live', periodOf(now));
      if (used + pending + credits > quota) {
        // Retry when the next period starts (first day of next month, UTC).
        const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
        throw new VerityError(
          'QUOTA_EXCEEDED',
          `The account's monthly credits are used up (${used} of ${quota} on the ${auth.plan} plan; this request needs ${credits})`,
          { retryAfter: Math.ceil((next - now.getTime()) / 1000) },
        );
      }
      reserved.set(auth.accountId, pending + credits);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (reserved.get(auth.accountId) ?? credits) - credits;
        if (left > 0) reserved.set(auth.accountId, left);
        else reserved.delete(auth.accountId);
      };
    },

    /**
     * Charges a successful verification; with an idempotency key, remembers the response too.
     * Resolves once all of it is committed; rejects (nothing stored) when the hook or the commit fails.
     */
    record(
      auth: AuthInfo,
      kind: VerificationKind,
      result: VerificationResult,
      replay?: { key: string; hash: string; response: StoredResponse },
    ): Promise<void> {
      return writes.run(() => {
        charge(auth, kind, result);
        if (replay) idempotency.save(auth.accountId, replay.key, replay.hash, replay.response);
      });
    },

    /** For batch items (src/server/batches): the charge and its hook inside the caller's transaction. */
    chargeInTransaction: charge,

    /** A verification that failed on our side or upstream: not charged; the hook may record an event. */
    recordFailure(auth: AuthInfo, kind: VerificationKind, requestId: string, error: VerityError): Promise<void> {
      if (!hooks.afterFailure) return Promise.resolve();
      const now = clock.now();
      return writes.run(() => {
        hooks.afterFailure!(db, { accountId: auth.accountId, environment: auth.environment, kind, requestId, error, now });
      });
    },

    /** For batch items: the failure hook inside the caller's transaction. */
    failureInTransaction(auth: AuthInfo, kind: VerificationKind, requestId: string, error: VerityError, batch: BatchItemRef): void {
      hooks.afterFailure?.(db, { accountId: auth.accountId, environment: auth.environment, kind, requestId, error, now: clock.now(), batch });
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
