/**
 * bin/verity.js and bin/run-bundle.js are CommonJS (bin/package.json) in an ES-module package: the
 * paths no other test takes. A copy of bin/ (and package.json) in a folder of its own stands for an
 * installed package, with a dist/ of the test's making where one is needed.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { newHome } from './run-cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A package folder with the real bin/ and package.json, and no dist/. */
function installed(): string {
  const root = inject('verityRoot');
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-bin-'));
  dirs.push(dir);
  for (const part of ['bin', 'package.json']) cpSync(join(root, part), join(dir, part), { recursive: true });
  return dir;
}

const run = (bin: string, args: string[]) =>
  execa(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH!, VERITY_HOME: newHome() }, extendEnv: false, reject: false });

describe('the CommonJS entry', () => {
  it('runs through a symlink as npm links it (no .js in the name), and says what to do without a build', async () => {
    const dir = installed();
    const links = mkdtempSync(join(tmpdir(), 'verity-e2e-bin-link-'));
    dirs.push(links);
    symlinkSync(join(dir, 'bin', 'verity.js'), join(links, 'verity'));
    const version = await execa(join(links, 'verity'), ['--version'], { reject: false });
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const unbuilt = await run(join(links, 'verity'), ['status']);
    expect(unbuilt.exitCode).toBe(1);
    expect(unbuilt.stderr).toBe('verity is not built yet: run `npm run build` first');
  });

  it('a failure out of the CLI ends the process non-zero with the error, even where an unhandledRejection handler is installed (serve\'s safety net)', async () => {
    const dir = installed();
    mkdirSync(join(dir, 'dist'));
    for (const handler of [false, true]) {
      writeFileSync(
        join(dir, 'dist', 'verity.cjs'),
        `exports.main = async () => {${handler ? " process.on('unhandledRejection', () => process.stderr.write('kept running\\n'));" : ''} throw new Error('broken CLI'); };`,
      );
      const r = await run(join(dir, 'bin', 'verity.js'), ['status']);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain('Error: broken CLI');
      expect(r.stderr).not.toContain('kept running');
    }
  });
});
