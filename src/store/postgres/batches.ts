/**
 * The PostgreSQL BatchStore (issues 15 + 16): batches and items in the server store's database
 * (tables from the `batches` migration component, src/store/postgres/migrations.ts), shared by
 * every `serve` process on it.
 *
 * Exactly once across processes: an item is claimed with FOR UPDATE SKIP LOCKED and a lease, and
 * finished only by the claim that holds it, in the transaction of its charge and outbox rows
 * (`finishStep().postgres`, run by the server store's `pgHook`). A process that dies leaves its
 * claims until their leases expire; any process's next claim takes them over (a shared store has
 * no "previous process" to hand back at start, so `recover` does nothing).
 *
 * Lock order, the same in every transaction, so none can deadlock: the live account's usage
 * advisory lock and the usage shard row (charge commits only), then the batch row, then its items.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { StoredResponse } from '../ports/index.js';
import {
  StaleBatchWrite,
  terminalStatus,
  type BatchRow,
  type BatchStore,
  type ClaimedItem,
  type ItemOutcome,
  type NewBatch,
  type NewItem,
  type ResultRow,
} from '../ports/batches.js';

type Tx = Sql | TransactionSql;

interface RawBatch extends Omit<BatchRow, 'metadata'> {
  metadata: string | null;
}

const toRow = ({ n: _n, ...r }: RawBatch & { n?: unknown }): BatchRow => ({
  ...r,
  metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, string>),
});

const ACTIVE = ['queued', 'running', 'cancelling'];

export interface IdempotencyToSave {
  accountId: string;
  key: string;
  hash: string;
  response: StoredResponse;
  nowMs: number;
}

export interface PostgresBatchStore extends BatchStore {
  /**
   * Called from `create`'s synchronous `within` (the route's idempotency save): the record is
   * written in the same transaction as the batch, right after `within` returns.
   */
  stageIdempotency(r: IdempotencyToSave): void;
}

/** The batch columns, as a fragment of the pool's queries. */
const columns = (sql: Sql) => sql`id, account_id, environment, key_id, key_prefix, type, status, total, succeeded, failed, cancelled,
    credits_reserved, credits_used, credits_settled, finished, metadata, created_at, completed_at`;

