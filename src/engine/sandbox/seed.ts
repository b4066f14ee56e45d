/**
 * Deterministic "randomness" for the sandbox: one SHA-256 of the request seeds a small PRNG
 * (sfc32), so the same input always gives the same output (ids and latency aside). One hash per
 * request rather than one per draw keeps the sandbox cheap enough for load tests of `verity serve`.
 */
import { hash } from 'node:crypto';
import { VerityError } from '../../api/errors.js';

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class Seed {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `digest`: a SHA-256 in hex; the state is its first 16 bytes, as big-endian 32-bit words. */
  constructor(digest: string) {
    this.a = parseInt(digest.slice(0, 8), 16);
    this.b = parseInt(digest.slice(8, 16), 16);
    this.c = parseInt(digest.slice(16, 24), 16);
    this.d = parseInt(digest.slice(24, 32), 16);
    for (let i = 0; i < 12; i++) this.u32(); // mix the state before the first draw
  }

  static of(value: unknown): Seed {
    // One-shot hash (as hex, the cheapest output): no Hash object per request.
    return new Seed(hash('sha256', JSON.stringify(value), 'hex'));
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

  /** `n` lowercase hex digits: each 32-bit draw as 8 zero-padded digits, concatenated, cut to n. */
  hex(n: number): string {
    let out = '';
    // A byte table rather than Number#toString(16), which costs ~1 µs a call in V8.
    while (out.length < n) {
      const x = this.u32();
      out += HEX_BYTE[x >>> 24]! + HEX_BYTE[(x >>> 16) & 255]! + HEX_BYTE[(x >>> 8) & 255]! + HEX_BYTE[x & 255]!;
    }
    return out.slice(0, n);
  }
}

/** Sandbox timestamps are fixed (not the clock) so results are reproducible. */
export const SANDBOX_EPOCH = Date.UTC(2026, 0, 15, 12, 0, 0);
export const sandboxTime = (seed: Seed, maxDaysBack = 365): string => isoTime(SANDBOX_EPOCH - Math.floor(seed.next() * maxDaysBack * 86_400_000));

const DAY_MS = 86_400_000;
/** "YYYY-MM-DDT" per day number; sandbox times fall on a few hundred days at most. */
const dayPrefixes = new Map<number, string>();
const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()` for an integer `ms` in years 1970–9999, byte for byte, without
 * the Date (≈ 1.3 µs each, five times per sandbox claim): the date part is cached per day and the
 * time of day is plain arithmetic. Anything else goes to Date.
 */
export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > 253_402_300_799_999) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayPrefixes.size >= 4096) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  let t = ms - day * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const m = Math.floor(t / 60_000);
  t -= m * 60_000;
  const sec = Math.floor(t / 1000);
  const milli = t - sec * 1000;
  return `${prefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
}
/**
 * Links in simulated evidence: under `.example`, a top-level domain reserved for examples (RFC
 * 2606, RFC 6761), so no sandbox link can ever point at a real site or look like one.
 */
export const SANDBOX_HOST = 'simulated.verity.example';
export const sandboxUrl = (kind: string, seed: Seed): string => `https://${SANDBOX_HOST}/${kind}/${seed.hex(12)}`;

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
  const found = new Set<string>();
  // Most texts carry no trigger at all: a scan for `#` and for the marker (any case, like the
  // patterns) before the regex pass with its match objects.
  if (!(o.hashtags && text.includes('#')) && !ANY_MARKER.test(text)) return found;
  let allowed = allowedWords.get(known);
  if (!allowed) allowedWords.set(known, (allowed = new Set([...known, 'unavailable'])));
  for (const m of text.matchAll(o.hashtags ? HASHTAG_OR_MARKER : MARKER)) {
    const word = m[1]!.toLowerCase();
    if (allowed.has(word)) found.add(word);
  }
  return found;
}

const HASHTAG_OR_MARKER = /(?:#|verity-sandbox:)([a-z_]+)/gi;
const MARKER = /verity-sandbox:([a-z_]+)/gi;
const ANY_MARKER = /verity-sandbox:/i;
/** The words each operation knows (its list, kept by identity), with `unavailable`. */
const allowedWords = new WeakMap<readonly string[], Set<string>>();
