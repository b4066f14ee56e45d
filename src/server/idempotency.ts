/**
 * Idempotency-Key (issue 3, Stripe-style): a retried POST with the same key returns the first
 * response and is not charged again. Records are kept 24 h per account and written in the same
 * transaction as the usage they charged (ServerStore.commitCharge), so "charged" and
 * "remembered" cannot disagree after a crash.
 *
 * Concurrent duplicates: within one process the second waits for the first and gets its answer;
 * across processes (PostgreSQL) the first holds a `running` record and a duplicate arriving
 * meanwhile is answered 409 CONFLICT with Retry-After. A failed request's record is dropped, so
 * it can be retried.
 */
import { createHash } from 'node:crypto';
import { VerityError } from '../api/errors.js';
import type { Clock } from '../engine/types.js';
import type { ServerStore, StoredResponse } from '../store/ports/index.js';

export type { StoredResponse } from '../store/ports/index.js';
export { checkIdempotencyKey, IDEMPOTENCY_TTL_MS, requestHash } from '../domain/idempotency.js';

export interface IdempotentOutcome extends StoredResponse {
  replayed: boolean;
}

export function createIdempotency(store: ServerStore, clock: Clock) {
  const inFlight = new Map<string, Promise<unknown>>();

  /** Runs `fn` unless the same account+key is already running here; then waits for that one first. */
  async function exclusive<T>(accountId: string, key: string, fn: () => Promise<T>): Promise<T> {
    const id = `${accountId}\0${key}`;
    for (let running = inFlight.get(id); running; running = inFlight.get(id)) await running.catch(() => undefined);
    const p = fn();
    inFlight.set(id, p);
    try {
      return await p;
    } finally {
      if (inFlight.get(id) === p) inFlight.delete(id);
    }
  }

  return {
    /**
     * Replays the stored answer, or runs `fn` — which must commit the record itself (with its
     * usage) through the store. A different request under the same key is refused (400).
     */
    run(accountId: string, key: string, hash: string, fn: () => Promise<StoredResponse>): Promise<IdempotentOutcome> {
      return exclusive(accountId, key, async () => {
        const begun = await store.idempotencyBegin(accountId, key, hash, clock.now().getTime());
        if (begun.state === 'replay') return { ...begun.response, replayed: true };
        if (begun.state === 'running')
          throw new VerityError('CONFLICT', 'A request with this Idempotency-Key is still running (in another server process); retry shortly', {
            retryAfter: 1,
            details: [{ field: 'Idempotency-Key', issue: 'the first request with this key has not finished yet' }],
          });
        try {
          return { ...(await fn()), replayed: false };
        } catch (err) {
          await store.idempotencyAbandon(accountId, key).catch(() => undefined);
          throw err;
        }
      });
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
