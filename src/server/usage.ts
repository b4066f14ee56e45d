/**
 * Credits and monthly quotas (DESIGN.md: claim 1, business 2 +1 officers +1 filings, document 3,
 * media 5; quotas 1k/10k/50k/250k per month). Only a successful verification is charged. Live
 * usage counts against the quota; test-key (sandbox) usage is counted apart and never blocks.
 *
 * Concurrency: credits of requests still running are held (ServerStore.holdQuota: in memory for
 * SQLite's single process, a table with expiry in PostgreSQL), so requests that together would
 * pass the quota cannot all start. The charge itself, the idempotency record and the outbox rows
 * commit in ONE transaction (ServerStore.commitCharge), before the caller's promise settles.
 */
import { VerityError } from '../api/errors.js';
import type { VerificationKind } from '../api/ids.js';
import { PLAN_LIMITS } from '../api/plans.js';
import type { VerificationResult } from '../api/results.js';
import type { Clock } from '../engine/types.js';
import type { QuotaHold, ServerStore, StoredResponse } from '../store/ports/index.js';
import { periodOf } from '../domain/keys.js';
import type { AuthInfo, ServerDeps, VerificationFailedInfo, VerificationRecordedInfo } from './types.js';

type Hooks = Pick<ServerDeps, 'afterVerification' | 'afterFailure' | 'eventsAfterVerification' | 'eventsAfterFailure'>;

export function createLedger(store: ServerStore, clock: Clock, hooks: Hooks) {
  if (!store.sqlite && (hooks.afterVerification || hooks.afterFailure))
    throw new TypeError('afterVerification/afterFailure write on a SQLite handle; with this store use eventsAfterVerification/eventsAfterFailure');

  return {
    /** Holds `credits` against the live quota, or fails with 402. Returns the hold (undefined for test keys). */
    async reserve(auth: AuthInfo, credits: number, batchId?: string): Promise<QuotaHold | undefined> {
      if (auth.environment !== 'live') return undefined;
      const quota = PLAN_LIMITS[auth.plan].monthlyCredits;
      const now = clock.now();
      const r = await store.holdQuota({ accountId: auth.accountId, period: periodOf(now), credits, quota, nowMs: now.getTime(), ...(batchId ? { batchId } : {}) });
      if (r.ok) return r.hold;
      // Retry when the next period starts (first day of next month, UTC).
      const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      throw new VerityError(
        'QUOTA_EXCEEDED',
        `The account's monthly credits are used up (${r.used} of ${quota} on the ${auth.plan} plan; this request needs ${credits})`,
        { retryAfter: Math.ceil((next - now.getTime()) / 1000) },
      );
    },

    release(hold: QuotaHold | undefined): Promise<void> {
      return hold ? store.releaseHold(hold) : Promise.resolve();
    },

    /**
     * Charges a successful verification; with an idempotency key, remembers the response too.
     * Resolves once all of it is committed; rejects (nothing stored) when a hook or the commit fails.
     * (The store's promise itself: no async step of its own on the request path.)
     */
    record(
      auth: AuthInfo,
      kind: VerificationKind,
      result: VerificationResult,
      hold: QuotaHold | undefined,
      replay?: { key: string; hash: string; response: StoredResponse },
    ): Promise<unknown> {
      const now = clock.now();
      const credits = result.credits_used;
      const info = (usage: { before: number; after: number }): VerificationRecordedInfo => ({
        accountId: auth.accountId,
        environment: auth.environment,
        kind,
        result,
        creditsUsed: credits,
        usageBefore: usage.before,
        usageAfter: usage.after,
        monthlyQuota: PLAN_LIMITS[auth.plan].monthlyCredits,
        now,
      });
      return store.commitCharge({
        accountId: auth.accountId,
        environment: auth.environment,
        period: periodOf(now),
        credits,
        nowMs: now.getTime(),
        hold,
        idempotency: replay && { accountId: auth.accountId, key: replay.key, hash: replay.hash, response: replay.response },
        outbox: hooks.eventsAfterVerification && ((usage, o) => hooks.eventsAfterVerification!(info(usage), o)),
        sqliteHook: hooks.afterVerification && ((db, usage) => hooks.afterVerification!(db, info(usage))),
      });
    },

    /** A verification that failed on our side or upstream: not charged; the hooks may record an event. */
    async recordFailure(auth: AuthInfo, kind: VerificationKind, requestId: string, error: VerityError): Promise<void> {
      if (!hooks.afterFailure && !hooks.eventsAfterFailure) return;
      const info: VerificationFailedInfo = { accountId: auth.accountId, environment: auth.environment, kind, requestId, error, now: clock.now() };
      await store.commitFailure({
        outbox: hooks.eventsAfterFailure?.(info) ?? [],
        sqliteHook: hooks.afterFailure && ((db) => hooks.afterFailure!(db, info)),
      });
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
