/**
 * Charges committed to PostgreSQL (usage, quota holds, idempotency records and outbox rows in one
 * transaction), for the store's group commit (index.ts schedules the batches): a test-usage batch
 * with no webhook endpoint in one statement, anything else in one transaction of two round trips,
 * a batch item's finish (`pgHook`) alone. Statements in usage-sql.ts.
 */
import type { Sql } from 'postgres';
import type { ChargeCommit, FailureCommit, OutboxEntry, UsageTotals } from '../ports/index.js';
import { connectionGone, reserveWithin } from './connection.js';
import { enqueue } from './outbox.js';
import {
  chargeSideWrites,
  chargeTotals,
  COMMIT_BATCH,
  COMMIT_ONE,
  idempotencyColumns,
  idempotencyRecords,
  lockLiveUsage,
  retryConflict,
  SCOPE_WITH_ENDPOINTS_MS,
  sumUsageRows,
  usageColumns,
  USAGE_SHARDS,
  type Outcome,
} from './usage-sql.js';

export class UsageCommits {
  /** Scopes found with webhook endpoints lately (until when): their batches go straight to the transaction. */
  private readonly scopesWithEndpoints = new Map<string, number>();
  /** An outbox function emitted an event for a scope not its charge's own: every batch takes the transaction. */
  private foreignScopes = false;

  constructor(
    private readonly sql: Sql,
    /** The commit batches' connection (one batch at the database per process). */
    private readonly commits: Sql,
    private readonly report: (err: unknown) => void,
  ) {}

  async commitBatch(charges: ChargeCommit[]): Promise<Outcome[]> {
    // A batch carrying an idempotency record takes the transaction: COMMIT_ONE commits the record
    // `completed` before the outbox functions run, so a charge whose function threw would be taken
    // back only by a second statement — and a retry with the same key arriving in between would be
    // answered from a completed record of a request answered 500. In the transaction, no other
    // session sees the record `completed` before the outbox functions have run (a retry waits on
    // its row lock), and a failed charge's record is deleted in the same transaction.
    if (!this.foreignScopes && charges.every((c) => c.environment === 'test' && !c.hold && !c.idempotency)) {
      const now = Date.now();
      const scopes = [...new Set(charges.filter((c) => c.outbox).map((c) => `${c.accountId}/${c.environment}`))];
      if (!scopes.some((x) => (this.scopesWithEndpoints.get(x) ?? 0) > now)) {
        const done = await this.commitOne(charges, scopes);
        if (done) return done;
      }
    }
    return this.commitTransaction(charges);
  }

