/**
 * e2e tests run the BUILT CLI. Build once per run (`npm run build`), then copy bin/, dist/ and
 * package.json into a private folder so a rebuild elsewhere in a shared tree (which empties dist/)
 * cannot pull the files out from under a running test. Tests find it with inject('verityRoot').
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    verityRoot: string;
  }
}

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Unit-only runs (`vitest run test/unit/x`) skip the build: it rewrites dist/ for everyone. */
function e2eSelected(project: TestProject): boolean {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  if (!filters?.length) return true;
  // vitest's file filters are substrings of the path; build if any picks an e2e file.
  const e2eFiles = readdirSync(join(repo, 'test', 'e2e')).map((f) => join('test', 'e2e', f));
  return filters.some((f) => e2eFiles.some((file) => file.includes(f.replace(/^\.\//, ''))));
}

export default function setup(project: TestProject): (() => void) | undefined {
  if (!e2eSelected(project)) return undefined;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  const root = mkdtempSync(join(tmpdir(), 'verity-e2e-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(repo, part), join(root, part), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  project.provide('verityRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}
