#!/usr/bin/env node
// Runs the before/after result comparison (test/golden/golden.test.ts) over ../shared/fixtures.
//   node scripts/golden.mjs            compare with test/golden/*.json
//   node scripts/golden.mjs --update   rewrite test/golden/*.json from the current code (review the diff)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const update = process.argv.includes('--update');
const r = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/golden/golden.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, VERITY_GOLDEN_UPDATE: update ? '1' : '0' },
});
process.exit(r.status ?? 1);
