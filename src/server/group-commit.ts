/**
 * Group commit for the request path. Every successful verification must have its usage (and its
 * idempotency record and webhook outbox rows) COMMITTED before its answer is sent, and one SQLite
 * commit costs ~50–90 µs on this machine — more than everything else a sandbox request does. So
 * writes that arrive during one turn of the event loop are queued and committed together in ONE
 * transaction on the next `setImmediate`, and each caller's promise settles only after that
 * commit. Under load, dozens of requests share a commit; an idle server pays one extra loop turn.
 *
 * Each queued write runs in its own SAVEPOINT (a nested better-sqlite3 transaction), so one that
 * throws (a failing `afterVerification` hook) is rolled back alone and only its caller fails. If
 * the commit itself fails, nothing of the batch is stored and every caller fails.
 *
 * The whole batch runs synchronously, so no other JavaScript (webhook worker polls, other
 * requests) can see a half-written batch, and timers scheduled by hooks run after the commit.
 */
import type { Database } from '../store/database.js';

interface Pending {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommit {
  /** Runs `fn` inside the next batch transaction; resolves after that transaction commits. */
  run<T>(fn: () => T): Promise<T>;
  /** Like `run`, for writes nobody waits on (last-used times); their failures are reported to `onError`. */
  defer(fn: () => void): void;
  /** Commits what is queued now (shutdown, before the store closes). */
  flush(): void;
}

export function createGroupCommit(db: Database, onError: (err: unknown) => void = () => undefined): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const items = queue;
    queue = [];
    if (items.length === 0) return;
    if (!db.open) {
      const err = new Error('The store is closed');
      for (const item of items) item.reject(err);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      db.transaction(() => {
        for (const item of items) {
          try {
            outcomes.push({ ok: true, value: db.transaction(item.fn)() });
          } catch (err) {
            // Some errors (SQLITE_FULL, SQLITE_IOERR, …) make SQLite roll back the WHOLE
            // transaction, not just the savepoint: the rest of the batch would then run in
            // autocommit and be stored while its callers are told it failed. Fail the batch.
            if (!db.inTransaction) throw err;
            outcomes.push({ ok: false, err });
          }
        }
      })();
    } catch (err) {
      // BEGIN or COMMIT failed (disk full, lock timeout): the whole batch was rolled back.
      for (const item of items) item.reject(err);
      return;
    }
    items.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.err);
    });
  }

  function enqueue(item: Pending): void {
    queue.push(item);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  }

  return {
    run<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => enqueue({ fn, resolve: resolve as (v: unknown) => void, reject }));
    },
    defer(fn: () => void): void {
      enqueue({ fn, resolve: () => undefined, reject: onError });
    },
    flush,
  };
}
