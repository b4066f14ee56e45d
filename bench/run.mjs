#!/usr/bin/env node
/**
 * Runs the benchmarks: every bench/*.mjs, or the ones named (`npm run bench -- startup media`).
 * Arguments after `--` that start with "-" are passed on to each benchmark (`-- startup --runs 40`).
 * Benchmarks import the BUILT code, so build first (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const names = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && args[i - 1].startsWith('--')));
const passOn = args.filter((a) => !names.includes(a));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && !f.startsWith('.'))
  .map((f) => f.slice(0, -4))
  .sort();

const unknown = names.filter((n) => !all.includes(n));
if (unknown.length) {
  console.error(`unknown benchmark: ${unknown.join(', ')} (have: ${all.join(', ')})`);
  process.exit(2);
}
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(2);
}

let failed = 0;
for (const name of names.length ? names : all) {
  console.log(`\n=== bench/${name}.mjs ===`);
  const r = spawnSync(process.execPath, [`${dir}${name}.mjs`, ...passOn], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${name}.mjs exited with ${r.status ?? r.signal}`);
  }
}
process.exit(failed ? 1 : 0);
