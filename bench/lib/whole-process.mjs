// Whole-process server benchmarks (bench/server.mjs --process, bench/webhooks.mjs --process):
// two server PROCESSES — the shipped CLI and a bare one doing the same work — loaded in turn by
// autocannon in a third process, in interleaved rounds, with each server's CPU read from /proc.
//
// Why processes: a server measured in the benchmark's own process shares its heap, GC and event
// loop with the other server and with the harness, and is not what a user starts (`verity serve`
// goes through bin/verity.js, the CLI bundle, its logging, the analysis pool and the webhook
// worker). Only whole processes show what a user runs.
import { fork, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The command line's options shared by both whole-process benchmarks, with their defaults:
 * `{ arg, rounds, duration, slices, connections, warmup, cpuProf }` (`arg(name, default)` reads
 * any other `--name value`).
 */
export function options() {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : def;
  };
  return {
    arg,
    rounds: Math.max(1, Number(arg('rounds', 5))),
    duration: Number(arg('duration', 6)),
    slices: Math.max(1, Number(arg('slices', 2))),
    connections: Number(arg('connections', 50)),
    warmup: Number(arg('warmup', 3)),
    cpuProf: arg('cpu-prof', undefined),
  };
}

/** CPU seconds (user + system) of one process so far, from /proc/<pid>/stat (USER_HZ 100). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/**
 * Starts `node ARGS` as a server process whose stdout and stderr go to files (never a pipe that
 * this process would have to drain under load: that would put the harness's CPU in the run);
 * resolves `{ child, pid, url, stop }` once `readyFile` (stdout or stderr) holds `ready` (a regex
 * whose group 1 is the URL). `stop()` sends SIGTERM and waits for the exit.
 */
export function startServerProcess(args, { env = process.env, stdoutFile, stderrFile, ready = /Listening on (\S+)/, readyIn = 'stderr', timeoutMs = 30_000 }) {
  const out = openSync(stdoutFile, 'w');
  const err = openSync(stderrFile, 'w');
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', out, err] });
  closeSync(out);
  closeSync(err);
  const file = readyIn === 'stdout' ? stdoutFile : stderrFile;
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    let exited = false;
    child.once('exit', (code, signal) => {
      exited = true;
      reject(new Error(`${args.join(' ')} exited (${code ?? signal}) before it was ready: ${readFileSync(stderrFile, 'utf8').slice(-600)}`));
    });
    const poll = () => {
      if (exited) return;
      const m = ready.exec(readFileSync(file, 'utf8'));
      if (m)
        return resolve({
          child,
          pid: child.pid,
          url: m[1],
          stop: () => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM')))),
        });
      if (Date.now() - t0 > timeoutMs) {
        child.kill('SIGKILL');
        return reject(new Error(`${args.join(' ')} not ready within ${timeoutMs} ms`));
      }
      setTimeout(poll, 25);
    };
    poll();
  });
}

const loadChild = fileURLToPath(new URL('./load-child.mjs', import.meta.url));

/**
 * One autocannon run in a child process (bench/lib/load-child.mjs) against `url`, the server's CPU
 * read from /proc before and after: `{ reqs, total, duration, p50, p99, non2xx, errors,
 * cpuPerReq (µs, the server's), clientCpuPerReq (µs, autocannon's) }`.
 */
export function loadRun(pid, job) {
  return new Promise((resolve, reject) => {
    const child = fork(loadChild, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let before;
    let done = false;
    child.once('message', (m) => {
      if (m.ready) {
        // The load child has loaded autocannon: only now is the server's CPU read (the child's
        // start-up is not the server's work), then the run starts.
        before = cpuSeconds(pid);
        child.once('message', (r) => {
          const after = cpuSeconds(pid);
          done = true;
          child.kill();
          const serverCpuUs = (after - before) * 1e6;
          resolve({ ...r, serverCpuUs, clientCpuUs: r.clientCpuUs ?? 0, cpuPerReq: serverCpuUs / r.total, clientCpuPerReq: (r.clientCpuUs ?? 0) / r.total });
        });
        child.send({ go: true });
      }
    });
    child.once('error', reject);
    child.once('exit', (code) => done || reject(new Error(`the load generator exited (${code}) without a result`)));
    child.send(job);
  });
}

export const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

/** "median (min–max)" of a list, each value through `f`. */
export const spread = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;

/**
 * Interleaved rounds over two running servers `a` (measured) and `b` (anchor): each round runs
 * `slices` alternating loads (a b b a …, the first swapped every round), and the ratios are taken
 * within each round. `job(name, round, slice)` returns the load child's job for one slice.
 * Resolves the per-round sums for each server.
 */
export async function interleavedRounds({ a, b, rounds, slices, job, onSlice }) {
  const results = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const parts = { a: [], b: [] };
    for (let i = 0; i < slices; i++)
      for (const name of i % 2 === 0 ? first : [...first].reverse()) {
        const srv = name === 'a' ? a : b;
        const p = await loadRun(srv.pid, job(name, r, i));
        onSlice?.(name, r, p);
        parts[name].push(p);
      }
    results.push({ a: combineSlices(parts.a), b: combineSlices(parts.b) });
  }
  return results;
}

