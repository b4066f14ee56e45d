/**
 * Quota holds in PostgreSQL: a live request's credits held (with an expiry, so a process killed
 * mid-request leaves nothing for long) while it runs, by `verity_hold_quota` / `verity_hold_batch`.
 */
import type { Sql } from 'postgres';
import type { QuotaAnswer, QuotaHold } from '../ports/index.js';

/** A live request's credits stay held at most this long if its process dies. */
const HOLD_TTL_MS = 10 * 60_000;
export async function holdQuota(sql: Sql, o: { accountId: string; period: string; credits: number; quota: number; nowMs: number; batchId?: string }): Promise<QuotaAnswer> {
  const [r] = o.batchId
    ? await sql<{ hold_id: number | null; used: number }[]>`
        SELECT hold_id, used FROM verity_hold_batch(${o.accountId}, ${o.period}, ${o.batchId}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`
    : await sql<{ hold_id: number | null; used: number }[]>`
        SELECT hold_id, used FROM verity_hold_quota(${o.accountId}, ${o.period}, ${o.credits}, ${o.quota}, ${HOLD_TTL_MS})`;
  if (r!.hold_id === null) return { ok: false, used: Number(r!.used) };
  return { ok: true, hold: { id: String(r!.hold_id), accountId: o.accountId, credits: o.credits } };
}

export async function releaseHold(sql: Sql, hold: QuotaHold): Promise<void> {
  await sql`DELETE FROM quota_holds WHERE id = ${hold.id}`;
}
