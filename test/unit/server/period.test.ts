import { describe, expect, it } from 'vitest';
import { periodOf } from '../../../src/domain/keys.js';

describe('periodOf (usage months, UTC)', () => {
  it('is the ISO year-month of the instant, at month edges and across jumps of the clock', () => {
    const instants = [
      '2026-03-31T23:59:59.999Z',
      '2026-04-01T00:00:00.000Z',
      '2026-04-30T23:59:59.999Z',
      '2026-03-15T12:00:00.000Z', // back again
      '2024-02-29T00:00:00.000Z',
      '2026-12-31T23:59:59.999Z',
      '2027-01-01T00:00:00.000Z',
      '0050-06-01T00:00:00.000Z',
      '1950-06-01T00:00:00.000Z',
    ].map((s) => new Date(s));
    for (const d of [...instants, ...instants.reverse()]) expect(periodOf(d)).toBe(d.toISOString().slice(0, 7));
  });
});