export function createPostgresBatchStore(sql: Sql): PostgresBatchStore {
  const COLS = columns(sql);

  const lockBatch = async (tx: Tx, id: string): Promise<BatchRow | undefined> => {
    const [r] = await tx<RawBatch[]>`SELECT ${COLS} FROM batches WHERE id = ${id} FOR UPDATE`;
    return r && toRow(r);
  };
  const unfinished = async (tx: Tx, id: string): Promise<number> => {
    const [r] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM batch_items WHERE batch_id = ${id} AND status IN ('queued','running')`;
    return r!.n;
  };

  /** Inside a transaction: the item's result and the batch's counters; StaleBatchWrite when the claim is gone. */
  async function finishTx(tx: Tx, item: ClaimedItem, outcome: ItemOutcome, nowIso: string): Promise<BatchRow> {
    if (!(await lockBatch(tx, item.batch_id))) throw new StaleBatchWrite('no such batch');
    const result = outcome.status === 'succeeded' ? outcome.result : null;
    const error = outcome.status === 'failed' ? JSON.stringify(outcome.error) : null;
    // The claim decides: when it is gone the transaction rolls back (the charge with it).
    const done = await tx`
      UPDATE batch_items SET status = ${outcome.status}, result = ${result}, error = ${error}, finished_at = ${nowIso},
        lease_owner = NULL, lease_until = NULL
      WHERE batch_id = ${item.batch_id} AND idx = ${item.index} AND status = 'running' AND lease_owner = ${item.owner}`;
    if (done.count !== 1) throw new StaleBatchWrite('the claim was lost');
    const ok = outcome.status === 'succeeded' ? 1 : 0;
    const [row] = await tx<RawBatch[]>`
      UPDATE batches SET finished = finished + 1, succeeded = succeeded + ${ok},
        failed = failed + ${outcome.status === 'failed' ? 1 : 0}, cancelled = cancelled + ${outcome.status === 'cancelled' ? 1 : 0},
        credits_used = credits_used + ${outcome.status === 'succeeded' ? outcome.credits : 0}, credits_settled = credits_settled + ${item.credits}
      WHERE id = ${item.batch_id} RETURNING ${COLS}`;
    await tx`UPDATE batch_items SET seq = ${row!.finished} WHERE batch_id = ${item.batch_id} AND idx = ${item.index}`;
    return toRow(row!);
  }

  /** Inside a transaction: the terminal status when nothing is unfinished (undefined otherwise). */
  async function endTx(tx: Tx, batchId: string, nowIso: string, seen?: BatchRow): Promise<BatchRow | undefined> {
    const b = await lockBatch(tx, batchId);
    const stale = (why: string): undefined => {
      if (seen) throw new StaleBatchWrite(why);
      return undefined;
    };
    if (!b || !ACTIVE.includes(b.status)) return stale('the batch already ended');
    if ((await unfinished(tx, batchId)) > 0) return stale('items are still unfinished');
    if (seen && (b.succeeded !== seen.succeeded || b.failed !== seen.failed || b.cancelled !== seen.cancelled)) return stale('the counts moved');
    const [row] = await tx<RawBatch[]>`
      UPDATE batches SET status = ${terminalStatus(b)}, completed_at = ${nowIso} WHERE id = ${batchId} RETURNING ${COLS}`;
    // The batch's credit hold (whichever process took it last) ends with the batch.
    await tx`DELETE FROM quota_holds WHERE batch_id = ${batchId}`;
    return toRow(row!);
  }

  const x: Ctx = { sql, COLS, staged: [], lockBatch, unfinished, finishTx, endTx };
  return { ...batchReads(x), ...itemWrites(x), ...batchWrites(x) };
}

/** What the parts of the store share: the pool, the column list, the staged idempotency records and the transaction steps. */
interface Ctx {
  sql: Sql;
  /** The batch columns as a query fragment (sql`…`). */
  COLS: ReturnType<typeof columns>;
  /** Idempotency records to write with the next created batch (stageIdempotency). */
  staged: IdempotencyToSave[];
  lockBatch(tx: Tx, id: string): Promise<BatchRow | undefined>;
  unfinished(tx: Tx, id: string): Promise<number>;
  finishTx(tx: Tx, item: ClaimedItem, outcome: ItemOutcome, nowIso: string): Promise<BatchRow>;
  endTx(tx: Tx, batchId: string, nowIso: string, seen?: BatchRow): Promise<BatchRow | undefined>;
}

function batchReads(x: Ctx): Pick<PostgresBatchStore, 'get' | 'list' | 'countActive' | 'active' | 'results'> {
  return {
    async get(scope, id) {
      const [r] = await x.sql<RawBatch[]>`SELECT ${x.COLS} FROM batches WHERE id = ${id} AND account_id = ${scope.accountId} AND environment = ${scope.environment}`;
      return r && toRow(r);
    },
    async list(scope, o) {
      const rows =
        o.before === undefined
          ? await x.sql<RawBatch[]>`SELECT ${x.COLS} FROM batches WHERE account_id = ${scope.accountId} AND environment = ${scope.environment}
              ORDER BY n DESC LIMIT ${o.limit}`
          : await x.sql<RawBatch[]>`SELECT ${x.COLS} FROM batches WHERE account_id = ${scope.accountId} AND environment = ${scope.environment}
              AND n < COALESCE((SELECT n FROM batches WHERE id = ${o.before} AND account_id = ${scope.accountId} AND environment = ${scope.environment}), 0)
              ORDER BY n DESC LIMIT ${o.limit}`;
      return rows.map(toRow);
    },
    async countActive(accountId) {
      const [r] = await x.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM batches WHERE account_id = ${accountId} AND status IN ('queued','running','cancelling')`;
      return r!.n;
    },
    async active() {
      const rows = await x.sql<Array<RawBatch & { plan: string }>>`
        SELECT b.id, b.account_id, b.environment, b.key_id, b.key_prefix, b.type, b.status, b.total, b.succeeded, b.failed, b.cancelled,
          b.credits_reserved, b.credits_used, b.credits_settled, b.finished, b.metadata, b.created_at, b.completed_at, a.plan
        FROM batches b JOIN accounts a ON a.id = b.account_id
        WHERE b.status IN ('queued','running','cancelling') ORDER BY b.n`;
      return rows.map(({ plan, ...r }) => ({ ...toRow(r), plan }));
    },
    async results(batchId, o) {
      const st = o.status ?? null;
      const rows = await x.sql<Array<Omit<ResultRow, 'error'> & { error: string | null }>>`
        SELECT seq, idx AS "index", custom_id, status, result, error FROM batch_items
        WHERE batch_id = ${batchId} AND seq > ${o.after} AND (${st}::text IS NULL OR status = ${st}::text) ORDER BY seq LIMIT ${o.limit}`;
      return rows.map((r) => ({ ...r, error: r.error === null ? null : (JSON.parse(r.error) as ResultRow['error']) }));
    },
  };
}

