#!/usr/bin/env node
/**
 * Start-up time of the CLI, as a ratio to bare `node -e 0` measured in the same run (so the
 * machine's speed cancels out): the median of the round-by-round ratios (the goal's figure) and
 * the ratio of the medians. Median wall time of N runs of each command, interleaved so a
 * noisy moment hits all three alike, after one warm-up run each (fills Node's compile cache).
 * Goals (issue 2): `--version` ≤ 1.5× node, sandbox `verify claim --json` ≤ 3× node; (issue 18)
 * `--help` ≤ 1.5× node.
 *
 *   npm run build && node bench/startup.mjs [--runs 20]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const at = args.indexOf('--runs');
const RUNS = at >= 0 ? Number(args[at + 1]) : 20;
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'verity-bench-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };

const cases = [
  { name: 'node -e 0', argv: ['-e', '0'] },
  { name: 'verity --version', argv: [bin, '--version'], goal: 1.5 },
  { name: 'verity --help', argv: [bin, '--help'], goal: 1.5 },
  { name: 'verity verify claim --test --json', argv: [bin, 'verify', 'claim', 'The Eiffel Tower is in Paris', '--test', '--json'], goal: 3 },
];

function once(c) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, c.argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${c.name} exited with ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

for (const c of cases) once(c); // warm-up: compile cache, disk cache
const times = cases.map(() => []);
for (let i = 0; i < RUNS; i++) cases.forEach((c, j) => times[j].push(once(c)));
rmSync(home, { recursive: true, force: true });

const base = median(times[0]);
const rows = cases.map((c, j) => {
  const med = median(times[j]);
  // Each run against the bare-node run of the same round: a noisy moment hits both alike.
  const ratio = median(times[j].map((t, i) => t / times[0][i]));
  return {
    command: c.name,
    'median ms': med.toFixed(1),
    'min ms': Math.min(...times[j]).toFixed(1),
    'x node (median of pairs)': ratio.toFixed(2),
    'x node (medians)': (med / base).toFixed(2),
    goal: c.goal ? `≤ ${c.goal}×` : '',
    ok: c.goal ? (ratio <= c.goal ? 'yes' : 'NO') : '',
  };
});
console.log(`start-up, ${RUNS} runs each, Node ${process.version}`);
console.table(rows);
