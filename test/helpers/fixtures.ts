/**
 * ../shared/fixtures holds public conformance files beside the project (not inside it). Tests that
 * use them call `describeFixtures`, which skips with a visible message when the folder is absent.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = process.env.VERITY_FIXTURES ?? resolve(repoRoot, '..', 'shared', 'fixtures');
export const haveFixtures = existsSync(join(fixturesDir, 'README.md'));
export const fixture = (...parts: string[]): string => join(fixturesDir, ...parts);

export function describeFixtures(name: string, fn: () => void): void {
  if (haveFixtures) describe(name, fn);
  // Not `describe.skip(name, fn)`: vitest still runs a skipped suite's body to collect its tests,
  // and bodies that list fixture folders would then crash the file instead of skipping it.
  else
    describe.skip(`${name} — SKIPPED: shared fixtures not found at ${fixturesDir}`, () => {
      it('needs ../shared/fixtures', () => expect(haveFixtures).toBe(true));
    });
}
