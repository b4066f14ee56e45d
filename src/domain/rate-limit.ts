/**
 * Per-key request rate limits (SPEC 5.2, 8; DESIGN.md): test keys 100 per hour, live keys per
 * plan per minute. An exact sliding window: each key keeps the times of its last `limit`
 * accepted requests in a ring buffer, and a request is accepted when the oldest of them left the
 * window. O(1) per check, `limit` numbers of memory per active key; no burst at window edges, as
 * fixed windows would allow (100 requests at 10:59 and 100 more at 11:00).
 *
 * Kept in memory: a restart forgets the windows (documented in docs/server.md).
 */
import { PLANS, type Plan } from '../api/errors.js';
import { PLAN_LIMITS, TEST_KEY_PER_HOUR } from '../api/plans.js';
import type { KeyEnvironment } from './keys.js';

export interface RatePolicy {
  limit: number;
  windowMs: number;
}

/** The rate policy of every kind of key: test keys, and live keys by plan. */
export interface RatePolicies {
  test: RatePolicy;
  live: Record<Plan, RatePolicy>;
}

const TEST_POLICY: RatePolicy = Object.freeze({ limit: TEST_KEY_PER_HOUR, windowMs: 3_600_000 });
const LIVE_POLICIES = new Map<Plan, RatePolicy>(PLANS.map((plan) => [plan, Object.freeze({ limit: PLAN_LIMITS[plan].livePerMinute, windowMs: 60_000 })]));

/** The key's policy (the same frozen object per environment and plan: none is built per request). */
export function policyFor(auth: { environment: KeyEnvironment; plan: Plan }): RatePolicy {
  if (auth.environment === 'test') return TEST_POLICY;
  return LIVE_POLICIES.get(auth.plan) ?? { limit: PLAN_LIMITS[auth.plan].livePerMinute, windowMs: 60_000 };
}

/** Every policy, for a store that applies them itself (PostgreSQL's one-round-trip admit). */
export function allPolicies(): RatePolicies {
  const live = Object.fromEntries(PLANS.map((plan) => [plan, policyFor({ environment: 'live', plan })])) as Record<Plan, RatePolicy>;
  return { test: policyFor({ environment: 'test', plan: 'starter' }), live };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the next slot frees (the RateLimit-Reset / Retry-After value), at least 1 when refused. */
  resetSeconds: number;
  windowSeconds: number;
}

class Window {
  readonly times: Float64Array;
  /** Index of the oldest recorded time (the slot the next accepted request overwrites). */
  head = 0;
  count = 0;
  constructor(readonly policy: RatePolicy) {
    this.times = new Float64Array(policy.limit);
  }

  /** Recorded times still inside the window; they are a contiguous run ending at the newest. */
  inWindow(now: number): number {
    const { limit, windowMs } = this.policy;
    let lo = 0;
    let hi = this.count; // answer in [0, count]: how many of the oldest have expired
    const start = (this.head - this.count + limit) % limit; // the oldest recorded time
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[(start + mid) % limit]! <= now - windowMs) lo = mid + 1;
      else hi = mid;
    }
    return this.count - lo;
  }
}

export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(private readonly now: () => number) {}

  /** Checks and, when allowed, records one request for `id` under `policy`. */
  take(id: string, policy: RatePolicy): RateDecision {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(id);
    if (!w || w.policy.limit !== policy.limit || w.policy.windowMs !== policy.windowMs) {
      // A plan change starts a fresh window: simpler than translating the old one, and harmless.
      w = new Window(policy);
      this.windows.set(id, w);
    }
    const { limit, windowMs } = policy;
    const windowSeconds = Math.round(windowMs / 1000);
    const used = w.inWindow(now);
    if (used >= limit) {
      // Full: the oldest in-window request is at `head` (count === limit here).
      const oldest = w.times[w.head]!;
      return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)), windowSeconds };
    }
    w.times[w.head] = now;
    w.head = (w.head + 1) % limit;
    w.count = Math.min(limit, w.count + 1);
    const remaining = limit - used - 1;
    // Reset: when the oldest request still in the window leaves it (a slot frees).
    const inWin = used + 1;
    const oldestIdx = (w.head - inWin + limit * 2) % limit;
    const resetSeconds = Math.max(0, Math.ceil((w.times[oldestIdx]! + windowMs - now) / 1000));
    return { allowed: true, limit, remaining, resetSeconds, windowSeconds };
  }

  /** Drops windows whose every request has expired, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [id, w] of this.windows) if (w.inWindow(now) === 0) this.windows.delete(id);
  }

  get size(): number {
    return this.windows.size;
  }
}
