/**
 * Per-plan batch limits (issue 15; documented in docs/server.md "Batches"). Items of a batch run
 * with the plan's item concurrency, not under the per-minute request limit: creating a batch is
 * one request. `serverMaxConcurrency` bounds the items in flight across all batches of a server.
 */
import type { Plan } from '../../api/errors.js';

export interface BatchLimits {
  /** Items in one batch. */
  maxItems: number;
  /** Batches of one account not yet finished (queued, running or cancelling). */
  concurrentBatches: number;
  /** Items of one batch running at once. */
  itemConcurrency: number;
}

export const BATCH_LIMITS: Record<Plan, BatchLimits> = {
  starter: { maxItems: 1_000, concurrentBatches: 2, itemConcurrency: 4 },
  pro: { maxItems: 10_000, concurrentBatches: 5, itemConcurrency: 8 },
  business: { maxItems: 50_000, concurrentBatches: 10, itemConcurrency: 16 },
  enterprise: { maxItems: 100_000, concurrentBatches: 20, itemConcurrency: 32 },
};

/** Items in flight across all batches of one server. */
export const SERVER_MAX_CONCURRENCY = 64;

/** A custom_id: what a caller uses to match results to its own rows. */
export const CUSTOM_ID = /^[\x21-\x7e]{1,64}$/;

/** How long a claimed item is held before another worker may take it (renewed while it runs). */
export const ITEM_LEASE_MS = 60_000;

/** At most this many validation details are returned for one batch (the first ones by position). */
export const MAX_DETAILS = 100;

export const limitsFor = (plan: string): BatchLimits => BATCH_LIMITS[plan as Plan] ?? BATCH_LIMITS.starter;
