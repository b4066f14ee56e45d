/**
 * The PDF run's later optimisation (src/engine/document/pdf-tiering.ts): V8's flag changes only
 * when the second of the two threads arrives, so that both have read their code caches under the
 * default flags; it is put back before a cache is written. The flag itself is set only on Node 20
 * (other versions get no gate), so the calls that set it run only there.
 */
import { describe, expect, it } from 'vitest';
import { arriveAtTieringGate, pdfRunTiering, resetTiering } from '../../../src/engine/document/pdf-tiering.js';

const onNode20 = process.versions.node.split('.')[0] === '20';

describe('the PDF run tiering gate', () => {
  it('exists on Node 20 only', () => {
    expect(pdfRunTiering('20.19.0')).toBeDefined();
    expect(pdfRunTiering('22.12.0')).toBeUndefined();
    expect(pdfRunTiering('24.1.0')).toBeUndefined();
  });

  it('without a gate nothing is set or reset', () => {
    expect(arriveAtTieringGate(undefined)).toBe(false);
    expect(() => resetTiering(undefined)).not.toThrow();
  });

  it('a gate passed by one thread only changes nothing, and reset then changes nothing either', () => {
    const t = pdfRunTiering('20.19.0')!;
    expect(arriveAtTieringGate(t)).toBe(false);
    resetTiering(t);
    expect(Atomics.load(t.gate, 0)).toBe(1);
  });

  it.runIf(onNode20)('the second arrival sets the flag (once), whichever thread it is; a third sets nothing', () => {
    const t = pdfRunTiering()!;
    const other = new Int32Array(t.gate.buffer);
    // The other thread's arrival, through the same shared memory.
    Atomics.add(other, 0, 1);
    try {
      expect(arriveAtTieringGate(t)).toBe(true);
      expect(arriveAtTieringGate(t)).toBe(false);
    } finally {
      resetTiering(t);
    }
  });
});
