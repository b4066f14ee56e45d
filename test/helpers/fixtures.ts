/**
 * ../shared/fixtures holds public conformance files beside the project (not inside it). Tests that
 * use them call `describeFixtures`, which skips with a visible message when the folder is absent.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = process.env.VERITY_FIXTURES ?? resolve(repoRoot, '..', 'shared', 'fixtures');
export const haveFixtures = existsSync(join(fixturesDir, 'README.md'));
export const fixture = (...parts: string[]): string => join(fixturesDir, ...parts);

export function describeFixtures(name: string, fn: () => void): void {
  if (haveFixtures) describe(name, fn);
  else describe.skip(`${name} — SKIPPED: shared fixtures not found at ${fixturesDir}`, fn);
}
