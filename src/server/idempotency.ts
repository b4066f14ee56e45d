/**
 * Idempotency-Key (issue 3): a retried POST with the same key returns the first response and is
 * not charged again. Records are kept 24 h per account. The record is written in the same SQLite
 * transaction as the usage it charged (src/server/usage.ts), so "charged" and "remembered" cannot
 * disagree after a crash. Concurrent duplicates (a client retrying while the first attempt still
 * runs) wait for the first attempt in this process instead of running twice.
 */
import { createHash } from 'node:crypto';
import { VerityError } from '../api/errors.js';
import type { Clock } from '../engine/types.js';
import type { Database } from '../store/database.js';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface StoredResponse {
  status: number;
  body: string;
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (!KEY.test(key))
    throw new VerityError('VALIDATION_FAILED', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', {
      details: [{ field: 'Idempotency-Key', issue: '1 to 255 visible ASCII characters' }],
    });
}

export function createIdempotencyStore(db: Database, clock: Clock) {
  const get = db.prepare('SELECT request_hash, status, body, created_at FROM idempotency WHERE account_id = ? AND key = ?');
  const put = db.prepare(
    `INSERT INTO idempotency (account_id, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
       body = excluded.body, created_at = excluded.created_at`,
  );
  const purge = db.prepare('DELETE FROM idempotency WHERE created_at < ?');
  const inFlight = new Map<string, Promise<unknown>>();
  let lastPurge = 0;

  return {
    /** The stored response for this key, or undefined; a different request under the same key is refused. */
    lookup(accountId: string, key: string, hash: string): StoredResponse | undefined {
      const row = get.get(accountId, key) as { request_hash: string; status: number; body: string; created_at: number } | undefined;
      if (!row || row.created_at < clock.now().getTime() - IDEMPOTENCY_TTL_MS) return undefined;
      if (row.request_hash !== hash)
        throw new VerityError('VALIDATION_FAILED', 'This Idempotency-Key was already used with a different request', {
          details: [{ field: 'Idempotency-Key', issue: 'reused with a different method, path or body; use a new key' }],
        });
      return { status: row.status, body: row.body };
    },

    /** Inside the caller's transaction. */
    save(accountId: string, key: string, hash: string, res: StoredResponse): void {
      const now = clock.now().getTime();
      put.run(accountId, key, hash, res.status, res.body, now);
      if (now - lastPurge > 3_600_000) {
        lastPurge = now;
        purge.run(now - IDEMPOTENCY_TTL_MS);
      }
    },

    /** Runs `fn` unless the same account+key is already running here; then waits for that one first. */
    async exclusive<T>(accountId: string, key: string, fn: () => Promise<T>): Promise<T> {
      const id = `${accountId}\0${key}`;
      for (let running = inFlight.get(id); running; running = inFlight.get(id)) await running.catch(() => undefined);
      const p = fn();
      inFlight.set(id, p);
      try {
        return await p;
      } finally {
        if (inFlight.get(id) === p) inFlight.delete(id);
      }
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
