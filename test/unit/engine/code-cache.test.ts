/**
 * The V8 code caches of bundled modules (src/engine/code-cache.ts): written once, read back, the
 * one in use marked as such, and the folder pruned to the newest few caches per module.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneCodeCaches, runCommonJsWithCodeCache } from '../../../src/engine/code-cache.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const HOUR = 3_600_000;

describe('code caches of bundled modules', () => {
  it('keeps the newest three caches of a module, never another module’s', () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-codecache-'));
    const file = join(dir, 'demo.cjs');
    writeFileSync(file, 'module.exports = { answer: () => 6 * 7 };');
    const cacheDir = join(dir, 'cache');
    const first = runCommonJsWithCodeCache<{ answer(): number }>(file, cacheDir, 'demo');
    expect(first.exports.answer()).toBe(42);
    expect(first.save()).toBe(true);
    // Five caches of earlier builds of the module, oldest first, and one of another module.
    const old = [1, 2, 3, 4, 5].map((i) => `demo-${100 + i}-${1700000000000 + i}-v20.0.${i}-x64.v8cache`);
    const t0 = Date.now() / 1000 - 10 * 86400;
    old.forEach((f, i) => {
      writeFileSync(join(cacheDir, f), 'old');
      utimesSync(join(cacheDir, f), t0 + i * 60, t0 + i * 60);
    });
    writeFileSync(join(cacheDir, 'other-1-1-v20.0.0-x64.v8cache'), 'kept');
    pruneCodeCaches(first.cacheFile!, 'demo');
    expect(readdirSync(cacheDir).sort()).toEqual([old[3], old[4], 'other-1-1-v20.0.0-x64.v8cache', first.cacheFile!.split('/').pop()!].sort());
  });

  it('a cache read back is marked in use (its time renewed, at most hourly), so pruning by age keeps it', () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-codecache-'));
    const file = join(dir, 'demo.cjs');
    writeFileSync(file, 'module.exports = { answer: () => 6 * 7 };');
    const cacheDir = join(dir, 'cache');
    const written = runCommonJsWithCodeCache(file, cacheDir, 'demo');
    expect(written.save()).toBe(true);
    const cacheFile = written.cacheFile!;
    const twoHoursAgo = (Date.now() - 2 * HOUR) / 1000;
    utimesSync(cacheFile, twoHoursAgo, twoHoursAgo);
    const again = runCommonJsWithCodeCache<{ answer(): number }>(file, cacheDir, 'demo');
    expect(again.exports.answer()).toBe(42);
    expect(again.save()).toBe(false); // the cache was accepted: nothing to write
    expect(Date.now() - statSync(cacheFile).mtimeMs).toBeLessThan(HOUR);
  });

  it('a thread that changed V8 flags registered a default-flags scope: the cache is read and written inside it, and read back as valid', () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-codecache-'));
    const file = join(dir, 'scoped.cjs');
    writeFileSync(file, 'module.exports = { answer: () => 6 * 7 };');
    const cacheDir = join(dir, 'cache');
    const key = Symbol.for('verity.v8DefaultFlagsScope');
    const g = globalThis as Record<symbol, unknown>;
    let inside = 0;
    g[key] = <T>(f: () => T): T => {
      inside++;
      return f();
    };
    try {
      const first = runCommonJsWithCodeCache<{ answer(): number }>(file, cacheDir, 'scoped');
      expect(inside).toBe(1); // the compile (no cache yet)
      expect(first.save()).toBe(true);
      expect(inside).toBe(2); // the cache's creation
      const second = runCommonJsWithCodeCache<{ answer(): number }>(file, cacheDir, 'scoped');
      expect(inside).toBe(3); // the read
      expect(second.exports.answer()).toBe(42);
      expect(second.save()).toBe(false); // accepted: nothing to rewrite
    } finally {
      delete g[key];
    }
  });
});

