/**
 * Group commit for the request path. Every successful verification must have its usage (and its
 * idempotency record and webhook outbox rows) COMMITTED before its answer is sent, and one SQLite
 * commit costs ~50–90 µs on this machine — more than everything else a sandbox request does. So
 * writes that arrive during one turn of the event loop are queued and committed together in ONE
 * transaction on the next `setImmediate`, and each caller's promise settles only after that
 * commit. Under load, dozens of requests share a commit; an idle server pays one extra loop turn.
 *
 * Each queued write runs in its own SAVEPOINT (a nested better-sqlite3 transaction), so one that
 * throws (a failing `afterVerification` hook) is rolled back alone and only its caller fails. A
 * write that is one statement (atomic by itself) or changes nothing but memory can ask for no
 * savepoint (`{ savepoint: false }`): SAVEPOINT + RELEASE cost more than such a write. Writes
 * gathered in memory by the items (usage totals) go in `beforeCommit`, inside the same
 * transaction. If that or the commit fails, nothing of the batch is stored and every caller fails.
 *
 * The transaction is BEGIN IMMEDIATE: it takes the write lock first (waiting out the busy
 * timeout), so a batch whose first statements are reads cannot fail at its first write because
 * another process wrote in between (SQLITE_BUSY_SNAPSHOT).
 *
 * The whole batch runs synchronously, so no other JavaScript (webhook worker polls, other
 * requests) can see a half-written batch, and timers scheduled by hooks run after the commit.
 */
import type { Database } from '../local/database.js';

interface Pending {
  fn: () => unknown;
  savepoint: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface WriteOptions {
  /** false: `fn` is a single statement or touches only memory, so it needs no savepoint of its own. */
  savepoint?: boolean;
}

export interface GroupCommitHooks {
  /** Runs in each batch's transaction after its items; throwing fails the whole batch. */
  beforeCommit?: () => void;
  /** Runs after each batch, committed or not (per-batch state is dropped here). */
  afterBatch?: () => void;
}

export interface GroupCommit {
  /** Runs `fn` inside the next batch transaction; resolves after that transaction commits. */
  run<T>(fn: () => T, o?: WriteOptions): Promise<T>;
  /** Like `run`, for writes nobody waits on (last-used times); their failures are reported to `onError`. */
  defer(fn: () => void, o?: WriteOptions): void;
  /** Commits what is queued now (shutdown, before the store closes). */
  flush(): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export function createGroupCommit(db: Database, onError: (err: unknown) => void = () => undefined, hooks: GroupCommitHooks = {}): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;
  // The transaction wrappers are made once: better-sqlite3's db.transaction(fn) builds four
  // wrapper functions with their properties on every call (~6 µs), more than a savepoint costs.
  // Called inside the batch's transaction, `inSavepoint` runs SAVEPOINT … RELEASE (ROLLBACK TO on a throw).
  const inSavepoint = db.transaction((fn: () => unknown) => fn());
  const inBatch = db.transaction((items: Pending[], outcomes: Outcome[]) => {
    for (const item of items) {
      try {
        outcomes.push({ ok: true, value: item.savepoint ? inSavepoint(item.fn) : item.fn() });
      } catch (err) {
        // Some errors (SQLITE_FULL, SQLITE_IOERR, …) make SQLite roll back the WHOLE
        // transaction, not just the savepoint: the rest of the batch would then run in
        // autocommit and be stored while its callers are told it failed. Fail the batch.
        if (!db.inTransaction) throw err;
        outcomes.push({ ok: false, err });
      }
    }
    hooks.beforeCommit?.();
  }).immediate;

  function flush(): void {
    scheduled = false;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
    if (!db.open) {
      hooks.afterBatch?.();
      const err = new Error('The store is closed');
      for (const item of items) item.reject(err);
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      inBatch(items, outcomes);
    } catch (err) {
      // BEGIN or COMMIT failed (disk full, lock timeout): the whole batch was rolled back.
      for (const item of items) item.reject(err);
      return;
    } finally {
      hooks.afterBatch?.();
    }
    for (let i = 0; i < items.length; i++) {
      const o = outcomes[i]!;
      if (o.ok) items[i]!.resolve(o.value);
      else items[i]!.reject(o.err);
    }
  }

  function enqueue(item: Pending): void {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  return {
    run<T>(fn: () => T, o?: WriteOptions): Promise<T> {
      return new Promise<T>((resolve, reject) => enqueue({ fn, savepoint: o?.savepoint !== false, resolve: resolve as (v: unknown) => void, reject }));
    },
    defer(fn: () => void, o?: WriteOptions): void {
      enqueue({ fn, savepoint: o?.savepoint !== false, resolve: () => undefined, reject: onError });
    },
    flush,
  };
}