/**
 * One server's slices of a round as one run: sums, and the worst p50/p99. Each slice gives its
 * request `total`, `duration` (s), `p50`/`p99`, `non2xx`, `errors`, and the CPU the server and the
 * load generator spent in it (`serverCpuUs`, `clientCpuUs`). Shared by the whole-process and the
 * in-process rounds of bench/server.mjs, so both report the same fields the same way.
 */
export function combineSlices(ps) {
  const sum = (f) => ps.reduce((x, p) => x + f(p), 0);
  const total = sum((p) => p.total);
  const seconds = sum((p) => p.duration);
  const serverCpuUs = sum((p) => p.serverCpuUs);
  const clientCpuUs = sum((p) => p.clientCpuUs);
  return {
    total,
    reqs: total / seconds,
    p50: Math.max(...ps.map((p) => p.p50)),
    p99: Math.max(...ps.map((p) => p.p99)),
    non2xx: sum((p) => p.non2xx),
    errors: sum((p) => p.errors),
    cpuPerReq: serverCpuUs / total,
    serverCpu: serverCpuUs / 1e6 / seconds,
    clientCpuPerReq: clientCpuUs / total,
    clientCpu: clientCpuUs / 1e6 / seconds,
  };
}

/** One round of one server (a combineSlices result) as a table row; `label` names the second column. */
export function roundRow(name, i, r, label = 'server') {
  return {
    round: i + 1,
    [label]: name,
    'req/s': Math.round(r.reqs),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    'server CPU': `${Math.round(r.serverCpu * 100)} %`,
    'server CPU µs/req': Math.round(r.cpuPerReq),
    'autocannon CPU µs/req': Math.round(r.clientCpuPerReq),
  };
}

/** Prints the per-round table and the ratio lines; returns the ratios (for a goal check). */
export function report({ results, names, goal }) {
  console.table(results.flatMap((x, i) => [roundRow(names.a, i, x.a), roundRow(names.b, i, x.b)]));
  const byReqs = results.map((x) => x.a.reqs / x.b.reqs);
  const byCpu = results.map((x) => x.a.cpuPerReq / x.b.cpuPerReq);
  const x2 = (v) => `${v.toFixed(2)}×`;
  const us = (v) => `${Math.round(v)} µs`;
  console.log(`${names.a} ÷ ${names.b} req/s, per round: median (min–max) ${spread(byReqs, x2)}${goal ? ` (goal ≥ ${goal}×: ${median(byReqs) >= goal ? 'met' : 'NOT met'})` : ''}`);
  console.log(`${names.a} ÷ ${names.b} server CPU per request, per round: ${spread(byCpu, x2)}`);
  console.log(`server CPU per request: ${names.a} ${spread(results.map((x) => x.a.cpuPerReq), us)}; ${names.b} ${spread(results.map((x) => x.b.cpuPerReq), us)}`);
  console.log(`req/s: ${names.a} ${spread(results.map((x) => x.a.reqs), Math.round)}; ${names.b} ${spread(results.map((x) => x.b.reqs), Math.round)}`);
  const held = results.filter((x) => x.b.serverCpu < 0.9).length;
  if (held)
    console.log(
      `note: in ${held} of ${results.length} rounds the ${names.b} used < 90 % of a core: its req/s was bounded by the load generator or the shared machine; the CPU per request is the steadier comparison`,
    );
  return { byReqs, byCpu };
}
