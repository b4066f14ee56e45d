/**
 * The PDF run's later optimisation (src/engine/document/pdf-tiering.ts): V8's flag changes only
 * when the second of the two threads arrives, so that both have read their code caches under the
 * default flags; code caches read or written after that go through a scope that puts the default
 * back for the moment. The flag itself is set only on Node 20 (other versions get no gate), so the
 * calls that set it run only there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { arriveAtTieringGate, pdfRunTiering, replaceFlagSetterForTests, useDefaultFlagsForCodeCaches, withDefaultFlags } from '../../../src/engine/document/pdf-tiering.js';

const onNode20 = process.versions.node.split('.')[0] === '20';
const SCOPE = Symbol.for('verity.v8DefaultFlagsScope');
const g = globalThis as Record<symbol, unknown>;
afterEach(() => {
  delete g[SCOPE];
});

describe('the PDF run tiering gate', () => {
  it('exists on Node 20 only', () => {
    expect(pdfRunTiering('20.19.0')).toBeDefined();
    expect(pdfRunTiering('22.12.0')).toBeUndefined();
    expect(pdfRunTiering('24.1.0')).toBeUndefined();
  });

  it('without a gate nothing is set, and no scope is registered for the code caches', () => {
    expect(arriveAtTieringGate(undefined)).toBe(false);
    useDefaultFlagsForCodeCaches(undefined);
    expect(g[SCOPE]).toBeUndefined();
  });

  it('a gate passed by one thread only changes nothing; the scope then just runs its function', () => {
    const t = pdfRunTiering('20.19.0')!;
    expect(arriveAtTieringGate(t)).toBe(false);
    expect(Atomics.load(t.gate, 0)).toBe(1);
    useDefaultFlagsForCodeCaches(t);
    expect((g[SCOPE] as <T>(f: () => T) => T)(() => 'read')).toBe('read');
    expect(withDefaultFlags(t, () => 7)).toBe(7);
  });

  it.runIf(onNode20)('the second arrival sets the flag (once), whichever thread it is; a third sets nothing; the scope runs its function with the gate open', () => {
    const t = pdfRunTiering()!;
    // The other thread's arrival, through the same shared memory.
    Atomics.add(new Int32Array(t.gate.buffer), 0, 1);
    try {
      expect(arriveAtTieringGate(t)).toBe(true);
      expect(arriveAtTieringGate(t)).toBe(false);
      expect(withDefaultFlags(t, () => 'written')).toBe('written');
      expect(() => withDefaultFlags(t, () => { throw new Error('boom'); })).toThrow('boom');
    } finally {
      // V8's default again for the rest of this test process.
      process.getBuiltinModule('node:v8').setFlagsFromString('--interrupt-budget=67584 --incremental-marking');
    }
  });

  it('the flag follows the shared counts: set when the gate opens, V8\'s default while any thread reads or writes a code cache, the budget again when the last one is out', () => {
    const set: string[] = [];
    const prev = replaceFlagSetterForTests((f) => set.push(f));
    try {
      const cli = pdfRunTiering('20.19.0')!;
      // The other thread's view: the same shared memory.
      const thread = { gate: new Int32Array(cli.gate.buffer) };
      // A cache read before the gate opens changes nothing.
      expect(withDefaultFlags(cli, () => 'read')).toBe('read');
      expect(set).toEqual([]);
      expect(arriveAtTieringGate(cli)).toBe(false);
      // The thread arrives while the CLI is inside a scope: the flag waits for the CLI to leave.
      withDefaultFlags(cli, () => {
        expect(arriveAtTieringGate(thread)).toBe(true);
        expect(set).toEqual([]);
      });
      expect(set).toEqual(['--interrupt-budget=540672 --no-incremental-marking']);
      // Overlapping scopes of both threads: the default is put back once, the budget once, by the last out.
      set.length = 0;
      withDefaultFlags(cli, () => {
        withDefaultFlags(thread, () => undefined);
        expect(set).toEqual(['--interrupt-budget=67584 --incremental-marking']);
      });
      expect(set).toEqual(['--interrupt-budget=67584 --incremental-marking', '--interrupt-budget=540672 --no-incremental-marking']);
      // A throwing cache operation still leaves the scope.
      set.length = 0;
      expect(() => withDefaultFlags(thread, () => { throw new Error('disk full'); })).toThrow('disk full');
      expect(set).toEqual(['--interrupt-budget=67584 --incremental-marking', '--interrupt-budget=540672 --no-incremental-marking']);
      expect(Array.from(cli.gate)).toEqual([2, 0, 0]);
    } finally {
      replaceFlagSetterForTests(prev);
    }
  });
});

