import { describe, expect, it } from 'vitest';
import { policyFor, RateLimiter } from '../../../src/domain/rate-limit.js';

describe('RateLimiter (sliding window)', () => {
  it('allows 100 test-key requests in an hour and refuses the 101st until the oldest leaves the window', () => {
    let now = 1_000_000;
    const rl = new RateLimiter(() => now);
    const policy = policyFor({ environment: 'test', plan: 'starter' });
    expect(policy).toEqual({ limit: 100, windowMs: 3_600_000 });
    for (let i = 0; i < 100; i++) {
      const d = rl.take('k', policy);
      expect(d.allowed).toBe(true);
      expect(d.remaining).toBe(99 - i);
      now += 1000; // one a second
    }
    const refused = rl.take('k', policy);
    expect(refused.allowed).toBe(false);
    expect(refused.remaining).toBe(0);
    // The first request was at 1_000_000; now is +100 s, so a slot frees in 3500 s.
    expect(refused.resetSeconds).toBe(3500);
    now = 1_000_000 + 3_600_000 - 1;
    expect(rl.take('k', policy).allowed).toBe(false);
    now = 1_000_000 + 3_600_000;
    const again = rl.take('k', policy);
    expect(again.allowed).toBe(true);
    expect(again.remaining).toBe(0); // 99 of the earlier ones are still in the window
  });

  it('has no burst at window edges (unlike fixed windows)', () => {
    let now = 0;
    const rl = new RateLimiter(() => now);
    const policy = { limit: 3, windowMs: 60_000 };
    now = 59_000;
    for (let i = 0; i < 3; i++) expect(rl.take('k', policy).allowed).toBe(true);
    now = 61_000; // a fixed per-minute window would have reset here
    expect(rl.take('k', policy).allowed).toBe(false);
    now = 119_000;
    expect(rl.take('k', policy).allowed).toBe(true);
  });

  it('keeps keys apart and applies per-plan live limits per minute', () => {
    const now = 0;
    const rl = new RateLimiter(() => now);
    expect(policyFor({ environment: 'live', plan: 'starter' })).toEqual({ limit: 60, windowMs: 60_000 });
    expect(policyFor({ environment: 'live', plan: 'enterprise' })).toEqual({ limit: 3000, windowMs: 60_000 });
    const p = { limit: 2, windowMs: 1000 };
    rl.take('a', p);
    rl.take('a', p);
    expect(rl.take('a', p).allowed).toBe(false);
    expect(rl.take('b', p).allowed).toBe(true);
  });

  it('forgets idle keys so memory stays bounded', () => {
    let now = 0;
    const rl = new RateLimiter(() => now);
    for (let i = 0; i < 50; i++) rl.take(`k${i}`, { limit: 5, windowMs: 1000 });
    expect(rl.size).toBe(50);
    now = 120_000;
    rl.take('fresh', { limit: 5, windowMs: 1000 });
    expect(rl.size).toBe(1);
  });
});
