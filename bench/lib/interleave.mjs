// Whole-process timing of a command against an anchor, interleaved (A B A B …, after one warm-up
// each) so a noisy moment hits both alike. Each run goes through /usr/bin/time for the process's
// own CPU time and peak RSS; the ratio is taken pair by pair and its median reported.
import { spawnSync } from 'node:child_process';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * One run of a list of commands in sequence (an anchor may be two tools); wall ms, CPU ms, peak
 * RSS MB. `before()`, when given, runs first and is not timed (e.g. removing the last run's store).
 */
function once({ steps, before }, env) {
  before?.();
  let wall = 0;
  let cpu = 0;
  let rss = 0;
  for (const [cmd, ...args] of steps) {
    const t = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '@@ %U %S %M', cmd, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    wall += Number(process.hrtime.bigint() - t) / 1e6;
    const m = /@@ ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr);
    if (r.status !== 0 || !m) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.slice(-400)}`);
    cpu += (Number(m[1]) + Number(m[2])) * 1000;
    rss = Math.max(rss, Number(m[3]) / 1024);
  }
  return { wall, cpu, rss };
}

/**
 * @param {{ name: string, steps: string[][], before?: () => void }} a  the measured command (steps run in sequence)
 * @param {{ name: string, steps: string[][], before?: () => void }} b  the anchor
 * @returns medians of wall and CPU for each, peak RSS, and the median pairwise ratios A/B
 */
export function interleave(a, b, { runs = 5, env = process.env } = {}) {
  once(a, env);
  once(b, env);
  const ra = [];
  const rb = [];
  for (let i = 0; i < runs; i++) {
    ra.push(once(a, env));
    rb.push(once(b, env));
  }
  const sum = (rs) => ({ wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)), rss: Math.max(...rs.map((r) => r.rss)) });
  return {
    a: { name: a.name, ...sum(ra) },
    b: { name: b.name, ...sum(rb) },
    wallRatio: median(ra.map((r, i) => r.wall / rb[i].wall)),
    cpuRatio: median(ra.map((r, i) => r.cpu / rb[i].cpu)),
    runs,
  };
}

/** Markdown rows for one comparison. */
export function rows(r, goal) {
  const ok = goal === undefined ? '' : r.wallRatio <= goal ? 'met' : 'NOT met';
  return [
    `| ${r.a.name} | ${r.a.wall.toFixed(0)} | ${r.a.cpu.toFixed(0)} | ${r.a.rss.toFixed(0)} | ${r.wallRatio.toFixed(2)}× wall, ${Number.isFinite(r.cpuRatio) ? `${r.cpuRatio.toFixed(2)}×` : 'n/a (the anchor is under the 10 ms CPU clock)'} CPU${goal === undefined ? '' : ` (goal ≤ ${goal}×: ${ok})`} |`,
    `| ${r.b.name} (anchor) | ${r.b.wall.toFixed(0)} | ${r.b.cpu.toFixed(0)} | ${r.b.rss.toFixed(0)} | — |`,
  ];
}

export const HEADER = ['| whole process | median wall ms | median CPU ms | peak RSS MB | ratio to the anchor (median of pairs) |', '|---|---:|---:|---:|---|'];