function itemWrites(x: Ctx): Pick<PostgresBatchStore, 'claim' | 'renew' | 'release' | 'recover' | 'finish' | 'finishStep'> {
  return {
    claim(batchId, owner, n, nowMs, leaseUntil) {
      return x.sql.begin(async (tx) => {
        const b = await x.lockBatch(tx, batchId);
        if (!b || n <= 0) return [];
        // Queued items, and running ones whose lease expired (their process died); rows another
        // transaction holds (a release, a renewal) are skipped, not waited for.
        const rows = await tx<ClaimedItem[]>`
          WITH picked AS (
            SELECT idx FROM batch_items
            WHERE batch_id = ${batchId} AND (status = 'queued' OR (status = 'running' AND lease_until < ${nowMs}))
            ORDER BY idx LIMIT ${n} FOR UPDATE SKIP LOCKED)
          UPDATE batch_items i SET status = 'running', lease_owner = ${owner}, lease_until = ${leaseUntil}, attempts = i.attempts + 1
          FROM picked WHERE i.batch_id = ${batchId} AND i.idx = picked.idx
          RETURNING i.batch_id, i.idx AS "index", i.custom_id, i.request, i.credits, i.lease_owner AS owner`;
        if (rows.length && b.status === 'queued') await tx`UPDATE batches SET status = 'running' WHERE id = ${batchId} AND status = 'queued'`;
        return [...rows].sort((a, c) => a.index - c.index);
      }) as Promise<ClaimedItem[]>;
    },
    async renew(owner, leaseUntil) {
      await x.sql`UPDATE batch_items SET lease_until = ${leaseUntil} WHERE lease_owner = ${owner} AND status = 'running'`;
    },
    async release(owner, items) {
      if (!items) return (await x.sql`UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE lease_owner = ${owner} AND status = 'running'`).count;
      if (!items.length) return 0;
      return (
        await x.sql`
          UPDATE batch_items i SET status = 'queued', lease_owner = NULL, lease_until = NULL
          FROM unnest(${items.map((x) => x.batch_id)}::text[], ${items.map((x) => x.index)}::int[]) AS t(batch_id, idx)
          WHERE i.batch_id = t.batch_id AND i.idx = t.idx AND i.lease_owner = ${owner} AND i.status = 'running'`
      ).count;
    },
    async recover() {
      // Other processes may be alive and running their claims: expired leases are taken over by `claim`.
      return 0;
    },
    finish(item, outcome, nowIso, within) {
      return (
        x.sql.begin(async (tx) => {
          const row = await x.finishTx(tx, item, outcome, nowIso);
          within?.(row);
          return true;
        }) as Promise<boolean>
      ).catch((err: unknown) => {
        if (err instanceof StaleBatchWrite) return false;
        throw err;
      });
    },
    finishStep: (item, outcome, nowIso) => ({ postgres: (tx) => x.finishTx(tx, item, outcome, nowIso) }),
  };
}

