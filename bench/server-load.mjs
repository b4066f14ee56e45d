// A fixed amount of sandbox claims against one fleet of bench/server-fleet.mjs, then exit: a
// whole-process run whose wall time is amount / throughput, so a timing tool can run two fleets in
// turn (A B A B …) and compare them pair by pair on a noisy machine. The connections are split
// evenly over the fleet's processes (as a load balancer would). Appends one JSON line per run to
// --log (setup, requests, seconds, non-2xx, serve and PostgreSQL CPU per request from /proc).
//   node bench/server-load.mjs FLEET_FILE FLEET [--amount 8000] [--connections 50] [--log FILE] [--idempotency] [--client wrk --duration 5]
// --idempotency: every request carries its own Idempotency-Key (autocannon only), to measure what
// keyed requests cost (each is one more statement, and their commits take the transaction).
// --client wrk: an ADDITIONAL, lighter load generator (C; Debian's `apt-get install wrk`), one wrk
// process per serve process, for --duration seconds (wrk has no fixed amount): its rows say
// "client": "wrk" and carry the generator's own CPU per request; autocannon stays the default.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { cpuOf, findWrk, postgresPids, wrkLoad } from './serve-processes.mjs';

const body = JSON.stringify({ claim: 'The Eiffel Tower is in Paris', max_evidence: 5 });

/** Runs `amount` requests against fleet `label`; keys never used by an earlier run (counter file). */
export async function runLoad(fleetFile, label, { amount = 8000, connections = 50, log, quiet = false, client = 'autocannon', duration = 5, idempotency = false } = {}) {
  const wrk = client === 'wrk' ? findWrk() : undefined;
  if (client === 'wrk' && !wrk) throw new Error('--client wrk: no wrk on PATH (apt-get install wrk)');
  if (wrk && idempotency) throw new Error('--idempotency is for autocannon runs only (the wrk script sends no Idempotency-Key)');
  // wrk runs for a duration: keys for up to 15,000 req/s of it.
  if (wrk) amount = duration * 15_000;
  const fleet = JSON.parse(readFileSync(fleetFile, 'utf8'));
  const f = fleet.fleets[label];
  if (!f) throw new Error(`no fleet "${label}" in ${fleetFile} (${Object.keys(fleet.fleets).join(', ')})`);
  const keys = JSON.parse(readFileSync(f.keys, 'utf8'));
  // 90 requests per key at most (limit 100/hour), keys in order from where the last run stopped.
  const need = Math.ceil(amount / 90);
  let from = 0;
  try {
    from = Number(readFileSync(`${fleet.counter}.${label.startsWith('pg') ? 'pg' : 'sqlite'}`, 'utf8'));
  } catch {
    // first run
  }
  if (from + need > keys.length) throw new Error(`out of keys (${keys.length}): start a new fleet with more --keys`);
  writeFileSync(`${fleet.counter}.${label.startsWith('pg') ? 'pg' : 'sqlite'}`, String(from + need));
  const mine = keys.slice(from, from + need);
  let next = 0;
  // Loaded before the clock starts: the import alone takes ~160-190 ms, which would count against
  // the fleet's throughput.
  const autocannon = wrk ? undefined : (await import('autocannon')).default;
  // Keys of --idempotency runs are unique across runs (a pid can repeat, and records live 24 h in
  // a fleet's database: a repeated key would be a cheap replay counted as throughput).
  const idemPrefix = `load-${randomUUID()}`;
  const before = { serve: cpuOf(f.pids), pg: f.postgres ? cpuOf(postgresPids()) : 0 };
  const t0 = performance.now();
  if (wrk) {
    const w = await wrkLoad(wrk, f.urls, mine, { connections, duration, body, dir: tmpdir() });
    const after = { serve: cpuOf(f.pids), pg: f.postgres ? cpuOf(postgresPids()) : 0 };
    const row = {
      setup: label,
      client: 'wrk',
      processes: f.urls.length,
      requests: w.total,
      seconds: Number(w.duration.toFixed(3)),
      reqPerSec: Math.round(w.reqs),
      p99: w.p99,
      non2xx: w.non2xx + w.errors,
      serveCpuPerReq: Math.round(((after.serve - before.serve) * 1e6) / w.total),
      pgCpuPerReq: Math.round(((after.pg - before.pg) * 1e6) / w.total),
      clientCpuPerReq: Math.round(w.clientCpuUs / w.total),
    };
    if (log) appendFileSync(log, `${JSON.stringify(row)}\n`);
    if (!quiet) process.stdout.write(`${JSON.stringify(row)}\n`);
    return row;
  }
  const cpu0 = process.cpuUsage();
  const statuses = new Map();
  const rs = await Promise.all(
    f.urls.map((url, i) =>
      autocannon({
        url,
        method: 'POST',
        connections: Math.floor(connections / f.urls.length) + (i < connections % f.urls.length ? 1 : 0),
        amount: Math.floor(amount / f.urls.length) + (i < amount % f.urls.length ? 1 : 0),
        // autocannon notices that `amount` is reached only on its sampling tick (1 s by default),
        // which rounded every run's wall time up to whole seconds (± 15 % of a 7 s run).
        sampleInt: 20,
        requests: [
          {
            method: 'POST',
            body,
            setupRequest: (req) => ({
              ...req,
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${mine[next++ % mine.length]}`,
                ...(idempotency ? { 'idempotency-key': `${idemPrefix}-${next}` } : {}),
              },
            }),
            // Keyed runs say which statuses their non-2xx answers were (a keyed request can get 409).
            ...(idempotency ? { onResponse: (status) => status >= 300 && statuses.set(status, (statuses.get(status) ?? 0) + 1) } : {}),
          },
        ],
      }),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const after = { serve: cpuOf(f.pids), pg: f.postgres ? cpuOf(postgresPids()) : 0 };
  const total = rs.reduce((a, r) => a + r.requests.total, 0);
  const row = {
    setup: label,
    ...(idempotency ? { idempotency: true, statuses: Object.fromEntries(statuses) } : {}),
    processes: f.urls.length,
    requests: total,
    seconds: Number(seconds.toFixed(3)),
    reqPerSec: Math.round(total / seconds),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    non2xx: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
    serveCpuPerReq: Math.round(((after.serve - before.serve) * 1e6) / total),
    pgCpuPerReq: Math.round(((after.pg - before.pg) * 1e6) / total),
    // this process's CPU over the run: autocannon's
    clientCpuPerReq: Math.round((cpu.user + cpu.system) / total),
  };
  if (log) appendFileSync(log, `${JSON.stringify(row)}\n`);
  if (!quiet) process.stdout.write(`${JSON.stringify(row)}\n`);
  return row;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : def;
  };
  const [fleetFile, label] = process.argv.slice(2);
  await runLoad(fleetFile, label, {
    amount: Number(arg('amount', 8000)),
    connections: Number(arg('connections', 50)),
    log: arg('log', undefined),
    client: arg('client', 'autocannon'),
    duration: Number(arg('duration', 5)),
    idempotency: process.argv.includes('--idempotency'),
  });
}
