/**
 * The SQLite BatchStore: two tables in the store file, migrated as the `batches` component.
 * All calls are synchronous better-sqlite3 statements wrapped in promises; writes go through
 * `transact` (the server passes its group commit, so item completions of one event-loop turn
 * share a commit, each in its own savepoint).
 */
import { migrate, type Database } from '../local/database.js';
import { StaleBatchWrite, terminalStatus, type BatchRow, type BatchScope, type BatchStatus, type BatchStore, type ClaimedItem, type ItemOutcome, type NewBatch, type NewItem, type ResultRow } from '../ports/batches.js';

export { terminalStatus };

/** The batches component's schema, oldest step first (never edit a step once released). */
export const BATCH_MIGRATIONS: readonly string[] = [
  `CREATE TABLE batches (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     environment TEXT NOT NULL CHECK (environment IN ('live','test')),
     key_id TEXT NOT NULL,
     key_prefix TEXT NOT NULL,
     type TEXT NOT NULL CHECK (type IN ('claim','business','media','document')),
     status TEXT NOT NULL CHECK (status IN ('queued','running','cancelling','completed','partial','cancelled')),
     total INTEGER NOT NULL,
     succeeded INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     cancelled INTEGER NOT NULL DEFAULT 0,
     credits_reserved INTEGER NOT NULL,
     credits_used INTEGER NOT NULL DEFAULT 0,
     credits_settled INTEGER NOT NULL DEFAULT 0,
     finished INTEGER NOT NULL DEFAULT 0,
     metadata TEXT,
     created_at TEXT NOT NULL,
     completed_at TEXT
   );
   CREATE INDEX batches_by_account ON batches (account_id, environment, created_at);
   CREATE INDEX batches_active ON batches (status) WHERE status IN ('queued','running','cancelling');
   CREATE TABLE batch_items (
     batch_id TEXT NOT NULL REFERENCES batches (id),
     idx INTEGER NOT NULL,
     custom_id TEXT NOT NULL,
     request TEXT NOT NULL,
     credits INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),
     lease_owner TEXT,
     lease_until INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0,
     seq INTEGER,
     result TEXT,
     error TEXT,
     finished_at TEXT,
     PRIMARY KEY (batch_id, idx),
     UNIQUE (batch_id, custom_id)
   );
   CREATE INDEX batch_items_queue ON batch_items (batch_id, status, idx);
   CREATE UNIQUE INDEX batch_items_seq ON batch_items (batch_id, seq) WHERE seq IS NOT NULL;
   CREATE INDEX batch_items_owner ON batch_items (lease_owner) WHERE status = 'running';`,
];

export function migrateBatches(db: Database): void {
  migrate(db, 'batches', BATCH_MIGRATIONS);
}

interface RawBatch extends Omit<BatchRow, 'metadata'> {
  metadata: string | null;
}

const toRow = (r: RawBatch): BatchRow => ({ ...r, metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, string>) });

export interface SqliteBatchStoreOptions {
  /** Runs a write in a transaction; default: its own transaction, at once. */
  transact?: <T>(fn: () => T) => Promise<T>;
}

export function createSqliteBatchStore(db: Database, o: SqliteBatchStoreOptions = {}): BatchStore {
  migrateBatches(db);
  const own = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(db.transaction(fn)());
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const transact = o.transact ?? own;
  const s = batchStatements(db);
  const get = (id: string): BatchRow | undefined => {
    const r = s.byId.get(id) as RawBatch | undefined;
    return r && toRow(r);
  };
  const x: Ctx = { s, get, own, transact };
  return { ...batchReads(x), ...itemWrites(x), ...batchWrites(x) };
}

/** What the parts of the store share: the statements, a row by id, and the two ways to write. */
interface Ctx {
  s: Statements;
  get(id: string): BatchRow | undefined;
  /** Its own transaction, at once. */
  own<T>(fn: () => T): Promise<T>;
  /** The caller's transaction (the server's group commit), or its own. */
  transact<T>(fn: () => T): Promise<T>;
}

