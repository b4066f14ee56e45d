/**
 * plane-gc.ts: once a large plane has arrived, V8's incremental marking is stopped for the rest of
 * the one-shot process, and every code cache read or written after that sees V8's default flags
 * (code-cache.ts looks for the scope registered here): otherwise the caches a photo's run wrote
 * would be rejected by the next run and written again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { underDefaultV8Flags } from '../../../src/engine/code-cache.js';
import { forgetDefaultFlagsScopeForTests, stopIncrementalMarking } from '../../../src/engine/media/plane-gc.js';

afterEach(() => forgetDefaultFlagsScopeForTests());

describe('no incremental marking once a large plane has arrived', () => {
  it('sets the flag once, and code caches are read under the default (nested scopes put it back once)', () => {
    const set: string[] = [];
    expect(stopIncrementalMarking((f) => set.push(f))).toBe(true);
    expect(set).toEqual(['--no-incremental-marking']);
    const seen = underDefaultV8Flags(() => {
      const inner = underDefaultV8Flags(() => set.at(-1));
      return [set.at(-1), inner];
    });
    expect(seen).toEqual(['--incremental-marking', '--incremental-marking']);
    expect(set).toEqual(['--no-incremental-marking', '--incremental-marking', '--no-incremental-marking']);
    // A failing read still puts the run's flag back.
    expect(() =>
      underDefaultV8Flags(() => {
        throw new Error('corrupt cache');
      }),
    ).toThrow('corrupt cache');
    expect(set.at(-1)).toBe('--no-incremental-marking');
    // Once only.
    expect(stopIncrementalMarking((f) => set.push(f))).toBe(false);
  });

  it('leaves V8 alone where another part of the process owns its flags (serve, a PDF run)', () => {
    const g = globalThis as Record<symbol, unknown>;
    const theirs = <T>(f: () => T): T => f();
    g[Symbol.for('verity.v8DefaultFlagsScope')] = theirs;
    const set: string[] = [];
    expect(stopIncrementalMarking((f) => set.push(f))).toBe(false);
    expect(set).toEqual([]);
    expect(g[Symbol.for('verity.v8DefaultFlagsScope')]).toBe(theirs);
  });
});
