/**
 * `verity --help` (and `-h`, `help`, no arguments) is answered by bin/verity.js from the text the
 * built CLI printed at build time (dist/help.txt), without loading the bundle. It must be exactly
 * what the CLI itself prints, and a help file from another bundle must never be shown.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { newHome, verity } from './run-cli.js';

const copies: string[] = [];
afterAll(() => {
  for (const c of copies) rmSync(c, { recursive: true, force: true });
});

describe('top-level help without loading the CLI', () => {
  it('--help, -h, help and no arguments print what the CLI prints (--no-color --help goes through commander)', async () => {
    const viaCli = await verity(['--no-color', '--help']);
    expect(viaCli.code).toBe(0);
    expect(viaCli.stdout).toMatch(/^Usage: verity /);
    for (const args of [['--help'], ['-h'], ['help'], []]) {
      const r = await verity(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toBe(viaCli.stdout);
    }
  });

  it('a help file written for another bundle is ignored: the CLI answers', async () => {
    const root = inject('verityRoot');
    const copy = mkdtempSync(join(tmpdir(), 'verity-e2e-help-'));
    copies.push(copy);
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(copy, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
    const help = readFileSync(join(copy, 'dist', 'help.txt'), 'utf8');
    writeFileSync(join(copy, 'dist', 'help.txt'), help.replace(/^bundle \d+/, 'bundle 1').replace('Usage: verity', 'Usage: STALE verity'));
    const r = await execa(process.execPath, [join(copy, 'bin', 'verity.js'), '--help'], { env: { PATH: process.env.PATH!, VERITY_HOME: newHome() }, extendEnv: false, reject: false });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: verity /);
    expect(r.stdout).not.toContain('STALE');
  });
});
