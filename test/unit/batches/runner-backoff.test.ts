/**
 * The batch runner's look at the queue backs off while the store fails (issue 28: the database
 * away): 1, 2, 4 … s up to a minute, one log line per failed look, back to the poll interval once
 * the store answers. A fake clock (the runner's injected timers); the store stands in for a
 * PostgreSQL that refuses connections, with the driver's error code.
 */
import { describe, expect, it } from 'vitest';
import { createBatchRunner, nextPollMs, POLL_BACKOFF_CAP_MS, type PollTimers } from '../../../src/server/batches/runner.js';

function fakeTimers() {
  const pending: Array<{ fn: () => void; ms: number }> = [];
  const t: PollTimers & { next(): number; fire(): Promise<void>; count(): number } = {
    setTimeout: (fn, ms) => {
      const h = { fn, ms };
      pending.push(h);
      return h;
    },
    clearTimeout: (h) => void (pending.includes(h as never) && pending.splice(pending.indexOf(h as never), 1)),
    next: () => pending[0]!.ms,
    count: () => pending.length,
    async fire() {
      const h = pending.shift()!;
      h.fn();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
  return t;
}

const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the batch runner on a failing store', () => {
  it('looks at the queue again after 1, 2, 4 … s up to a minute, logging each failure once, then polls normally when the store answers', async () => {
    const timers = fakeTimers();
    let down = true;
    let looks = 0;
    const logged: Array<{ obj: { failures?: number; retry_in_ms?: number }; msg: string }> = [];
    const store = {
      recover: async () => undefined,
      renew: async () => undefined,
      active: async () => {
        looks++;
        if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return [];
      },
    };
    const runner = createBatchRunner({
      store: store as never,
      server: {} as never,
      engines: {} as never,
      ledger: {} as never,
      hooks: {} as never,
      clock: { now: () => new Date(0) },
      log: { error: (obj, msg) => void logged.push({ obj, msg }) },
      pollMs: 5_000,
      timers,
    });
    await runner.start();
    await settle();
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      expect(timers.count()).toBe(1);
      waits.push(timers.next());
      await timers.fire();
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(looks).toBe(10);
    expect(logged).toHaveLength(10);
    expect(logged.every((l) => l.msg === 'batch runner could not read the queue')).toBe(true);
    expect(logged.at(-1)!.obj).toMatchObject({ failures: 10, retry_in_ms: 60_000 });
    // The database is back: the next look succeeds, and the poll is the normal interval again.
    down = false;
    await timers.fire();
    expect(looks).toBe(11);
    expect(logged).toHaveLength(10);
    expect(timers.next()).toBe(5_000);
    await runner.stop();
    expect(timers.count()).toBe(0);
  });

  it('waits the poll interval while the store answers, and caps the backoff', () => {
    expect(nextPollMs(0, 5_000)).toBe(5_000);
    expect(nextPollMs(1, 5_000)).toBe(1_000);
    expect(nextPollMs(30, 5_000)).toBe(POLL_BACKOFF_CAP_MS);
  });
});
