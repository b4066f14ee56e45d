/**
 * Deterministic "randomness" for the sandbox: one SHA-256 of the request seeds a small PRNG
 * (sfc32), so the same input always gives the same output (ids and latency aside). One hash per
 * request rather than one per draw keeps the sandbox cheap enough for load tests of `verity serve`.
 */
import { createHash } from 'node:crypto';
import { VerityError } from '../../api/errors.js';

export class Seed {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(digest: Buffer) {
    this.a = digest.readUInt32BE(0);
    this.b = digest.readUInt32BE(4);
    this.c = digest.readUInt32BE(8);
    this.d = digest.readUInt32BE(12);
    for (let i = 0; i < 12; i++) this.u32(); // mix the state before the first draw
  }

  static of(value: unknown): Seed {
    return new Seed(createHash('sha256').update(JSON.stringify(value)).digest());
  }

  /** sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG): 32 uniform bits per call. */
  private u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 2 ** 32;
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
    let out = '';
    while (out.length < n) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, n);
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

/**
 * The sandbox's trigger words (README "Sandbox triggers"): `verity-sandbox:WORD` anywhere, and in
 * text a person typed (a claim, a company name, raw document text) also `#WORD`. Only the words
 * the operation knows count, so the bytes of a real file cannot set off triggers by chance (a
 * PDF is full of `#…` sequences).
 */
export function triggersIn(text: string, known: readonly string[], o: { hashtags: boolean }): Set<string> {
  const allowed = new Set([...known, 'unavailable']);
  const found = new Set<string>();
  const pattern = o.hashtags ? /(?:#|verity-sandbox:)([a-z_]+)/gi : /verity-sandbox:([a-z_]+)/gi;
  for (const m of text.matchAll(pattern)) {
    const word = m[1]!.toLowerCase();
    if (allowed.has(word)) found.add(word);
  }
  return found;
}