function batchWrites(x: Ctx): Pick<PostgresBatchStore, 'stageIdempotency' | 'create' | 'finalizeStep' | 'cancel' | 'finalize'> {
  return {
    stageIdempotency(r) {
      x.staged.push(r);
    },
    create(batch: NewBatch, items: NewItem[], within?: (row: BatchRow) => void) {
      return x.sql.begin(async (tx) => {
        const reserved = items.reduce((n, i) => n + i.credits, 0);
        const [raw] = await tx<RawBatch[]>`
          INSERT INTO batches (id, account_id, environment, key_id, key_prefix, type, status, total, credits_reserved, metadata, created_at)
          VALUES (${batch.id}, ${batch.scope.accountId}, ${batch.scope.environment}, ${batch.key_id}, ${batch.key_prefix}, ${batch.type},
            'queued', ${items.length}, ${reserved}, ${batch.metadata === null ? null : JSON.stringify(batch.metadata)}, ${batch.created_at})
          RETURNING ${x.COLS}`;
        if (items.length)
          await tx`
            INSERT INTO batch_items (batch_id, idx, custom_id, request, credits, status)
            SELECT ${batch.id}, t.i - 1, t.custom_id, t.request, t.credits, 'queued'
            FROM unnest(${items.map((i) => i.custom_id)}::text[], ${items.map((i) => i.request)}::text[], ${items.map((i) => i.credits)}::int[])
              WITH ORDINALITY AS t(custom_id, request, credits, i)`;
        const row = toRow(raw!);
        // `within` is synchronous: whatever it x.staged belongs to this batch.
        x.staged = [];
        within?.(row);
        const mine = x.staged;
        x.staged = [];
        for (const r of mine)
          await tx`
            INSERT INTO idempotency (account_id, key, request_hash, state, status, body, created_at, lease_until)
            VALUES (${r.accountId}, ${r.key}, ${r.hash}, 'completed', ${r.response.status}, ${r.response.body}, ${r.nowMs}, ${r.nowMs})
            ON CONFLICT (account_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'completed',
              status = excluded.status, body = excluded.body, created_at = excluded.created_at, lease_until = excluded.lease_until`;
        return row;
      }) as Promise<BatchRow>;
    },
    finalizeStep: (seen, nowIso) => ({ postgres: async (tx) => (await x.endTx(tx, seen.id, nowIso, seen))! }),
    cancel(scope, id, nowIso) {
      return x.sql.begin(async (tx) => {
        const [raw] = await tx<RawBatch[]>`
          SELECT ${x.COLS} FROM batches WHERE id = ${id} AND account_id = ${scope.accountId} AND environment = ${scope.environment} FOR UPDATE`;
        if (!raw) return undefined;
        const b = toRow(raw);
        // Again on a cancelling batch: items whose claims were released come back queued.
        if (!ACTIVE.includes(b.status)) return b;
        const queued = await tx<{ idx: number; credits: number }[]>`
          SELECT idx, credits FROM batch_items WHERE batch_id = ${id} AND status = 'queued' ORDER BY idx FOR UPDATE`;
        if (queued.length) {
          await tx`
            UPDATE batch_items i SET status = 'cancelled', seq = ${b.finished} + t.ord, finished_at = ${nowIso}
            FROM unnest(${queued.map((q) => q.idx)}::int[]) WITH ORDINALITY AS t(idx, ord)
            WHERE i.batch_id = ${id} AND i.idx = t.idx`;
          await tx`UPDATE batches SET finished = finished + ${queued.length}, cancelled = cancelled + ${queued.length},
            credits_settled = credits_settled + ${queued.reduce((n, q) => n + q.credits, 0)} WHERE id = ${id}`;
        }
        const [after] = await tx<RawBatch[]>`UPDATE batches SET status = 'cancelling' WHERE id = ${id} RETURNING ${x.COLS}`;
        return toRow(after!);
      }) as Promise<BatchRow | undefined>;
    },
    finalize(batchId, nowIso, within) {
      return x.sql.begin(async (tx) => {
        const row = await x.endTx(tx, batchId, nowIso);
        if (row) within?.(row);
        return row;
      }) as Promise<BatchRow | undefined>;
    },
  };
}
