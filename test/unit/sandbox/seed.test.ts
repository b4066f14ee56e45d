import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isoTime, SANDBOX_EPOCH, Seed, triggersIn } from '../../../src/engine/sandbox/seed.js';

describe('sandbox seed helpers (fast paths equal to the plain ones)', () => {
  it('isoTime is Date#toISOString for every day of the sandbox range and around the edges', () => {
    const day = 86_400_000;
    const times: number[] = [0, 1, 999, 1000, day - 1, day, 951_782_400_000 /* 2000-02-29 */, 253_402_300_799_999];
    // Every day a year before and after the sandbox epoch, at several times of day (midnight,
    // the last millisecond, and times with one-, two- and three-digit milliseconds).
    for (let d = -400; d <= 400; d++)
      for (const t of [0, 1, 10, 100, 3_600_000 + 60_000 + 1_000 + 7, 43_210_987, day - 1]) times.push(SANDBOX_EPOCH - (SANDBOX_EPOCH % day) + d * day + t);
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    // Outside what the fast path handles: Date's own answer (including its sign and 6-digit years).
    for (const ms of [-1, -day * 400 - 5, 253_402_300_800_000, 8.64e15]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('the PRNG state is the first 16 bytes of the SHA-256 of the request, as before', () => {
    const value = { kind: 'claim', claim: 'The Eiffel Tower is in Paris', language: 'en', sources: null };
    // The same sfc32 seeded from the digest's bytes (the earlier Buffer-reading constructor).
    const d = createHash('sha256').update(JSON.stringify(value)).digest();
    let [a, b, c, e] = [0, 4, 8, 12].map((i) => d.readUInt32BE(i)) as [number, number, number, number];
    const u32 = (): number => {
      const t = (((a + b) | 0) + e) | 0;
      e = (e + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return t >>> 0;
    };
    for (let i = 0; i < 12; i++) u32();
    const seed = Seed.of(value);
    for (let i = 0; i < 50; i++) expect(seed.next()).toBe(u32() / 2 ** 32);
  });

  it('finds triggers in any case, hashtags only where asked, known words only', () => {
    const known = ['true', 'false'];
    expect([...triggersIn('No trigger here', known, { hashtags: true })]).toEqual([]);
    expect([...triggersIn('It is #FALSE, #nope, #unavailable', known, { hashtags: true })]).toEqual(['false', 'unavailable']);
    expect([...triggersIn('It is #false', known, { hashtags: false })]).toEqual([]);
    expect([...triggersIn('bytes VERITY-SANDBOX:True bytes', known, { hashtags: false })]).toEqual(['true']);
    expect([...triggersIn('Verity-Sandbox:false and #true', known, { hashtags: true })]).toEqual(['false', 'true']);
  });
});
