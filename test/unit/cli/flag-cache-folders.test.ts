/**
 * Code caches made under changed V8 flags live in a folder of their own (bin/run-bundle.js); such a
 * folder left behind by another Node version or flag is removed whole once it has gone unused for a
 * month, when the CLI next writes a cache. Real folders and files; the clock is passed in.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without types
import { pruneFlagFolders } from '../../../bin/run-bundle.js';

const root = mkdtempSync(join(tmpdir(), 'verity-flag-folders-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY = 24 * 3_600_000;
const NOW = Date.UTC(2026, 10, 23);

function folder(name: string, ageDays: number): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'cli-1-2-v20.0.0.v8cache');
  writeFileSync(file, 'x');
  const t = new Date(NOW - ageDays * DAY);
  utimesSync(file, t, t);
  utimesSync(dir, t, t);
  return dir;
}

describe('pruning folders of code caches made under other V8 flags', () => {
  it('removes flag folders unused for over a month, keeps recent ones, the one in use and anything else', () => {
    const stale = folder('interrupt-budget-540672', 40);
    const earlier = folder('no-turbofan', 31);
    const recent = folder('interrupt-budget-999', 3);
    const inUse = folder('interrupt-budget-1', 90);
    const other = folder('models', 400);
    (pruneFlagFolders as (d: string, u: string, n: number) => void)(root, inUse, NOW);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(earlier)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(inUse)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});
