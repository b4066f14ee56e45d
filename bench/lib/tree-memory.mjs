// A process tree's memory, sampled (issue 31): the sum over a process and all its descendants of
// RSS and of PSS (proportional set size: a shared library's pages split among the processes that
// map them, so a tree of Node processes is not charged the node binary once per process).
// Reported: the highest sum seen, sampled every `everyMs`; per-process VmHWM cannot be summed
// (each peaks at its own moment), and /usr/bin/time's %M is the largest single process only.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const read = (f) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/** `root` and its descendants, from /proc/<pid>/stat's parent field. */
export function treeOf(root) {
  const children = new Map();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const stat = read(`/proc/${e}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(e));
  }
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

const kb = (text, field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};

/** CPU seconds (user + system) `pid` has used so far, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuOf(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return NaN;
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** The tree's RSS and PSS now, in MB, how many processes it has, and each one's CPU seconds so far. */
export function treeMemory(root) {
  let rss = 0;
  let pss = 0;
  const pids = treeOf(root);
  const cpu = new Map();
  for (const p of pids) {
    const roll = read(`/proc/${p}/smaps_rollup`);
    rss += kb(roll, 'Rss');
    pss += kb(roll, 'Pss');
    const c = cpuOf(p);
    if (c === c) cpu.set(p, c);
  }
  return { rss: rss / 1024, pss: pss / 1024, processes: pids.length, cpu };
}

/**
 * Samples `root`'s tree until stop(); stop() returns the peaks (MB), the most processes seen, and
 * the CPU seconds of every process seen (each one's last reading: up to `everyMs` of a process's
 * last moments can be missed).
 */
export function sampleTree(root, everyMs = 100) {
  const peak = { rss: 0, pss: 0, processes: 0, cpu: 0 };
  const cpu = new Map();
  const tick = () => {
    const m = treeMemory(root);
    peak.rss = Math.max(peak.rss, m.rss);
    peak.pss = Math.max(peak.pss, m.pss);
    peak.processes = Math.max(peak.processes, m.processes);
    for (const [p, c] of m.cpu) cpu.set(p, c);
  };
  tick();
  const t = setInterval(tick, everyMs);
  return {
    stop() {
      clearInterval(t);
      peak.cpu = [...cpu.values()].reduce((a, b) => a + b, 0);
      return peak;
    },
  };
}

/**
 * Runs `node bin ...args` to the end, sampling its process tree: wall seconds, the tree's peaks
 * (MB) and the JSON it printed. Rejects on an exit code outside `okCodes`, with stderr's end.
 */
export function sampledRun(bin, args, env, okCodes = [0]) {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const p = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const s = sampleTree(p.pid);
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    p.once('exit', (code) => {
      const peak = s.stop();
      if (!okCodes.includes(code)) return reject(new Error(`verity ${args.join(' ')}: exit ${code} ${err.slice(-600)}`));
      resolve({ wall: (performance.now() - t) / 1000, peak, summary: JSON.parse(out) });
    });
  });
}
