import type { WorkerClock } from '../../../src/webhooks/delivery.js';

/** A manual clock: timers run only when the test advances time. */
export class FakeClock implements WorkerClock {
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  private seq = 0;
  constructor(public t = Date.parse('2026-03-01T12:00:00.000Z')) {}

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Moves time forward (the way a slow endpoint makes time pass while it answers). */
  advance(ms: number): void {
    this.t += ms;
  }

  nextTimerAt(): number | undefined {
    return this.timers.length ? Math.min(...this.timers.map((x) => x.at)) : undefined;
  }

  /** Runs every timer due at the earliest pending time. */
  runNext(): void {
    const at = this.nextTimerAt();
    if (at === undefined) return;
    this.t = Math.max(this.t, at);
    const due = this.timers.filter((x) => x.at <= this.t).sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
  }
}

/** Alternates "let in-flight HTTP finish" and "advance to the next timer" until `until`. */
export async function runUntil(clock: FakeClock, idle: () => Promise<void>, until: number, stop?: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000_000; i++) {
    await idle();
    if (stop?.()) return;
    const next = clock.nextTimerAt();
    if (next === undefined || next > until) {
      clock.t = Math.max(clock.t, until);
      return;
    }
    clock.runNext();
  }
  throw new Error('runUntil: too many steps');
}