  /**
   * A test-usage batch in one statement (COMMIT_ONE), when none of its scopes has a webhook
   * endpoint: undefined (nothing written) when one has, and the batch must take the transaction.
   * The events are still computed from the totals: for the batch's own scopes they had no endpoint
   * to go to (dropped, as in the transaction); an outbox function that throws has its charge taken
   * back by a second statement (the charge fails; a batch with idempotency records never comes
   * here, see commitBatch); events for a scope that is not the charge's own (no hook of verity's
   * emits one) are queued in their own transaction right after, and from then on this process
   * commits every batch in a transaction.
   */
  private async commitOne(charges: ChargeCommit[], scopes: string[]): Promise<Outcome[] | undefined> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const rows = sumUsageRows(charges);
    const got = await this.commits.unsafe<Array<{ account_id: string | null; period: string; environment: string; total: number; scopes: string[] | null }>>(
      COMMIT_ONE,
      [...usageColumns(rows), shard, scopes] as never[],
      { prepare: true },
    );
    const gated = got.find((g) => g.scopes !== null);
    if (gated) {
      const until = Date.now() + SCOPE_WITH_ENDPOINTS_MS;
      for (const x of gated.scopes!) this.scopesWithEndpoints.set(x, until);
      if (this.scopesWithEndpoints.size > 10_000) this.scopesWithEndpoints.clear();
      return undefined;
    }
    const totals = chargeTotals(charges, got);
    const undo: Array<Promise<unknown>> = [];
    const foreign: OutboxEntry[] = [];
    const outcomes = charges.map((c, i): Outcome => {
      const after = totals[i]!;
      const usage = { before: after - c.credits, after };
      try {
        const own = `${c.accountId}/${c.environment}`;
        for (const e of c.outbox?.(usage) ?? []) if (e.scope !== own) foreign.push(e);
      } catch (err) {
        // (No idempotency record to delete: commitBatch sends batches with records to the transaction.)
        undo.push(this.sql`UPDATE usage SET credits = credits - ${c.credits}, requests = requests - 1
          WHERE account_id = ${c.accountId} AND period = ${c.period} AND environment = ${c.environment} AND shard = ${shard}`);
        return { ok: false, err };
      }
      return { ok: true, usage };
    });
    if (foreign.length) {
      this.foreignScopes = true;
      undo.push(this.commitFailure({ outbox: foreign }));
    }
    // The batch is committed: its charges' answers stand; a failure here is the server's to log.
    await Promise.all(undo).catch((err: unknown) => this.report(err));
    return outcomes;
  }

  private async commitTransaction(charges: ChargeCommit[]): Promise<Outcome[]> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const list = sumUsageRows(charges);
    const live = [...new Set(charges.filter((c) => c.environment === 'live').map((c) => `${c.accountId}/${c.period}`))];
    const ids = idempotencyRecords(charges);
    const scopes = [...new Set(charges.filter((c) => c.outbox).map((c) => `${c.accountId}/${c.environment}`))];

    const conn = await reserveWithin(this.commits);
    let open = false;
    let gone = false;
    try {
      open = true;
      const [, , got] = await Promise.all([
        conn`BEGIN`,
        live.length ? lockLiveUsage(conn, live) : undefined,
        conn.unsafe<Array<{ account_id: string; period: string; environment: string; total: number; scopes: string[] | null }>>(
          COMMIT_BATCH,
          [
            ...usageColumns(list),
            shard,
            charges.filter((c) => c.hold).map((c) => Number(c.hold!.id)),
            ...idempotencyColumns(ids),
            scopes,
          ] as never[],
          { prepare: true },
        ),
      ]);
      const totals = chargeTotals(charges, got);
      const known = new Set(got[0]?.scopes ?? []);
      const now = Date.now();
      const writes: Array<Promise<unknown>> = [];
      const events: OutboxEntry[] = [];
      const outcomes = charges.map((c, i): Outcome => {
        const after = totals[i]!;
        const usage = { before: after - c.credits, after };
        try {
          events.push(...(c.outbox?.(usage) ?? []));
        } catch (err) {
          // (Its hold is gone with the batch's; the caller's release then finds nothing to release.)
          writes.push(conn`UPDATE usage SET credits = credits - ${c.credits}, requests = requests - 1
            WHERE account_id = ${c.accountId} AND period = ${c.period} AND environment = ${c.environment} AND shard = ${shard}`);
          return { ok: false, err };
        }
        return { ok: true, usage };
      });
      // A charge that failed keeps no idempotency record (the request was not answered as charged).
      for (const [i, o] of outcomes.entries()) {
        const r = charges[i]!.idempotency;
        if (!o.ok && r && ids.find((x) => x.r.accountId === r.accountId && x.r.key === r.key)?.c === charges[i])
          writes.push(conn`DELETE FROM idempotency WHERE account_id = ${r.accountId} AND key = ${r.key}`);
      }
      if (events.length) {
        // Scopes the batch did not guess (a plugin's own): asked inside the transaction.
        const unknown = [...new Set(events.map((e) => e.scope))].filter((x) => !scopes.includes(x));
        if (unknown.length)
          for (const r of await conn<{ account_id: string }[]>`
            SELECT DISTINCT account_id FROM webhook_endpoints WHERE account_id = ANY(${unknown}::text[]) AND deleted_at IS NULL`)
            known.add(r.account_id);
        for (const e of events) if (known.has(e.scope)) writes.push(enqueue(conn, e, now));
      }
      await Promise.all([...writes, conn`COMMIT`]);
      open = false;
      return outcomes;
    } catch (err) {
      // The connection is gone (a restart, a crash, a cut): its transaction died with it, and the
      // pool took the connection back when it closed. Neither ROLLBACK nor release() then: a
      // release hands the pool's connection — by now reconnecting for another caller — to the
      // open queue, where the next query would be written ahead of its StartupMessage.
      gone = connectionGone(err);
      if (open && !gone) await conn`ROLLBACK`.catch(() => undefined);
      throw err;
    } finally {
      if (!gone) conn.release();
    }
  }

  /**
   * A charge with a `pgHook` (a batch item's finish): its own transaction — usage, the hook, hold,
   * idempotency and outbox rows — so a hook that throws (the item's claim was lost) undoes only
   * this charge. Locks: the live account's usage lock first, then what the hook locks.
   */
  async chargeAlone(c: ChargeCommit): Promise<UsageTotals> {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    const run = () =>
      this.sql.begin(async (tx) => {
        if (c.environment === 'live') await lockLiveUsage(tx, [`${c.accountId}/${c.period}`]);
        const [f] = await tx<{ total: number }[]>`
          WITH up AS (
            INSERT INTO usage AS u (account_id, period, environment, shard, credits, requests)
            VALUES (${c.accountId}, ${c.period}, ${c.environment}, ${shard}, ${c.credits}, 1)
            ON CONFLICT (account_id, period, environment, shard) DO UPDATE SET credits = u.credits + excluded.credits, requests = u.requests + 1
            RETURNING u.credits)
          SELECT up.credits + (SELECT coalesce(sum(o.credits), 0) FROM usage o
            WHERE o.account_id = ${c.accountId} AND o.period = ${c.period} AND o.environment = ${c.environment} AND o.shard <> ${shard}) AS total
          FROM up`;
        const after = Number(f!.total);
        const usage = { before: after - c.credits, after };
        await c.pgHook!(tx, usage);
        const entries = c.outbox?.(usage) ?? [];
        const now = Date.now();
        await Promise.all([...chargeSideWrites(tx, c), ...entries.map((e) => enqueue(tx, e, now))]);
        return usage;
      }) as Promise<UsageTotals>;
    return retryConflict(run);
  }

  async commitFailure(c: FailureCommit): Promise<void> {
    if (!c.outbox.length && !c.pgHook) return;
    await retryConflict(() =>
      this.sql.begin(async (tx) => {
        await c.pgHook?.(tx);
        const now = Date.now();
        await Promise.all(c.outbox.map((e) => enqueue(tx, e, now)));
      }),
    );
  }
}
