/**
 * The answer deadline (src/store/postgres/answer-deadline.ts) on a socket stand-in, with a fake
 * clock: a connection with a query out and no byte back for the deadline is destroyed with
 * ETIMEDOUT; bytes coming back, or no query out, keep it; a closed socket is not watched.
 * The real thing through a frozen proxy: test/e2e/serve-postgres-partition.test.ts.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watchAnswers, type DeadlineTimers } from '../../../src/store/postgres/answer-deadline.js';
import { connectionGone, postgresFaultCause } from '../../../src/store/postgres/connection.js';
import { storageRetryAfterSeconds, STORAGE_RETRY_AFTER_S } from '../../../src/domain/storage-faults.js';

function fakeClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let next = 1;
  const t: DeadlineTimers & { advance(ms: number): void; pending(): number } = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = next++;
      timers.push({ at: now + ms, fn, id });
      return { id } as unknown as { unref?(): unknown };
    },
    clearTimeout: (h) => void (timers = timers.filter((x) => x.id !== (h as { id: number }).id)),
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((x) => x !== due);
        now = due.at;
        due.fn();
      }
      now = end;
    },
    pending: () => timers.length,
  };
  return t;
}

class FakeSocket extends EventEmitter {
  destroyed = false;
  destroyedWith: Error | undefined;
  destroy(err?: Error): this {
    this.destroyed = true;
    this.destroyedWith = err;
    this.emit('close', true);
    return this;
  }
}

describe('the answer deadline', () => {
  it('destroys a connection whose query gets no byte back for the deadline, as ETIMEDOUT (503, "the database does not answer")', () => {
    const clock = fakeClock();
    const s = new FakeSocket();
    let busy = false;
    watchAnswers(s as never, () => busy, 5_000, clock);
    clock.advance(60_000); // idle: kept
    expect(s.destroyed).toBe(false);
    busy = true;
    clock.advance(3_000);
    expect(s.destroyed).toBe(false);
    clock.advance(3_000);
    expect(s.destroyed).toBe(true);
    expect((s.destroyedWith as { code?: string }).code).toBe('ETIMEDOUT');
    expect(postgresFaultCause(s.destroyedWith)).toBe('the database does not answer');
    // The store treats it as a lost connection: no ROLLBACK on it, no release (server-store.ts).
    expect(connectionGone(s.destroyedWith)).toBe(true);
    expect(storageRetryAfterSeconds(s.destroyedWith)).toBe(2);
    expect(clock.pending()).toBe(0);
  });

  it('keeps a busy connection whose answer is coming in (a long result), and one that answered', () => {
    const clock = fakeClock();
    const s = new FakeSocket();
    let busy = true;
    watchAnswers(s as never, () => busy, 5_000, clock);
    for (let i = 0; i < 20; i++) {
      clock.advance(4_000);
      s.emit('data', Buffer.from('D'));
    }
    expect(s.destroyed).toBe(false);
    busy = false;
    clock.advance(60_000);
    expect(s.destroyed).toBe(false);
  });

  it('stops watching a socket that closed', () => {
    const clock = fakeClock();
    const s = new FakeSocket();
    watchAnswers(s as never, () => true, 5_000, clock);
    s.emit('close', false);
    expect(clock.pending()).toBe(0);
  });
});

describe('Retry-After for a storage fault', () => {
  it('is short for a lost or refused database connection and stays 30 s for a full disk or a lock', () => {
    for (const code of ['ECONNREFUSED', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', 'ETIMEDOUT', '57P01', '08006']) expect(storageRetryAfterSeconds({ code })).toBe(2);
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'SQLITE_BUSY', '53100']) expect(storageRetryAfterSeconds({ code })).toBe(STORAGE_RETRY_AFTER_S);
  });
});

describe('the answer deadline set later', () => {
  it('bounds a connection made while none was set (the one that ran the migrations) once one is', () => {
    const clock = fakeClock();
    const s = new FakeSocket();
    let deadline: number | undefined;
    watchAnswers(s as never, () => true, () => deadline, clock);
    clock.advance(120_000); // a long migration: not cut
    expect(s.destroyed).toBe(false);
    deadline = 5_000;
    clock.advance(7_000);
    expect(s.destroyed).toBe(true);
  });
});
