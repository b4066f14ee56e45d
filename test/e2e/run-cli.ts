/** Spawns the built `bin/verity.js` (copied by global-setup.ts) with a clean environment. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { inject } from 'vitest';

export interface RunOptions {
  input?: string | Buffer;
  home?: string;
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * A fresh VERITY_HOME inside the run's private folder (global-setup.ts), which the run removes at
 * its end: thousands of test homes (code caches, databases) no longer stay behind in /tmp.
 */
export const newHome = (): string => {
  const root = inject('verityRoot');
  const parent = root ? join(root, 'homes') : tmpdir();
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, 'verity-e2e-home-'));
};

/**
 * A fresh home whose config asks for pdf.js on every PDF (`document.pdf_reader = pdfjs`): for
 * tests of pdf.js's own path (its thread, its code cache, its reading ahead), whose simple files
 * the simple-PDF reader would otherwise read (docs/document.md "The simple-PDF reader").
 */
export const newPdfJsHome = (): string => {
  const home = newHome();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ document: { pdf_reader: 'pdfjs' } }));
  return home;
};

/** The parent's colour and CI variables would change what the CLI prints; start from a clean slate. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT'];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
}

export async function verity(args: string[], o: RunOptions = {}) {
  const root = inject('verityRoot');
  const r = await execa(process.execPath, [join(root, 'bin', 'verity.js'), ...args], {
    input: o.input ?? '',
    env: { ...baseEnv(), VERITY_HOME: o.home ?? newHome(), ...o.env },
    extendEnv: false,
    reject: false,
    cwd: o.cwd ?? tmpdir(),
    timeout: 25_000,
    stripFinalNewline: false,
  });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

export const ANSI = /\u001b\[/;