/** The store's prepared statements (prepared once per connection). */
function batchStatements(db: Database) {
  const COLS = `id, account_id, environment, key_id, key_prefix, type, status, total, succeeded, failed, cancelled,
    credits_reserved, credits_used, credits_settled, finished, metadata, created_at, completed_at`;
  return {
    insertBatch: db.prepare(
      `INSERT INTO batches (id, account_id, environment, key_id, key_prefix, type, status, total, credits_reserved, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
    ),
    insertItem: db.prepare(`INSERT INTO batch_items (batch_id, idx, custom_id, request, credits, status) VALUES (?, ?, ?, ?, ?, 'queued')`),
    byId: db.prepare(`SELECT ${COLS} FROM batches WHERE id = ?`),
    scoped: db.prepare(`SELECT ${COLS} FROM batches WHERE id = ? AND account_id = ? AND environment = ?`),
    list: db.prepare(
      `SELECT ${COLS} FROM batches WHERE account_id = ? AND environment = ? AND rowid < ? ORDER BY rowid DESC LIMIT ?`,
    ),
    rowidOf: db.prepare(`SELECT rowid FROM batches WHERE id = ? AND account_id = ? AND environment = ?`).pluck(),
    countActive: db.prepare(`SELECT count(*) FROM batches WHERE account_id = ? AND status IN ('queued','running','cancelling')`).pluck(),
    active: db.prepare(
      `SELECT ${COLS.split(',').map((c) => `b.${c.trim()}`).join(', ')}, a.plan FROM batches b JOIN accounts a ON a.id = b.account_id
       WHERE b.status IN ('queued','running','cancelling') ORDER BY b.rowid`,
    ),
    // Two index walks, not one OR (which made SQLite scan every item of the batch per claim).
    claimQueued: db.prepare(
      `UPDATE batch_items SET status = 'running', lease_owner = ?, lease_until = ?, attempts = attempts + 1
       WHERE batch_id = ? AND idx IN (SELECT idx FROM batch_items WHERE batch_id = ? AND status = 'queued' ORDER BY idx LIMIT ?)
       RETURNING batch_id, idx AS "index", custom_id, request, credits, lease_owner AS owner`,
    ),
    claimExpired: db.prepare(
      `UPDATE batch_items SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
       WHERE batch_id = ? AND idx IN (
         SELECT idx FROM batch_items WHERE batch_id = ? AND status = 'running' AND lease_until < ? ORDER BY idx LIMIT ?)
       RETURNING batch_id, idx AS "index", custom_id, request, credits, lease_owner AS owner`,
    ),
    markRunning: db.prepare(`UPDATE batches SET status = 'running' WHERE id = ? AND status = 'queued'`),
    renew: db.prepare(`UPDATE batch_items SET lease_until = ? WHERE lease_owner = ? AND status = 'running'`),
    releaseAll: db.prepare(`UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE lease_owner = ? AND status = 'running'`),
    releaseOne: db.prepare(
      `UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE batch_id = ? AND idx = ? AND lease_owner = ? AND status = 'running'`,
    ),
    recover: db.prepare(
      `UPDATE batch_items SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE status = 'running' AND lease_owner IS NOT ?`,
    ),
    nextSeq: db.prepare(`UPDATE batches SET finished = finished + 1 WHERE id = ? RETURNING finished`).pluck(),
    finish: db.prepare(
      `UPDATE batch_items SET status = ?, result = ?, error = ?, seq = ?, finished_at = ?, lease_owner = NULL, lease_until = NULL
       WHERE batch_id = ? AND idx = ? AND status = 'running' AND lease_owner = ?`,
    ),
    countOk: db.prepare(`UPDATE batches SET succeeded = succeeded + 1, credits_used = credits_used + ?, credits_settled = credits_settled + ? WHERE id = ?`),
    countFail: db.prepare(`UPDATE batches SET failed = failed + 1, credits_settled = credits_settled + ? WHERE id = ?`),
    countCancel: db.prepare(`UPDATE batches SET cancelled = cancelled + ?, credits_settled = credits_settled + ? WHERE id = ?`),
    queued: db.prepare(`SELECT idx, credits FROM batch_items WHERE batch_id = ? AND status = 'queued' ORDER BY idx`),
    cancelItem: db.prepare(`UPDATE batch_items SET status = 'cancelled', seq = ?, finished_at = ? WHERE batch_id = ? AND idx = ?`),
    setStatus: db.prepare(`UPDATE batches SET status = ? WHERE id = ?`),
    unfinished: db.prepare(`SELECT count(*) FROM batch_items WHERE batch_id = ? AND status IN ('queued','running')`).pluck(),
    terminal: db.prepare(`UPDATE batches SET status = ?, completed_at = ? WHERE id = ? AND status IN ('queued','running','cancelling')`),
    results: db.prepare(
      `SELECT seq, idx AS "index", custom_id, status, result, error FROM batch_items
       WHERE batch_id = ? AND seq > ? AND seq IS NOT NULL AND (? IS NULL OR status = ?) ORDER BY seq LIMIT ?`,
    ),
  };
}

type Statements = ReturnType<typeof batchStatements>;

/** Inside a transaction: the item's result and the batch's counters; StaleBatchWrite when the claim is gone. */
function finishStep(x: Ctx, item: ClaimedItem, outcome: ItemOutcome, nowIso: string): BatchRow {
  const seq = x.s.nextSeq.get(item.batch_id) as number | undefined;
  if (seq === undefined) throw new StaleBatchWrite('no such batch');
  const result = outcome.status === 'succeeded' ? outcome.result : null;
  const error = outcome.status === 'failed' ? JSON.stringify(outcome.error) : null;
  // The claim decides: when it is gone the caller's savepoint rolls back (the counter too).
  const changed = x.s.finish.run(outcome.status, result, error, seq, nowIso, item.batch_id, item.index, item.owner).changes;
  if (changed !== 1) throw new StaleBatchWrite('the claim was lost');
  if (outcome.status === 'succeeded') x.s.countOk.run(outcome.credits, item.credits, item.batch_id);
  else if (outcome.status === 'failed') x.s.countFail.run(item.credits, item.batch_id);
  else x.s.countCancel.run(1, item.credits, item.batch_id);
  return x.get(item.batch_id)!;
}

function batchReads(x: Ctx): Pick<BatchStore, 'get' | 'list' | 'countActive' | 'active' | 'results'> {
  return {
    async get(scope, id) {
      const r = x.s.scoped.get(id, scope.accountId, scope.environment) as RawBatch | undefined;
      return r && toRow(r);
    },
    async list(scope, o) {
      let below = Number.MAX_SAFE_INTEGER;
      if (o.before !== undefined) below = (x.s.rowidOf.get(o.before, scope.accountId, scope.environment) as number | undefined) ?? 0;
      return (x.s.list.all(scope.accountId, scope.environment, below, o.limit) as RawBatch[]).map(toRow);
    },
    async countActive(accountId) {
      return x.s.countActive.get(accountId) as number;
    },
    async active() {
      return (x.s.active.all() as Array<RawBatch & { plan: string }>).map((r) => ({ ...toRow(r), plan: r.plan }));
    },
    async results(batchId, o) {
      const st = o.status ?? null;
      return (x.s.results.all(batchId, o.after, st, st, o.limit) as Array<Omit<ResultRow, 'error'> & { error: string | null }>).map((r) => ({
        ...r,
        error: r.error === null ? null : (JSON.parse(r.error) as ResultRow['error']),
      }));
    },
  };
}

function itemWrites(x: Ctx): Pick<BatchStore, 'claim' | 'renew' | 'release' | 'recover' | 'finish' | 'finishStep'> {
  return {
    claim(batchId, owner, n, nowMs, leaseUntil) {
      // Through `transact`: claims share the commit of the results finished in the same loop turn.
      return x.transact(() => {
        const rows = x.s.claimExpired.all(owner, leaseUntil, batchId, batchId, nowMs, n) as ClaimedItem[];
        if (rows.length < n) rows.push(...(x.s.claimQueued.all(owner, leaseUntil, batchId, batchId, n - rows.length) as ClaimedItem[]));
        if (rows.length) x.s.markRunning.run(batchId);
        return rows.sort((a, b) => a.index - b.index);
      });
    },
    async renew(owner, leaseUntil) {
      x.s.renew.run(leaseUntil, owner);
    },
    release(owner, items) {
      return x.own(() => {
        if (!items) return x.s.releaseAll.run(owner).changes;
        let n = 0;
        for (const i of items) n += x.s.releaseOne.run(i.batch_id, i.index, owner).changes;
        return n;
      });
    },
    recover(owner) {
      return x.own(() => x.s.recover.run(owner).changes);
    },
    finish(item: ClaimedItem, outcome: ItemOutcome, nowIso: string, within?: (batch: BatchRow) => void) {
      return x.transact(() => {
        const row = finishStep(x, item, outcome, nowIso);
        within?.(row);
        return true;
      }).catch((err: unknown) => {
        if (err instanceof StaleBatchWrite) return false;
        throw err;
      });
    },
    finishStep: (item, outcome, nowIso) => ({ sqlite: () => finishStep(x, item, outcome, nowIso) }),
  };
}

function batchWrites(x: Ctx): Pick<BatchStore, 'create' | 'finalizeStep' | 'cancel' | 'finalize'> {
  return {
    create(batch: NewBatch, items: NewItem[], within?: (row: BatchRow) => void) {
      return x.transact(() => {
        const reserved = items.reduce((n, i) => n + i.credits, 0);
        x.s.insertBatch.run(
          batch.id,
          batch.scope.accountId,
          batch.scope.environment,
          batch.key_id,
          batch.key_prefix,
          batch.type,
          items.length,
          reserved,
          batch.metadata === null ? null : JSON.stringify(batch.metadata),
          batch.created_at,
        );
        items.forEach((item, i) => x.s.insertItem.run(batch.id, i, item.custom_id, item.request, item.credits));
        const row = x.get(batch.id)!;
        within?.(row);
        return row;
      });
    },
    finalizeStep: (seen, nowIso) => ({ sqlite: () => {
      const b = x.get(seen.id);
      if (!b || !['queued', 'running', 'cancelling'].includes(b.status)) throw new StaleBatchWrite('the batch already ended');
      if ((x.s.unfinished.get(seen.id) as number) > 0) throw new StaleBatchWrite('items are still unfinished');
      if (b.succeeded !== seen.succeeded || b.failed !== seen.failed || b.cancelled !== seen.cancelled) throw new StaleBatchWrite('the counts moved');
      x.s.terminal.run(terminalStatus(b), nowIso, seen.id);
      return x.get(seen.id)!;
    } }),
    cancel(scope, id, nowIso) {
      return x.own(() => {
        const r = x.s.scoped.get(id, scope.accountId, scope.environment) as RawBatch | undefined;
        if (!r) return undefined;
        // Again on a cancelling batch: items a previous process held come back queued after a restart.
        if (r.status === 'queued' || r.status === 'running' || r.status === 'cancelling') {
          const queued = x.s.queued.all(id) as Array<{ idx: number; credits: number }>;
          for (const q of queued) x.s.cancelItem.run(x.s.nextSeq.get(id) as number, nowIso, id, q.idx);
          if (queued.length) x.s.countCancel.run(queued.length, queued.reduce((n, q) => n + q.credits, 0), id);
          x.s.setStatus.run('cancelling' satisfies BatchStatus, id);
        }
        return x.get(id);
      });
    },
    finalize(batchId, nowIso, within) {
      return x.transact(() => {
        const b = x.get(batchId);
        if (!b || !['queued', 'running', 'cancelling'].includes(b.status)) return undefined;
        if ((x.s.unfinished.get(batchId) as number) > 0) return undefined;
        x.s.terminal.run(terminalStatus(b), nowIso, batchId);
        const row = x.get(batchId)!;
        within?.(row);
        return row;
      });
    },
  };
}

export type { BatchScope };
