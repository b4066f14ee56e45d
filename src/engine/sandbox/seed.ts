/**
 * Deterministic "randomness" for the sandbox: every number is derived from a SHA-256 of the
 * request, so the same input always gives the same output (ids and latency aside).
 */
import { createHash } from 'node:crypto';
import { VerityError } from '../../api/errors.js';

export class Seed {
  private counter = 0;
  constructor(private readonly basis: string) {}

  static of(value: unknown): Seed {
    return new Seed(createHash('sha256').update(JSON.stringify(value)).digest('hex'));
  }

  /** Uniform in [0, 1). */
  next(): number {
    const h = createHash('sha256').update(`${this.basis}:${this.counter++}`).digest();
    return h.readUInt32BE(0) / 2 ** 32;
  }

  between(lo: number, hi: number): number {
    return Math.round((lo + (hi - lo) * this.next()) * 1000) / 1000;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  hex(n: number): string {
    return createHash('sha256').update(`${this.basis}:hex:${this.counter++}`).digest('hex').slice(0, n);
  }
}

/** Sandbox timestamps are fixed (not the clock) so results are reproducible. */
export const SANDBOX_EPOCH = Date.UTC(2026, 0, 15, 12, 0, 0);
export const sandboxTime = (seed: Seed, maxDaysBack = 365): string =>
  new Date(SANDBOX_EPOCH - Math.floor(seed.next() * maxDaysBack * 86_400_000)).toISOString();
export const sandboxUrl = (kind: string, seed: Seed): string => `https://sandbox.verity.dev/${kind}/${seed.hex(12)}`;

/** `#unavailable` (text) or `verity-sandbox:unavailable` (files) simulates an upstream outage. */
export function maybeUnavailable(triggers: Set<string>): void {
  if (triggers.has('unavailable'))
    throw new VerityError('UNAVAILABLE', 'Sandbox: simulated upstream outage (trigger "unavailable")', { retryAfter: 30 });
}

/** Trigger words: `#word` in text, or `verity-sandbox:word` anywhere in a file or URL. */
export function triggersIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:#|verity-sandbox:)([a-z_]+)/gi)) found.add(m[1]!.toLowerCase());
  return found;
}
