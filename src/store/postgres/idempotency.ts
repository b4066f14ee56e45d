/**
 * Idempotency-Key records in PostgreSQL (Stripe-style): a `running` record first, so a duplicate
 * from another process gets 409; `completed` with the response in the commit transaction
 * (usage.ts); taken over when completed past the TTL or running past its lease.
 */
import type { Sql } from 'postgres';
import { IDEMPOTENCY_TTL_MS, idempotencyMismatch } from '../../domain/idempotency.js';
import type { IdempotencyBegin } from '../ports/index.js';

/** A `running` idempotency record older than this (its process died) may be taken over. */
const RUNNING_LEASE_MS = 10 * 60_000;
export async function idempotencyBegin(sql: Sql, accountId: string, key: string, hash: string, nowMs: number): Promise<IdempotencyBegin> {
  const fresh = await sql`
    INSERT INTO idempotency (account_id, key, request_hash, state, created_at, lease_until)
    VALUES (${accountId}, ${key}, ${hash}, 'running', ${nowMs}, ${nowMs + RUNNING_LEASE_MS})
    ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'running', status = 0, body = '',
      created_at = excluded.created_at, lease_until = excluded.lease_until
    WHERE (idempotency.state = 'completed' AND idempotency.created_at < ${nowMs - IDEMPOTENCY_TTL_MS})
       OR (idempotency.state = 'running' AND idempotency.lease_until < ${nowMs})
    RETURNING 1`;
  if (fresh.count === 1) return { state: 'new' };
  const [row] = await sql<{ request_hash: string; state: string; status: number; body: string }[]>`
    SELECT request_hash, state, status, body FROM idempotency WHERE account_id = ${accountId} AND key = ${key}`;
  // Deleted in between (the first request failed): this one may run.
  if (!row) return idempotencyBegin(sql, accountId, key, hash, nowMs);
  if (row.request_hash !== hash)
    throw idempotencyMismatch();
  if (row.state === 'running') return { state: 'running' };
  return { state: 'replay', response: { status: row.status, body: row.body } };
}

export async function idempotencyAbandon(sql: Sql, accountId: string, key: string): Promise<void> {
  await sql`DELETE FROM idempotency WHERE account_id = ${accountId} AND key = ${key} AND state = 'running'`;
}
