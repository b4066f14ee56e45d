// `node bench/webhooks.mjs --process`: the SHIPPED `verity listen` (the built bin/verity.js, as a
// user starts it: one line per event on stdout, here to a file) against a bare node:http process
// doing the same work for each event (bench/bare/webhook-receiver.mjs, whose header lists it:
// HMAC over the raw bytes in constant time, JSON parse, envelope and age checks, dedupe over the
// last 100,000 ids, a line per event), each its own process, loaded in turn by autocannon from a
// third process (bench/lib/whole-process.mjs). Every event is distinct (its own id, signed as it is
// sent), so every one is fully checked and the seen-id memory fills and evicts. This is the
// figure the README quotes for the listener.
//   node bench/webhooks.mjs --process [--rounds 5] [--duration 6] [--slices 2] [--connections 50] [--warmup 3] [--cpu-prof DIR]
// Rounds as in bench/lib/serve-whole-process.mjs: --duration seconds per receiver and round in --slices
// alternating slices, the first swapped every round; req/s and CPU per event (utime + stime from
// /proc/<pid>/stat around each slice) summed per round, ratios within the round, median and range.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleavedRounds, loadRun, options, report, startServerProcess } from './whole-process.mjs';

const SECRET = 'bench-secret-0123456789-0123456789-abcdef';

export async function main() {
  const { rounds, duration, slices, connections, warmup, cpuProf } = options();
  const bin = fileURLToPath(new URL('../../bin/verity.js', import.meta.url));
  const bare = fileURLToPath(new URL('../bare/webhook-receiver.mjs', import.meta.url));
  const home = mkdtempSync(join(tmpdir(), 'verity-bench-listen-'));
  const servers = [];
  const stopAll = () => Promise.all(servers.map((s) => s.stop()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    const verity = await startServerProcess([...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), bin, 'listen', '--port', '0', '--secret', SECRET], {
      env: { ...process.env, VERITY_HOME: join(home, 'home'), NO_COLOR: '1' },
      stdoutFile: join(home, 'verity.out'),
      stderrFile: join(home, 'verity.err'),
    });
    servers.push(verity);
    const anchor = await startServerProcess([bare, '--secret', SECRET], { stdoutFile: join(home, 'bare.out'), stderrFile: join(home, 'bare.err') });
    servers.push(anchor);
    const salt = () => randomBytes(4).toString('hex');
    const job = (s, seconds) => ({ kind: 'webhook', url: `${s.url}/webhooks`, secret: SECRET, salt: salt(), connections, duration: seconds });
    for (const s of [anchor, verity]) await loadRun(s.pid, job(s, warmup));
    const results = await interleavedRounds({
      a: verity,
      b: anchor,
      rounds,
      slices,
      job: (name) => job(name === 'a' ? verity : anchor, duration / slices),
      onSlice: (name, r, p) => process.stderr.write(`bench: round ${r + 1} ${name === 'a' ? 'verity listen' : 'bare node:http'}: ${Math.round(p.total / p.duration)} events/s, ${Math.round(p.cpuPerReq)} µs CPU/event\n`),
    });
    console.log(
      `whole processes, autocannon in a third process: distinct signed events, ${connections} connections, ${duration} s per receiver and round in ${slices} alternating slices, ${rounds} rounds, node ${process.version}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    );
    console.log('verity: `node bin/verity.js listen --port 0 --secret S` (a line per event on stdout, to a file); bare: bench/bare/webhook-receiver.mjs (node:http: HMAC, parse, envelope, dedupe, a line per event)');
    const ratios = report({ results, names: { a: 'verity listen', b: 'bare node:http' }, goal: 0.9 });
    const events = results.reduce((x, r) => x + r.a.total, 0);
    console.log(`events measured: verity listen ${events.toLocaleString('en')}, bare ${results.reduce((x, r) => x + r.b.total, 0).toLocaleString('en')} (non-2xx must be 0: every event accepted)`);
    return ratios;
  } finally {
    await stopAll();
    rmSync(home, { recursive: true, force: true });
  }
}
