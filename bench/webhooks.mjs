#!/usr/bin/env node
/**
 * Webhooks benchmark (imports the BUILT code; `npm run build` first).
 *
 * 1. Listener at scale: `verity listen`'s server (startListener) in a child process; autocannon
 *    sends --events (default 1,000,000) valid signed events, each with its own id (signed as it
 *    is sent, so every one is distinct and fully checked; none is a duplicate, and the listener's
 *    seen-id cache of 100,000 fills and then evicts for the rest of the run). The listener marks
 *    the time of every 10,000th accepted event; the rate over the first and the last 100,000 is
 *    compared. Goals: ≥ 5,000 events/s, and the end rate ≥ 90 % of the start rate.
 *    On a shared machine the load generator, not the listener, usually sets that rate (the listener
 *    ran at ~15 % of a core in our runs), so the wall-clock ratio moves with other work.
 * 1b. Seen-id memory in isolation (the part issue 19 fixed): CPU time per event for the first and
 *    the last 100,000 of 1,000,000 distinct ids, for the listener's SeenIds and, as the anchor in
 *    the same run, the old `set.delete(set.values().next().value)` eviction.
 * 2. Delivery worker: 50 slow local endpoints (150 ms per answer, in a child process) with a
 *    backlog each; the worker must hold 10 events/s on every endpoint at once, never more than
 *    10 in any 1 s window.
 *
 * Options: --events <n> (default 1,000,000), --worker-seconds <s> (default 12).
 * --process: instead of the above, the whole-process comparison of `verity listen` with a bare
 * node:http receiver (bench/lib/listen-whole-process.mjs; its options are listed there).
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

// --process: the figure the README quotes (bench/lib/listen-whole-process.mjs): the shipped `verity
// listen` as a process against a bare node:http receiver process doing the same work.
if (process.argv.includes('--process')) {
  const { main } = await import('./lib/listen-whole-process.mjs');
  await main();
  process.exit(0);
}

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const SECRET = 'bench-secret-0123456789-0123456789-abcdef';

const children = [];
// Never leave a child behind, whatever way this process ends.
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));
process.on('uncaughtException', (err) => {
  console.error(err);
  process.exit(1);
});

/** Runs module code in a child process; resolves with the first stdout line (its ready line). */
function child(code) {
  const p = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(p);
  return new Promise((resolve, reject) => {
    let buf = '';
    p.stdout.on('data', (c) => {
      buf += c;
      const i = buf.indexOf('\n');
      if (i >= 0) resolve({ proc: p, line: buf.slice(0, i) });
    });
    p.on('exit', (c) => reject(new Error(`child exited ${c}`)));
  });
}

async function listenerThroughput(events) {
  const { proc, line } = await child(`
    import { startListener } from ${JSON.stringify(join(dist, 'webhooks/listener.js'))};
    let n = 0, refused = 0;
    const marks = [];
    const l = await startListener({ secrets: [${JSON.stringify(SECRET)}], port: 0, onRecord: (r) => {
      if (r.outcome !== 'accepted') return void refused++;
      if (++n % 10000 === 0) { const c = process.cpuUsage(); marks.push([n, performance.now(), (c.user + c.system) / 1000]); }
    } });
    console.log(l.url);
    process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ accepted: n, refused, marks }) + '\\n', () => process.exit(0)); });
    process.stdin.resume();
  `);
  // Signed as sent: a million distinct ids without a million bodies held in memory.
  const created = new Date().toISOString();
  const salt = randomBytes(4).toString('hex');
  let k = 0;
  const result = await autocannon({
    url: line,
    connections: 50,
    pipelining: 1,
    amount: events,
    timeout: 30,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const i = k++;
          const body = JSON.stringify({
            id: `wh_bench${salt}${i}`,
            type: 'verification.completed',
            created_at: created,
            data: { request_id: `vrf_clm_bench${i}`, request_type: 'claim', trust_score: 0.8, verdict: 'true', evidence: [], latency_ms: 10 },
          });
          const sig = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
          return { ...req, body, headers: { 'content-type': 'application/json', 'x-service-signature': sig } };
        },
      },
    ],
  });
  const counts = await new Promise((resolve) => {
    let buf = '';
    proc.stdout.on('data', (c) => {
      buf += c;
      if (buf.endsWith('\n')) resolve(JSON.parse(buf.trim().split('\n').pop()));
    });
    proc.kill('SIGTERM');
  });
  // Rate over a span of marks: events per second of wall time, and per second of the listener's
  // own CPU time (the machine is shared: other work moves the first, hardly the second).
  const rate = (from, to, col = 1) => {
    const a = counts.marks.find((m) => m[0] === from);
    const b = counts.marks.find((m) => m[0] === to);
    return a && b ? ((to - from) / (b[col] - a[col])) * 1000 : NaN;
  };
  const last = counts.marks.at(-1)?.[0] ?? 0;
  // Start: events 10k–110k (after warm-up, before the seen-id cache is full); end: the last 100k.
  const start = rate(10_000, 110_000);
  const end = rate(last - 100_000, last);
  const cpuStart = rate(10_000, 110_000, 2);
  const cpuEnd = rate(last - 100_000, last, 2);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    accepted: counts.accepted,
    refused: counts.refused,
    start,
    end,
    cpuStart,
    cpuEnd,
    last,
  };
}

async function seenIdsScaling(events) {
  const { SeenIds } = await import(join(dist, 'webhooks/listener.js'));
  class OldSeen {
    ids = new Set();
    has(id) { return this.ids.has(id); }
    add(id) {
      this.ids.add(id);
      if (this.ids.size > 100_000) this.ids.delete(this.ids.values().next().value);
    }
  }
  const run = (seen) => {
    const per = [];
    let t = process.cpuUsage();
    for (let i = 0; i < events; i++) {
      const id = `wh_scale${i}`;
      if (!seen.has(id)) seen.add(id);
      if ((i + 1) % 100_000 === 0) {
        const c = process.cpuUsage(t);
        per.push((c.user + c.system) / 100_000); // µs per event
        t = process.cpuUsage();
      }
    }
    return { first: per[0], last: per.at(-1) };
  };
  return { now: run(new SeenIds()), old: run(new OldSeen()) };
}

async function workerHold(seconds) {
  const ENDPOINTS = 50;
  const LATENCY = 150;
  const { proc, line } = await child(`
    import { createServer } from 'node:http';
    const ports = [];
    const arrivals = {};
    for (let i = 0; i < ${ENDPOINTS}; i++) {
      const s = createServer((req, res) => {
        const t = Date.now();
        req.resume();
        req.on('end', () => setTimeout(() => { (arrivals[req.url] ??= []).push(t); res.end('ok'); }, ${LATENCY}));
      });
      await new Promise((r) => s.listen(0, '127.0.0.1', r));
      ports.push(s.address().port);
    }
    console.log(JSON.stringify(ports));
    process.on('SIGTERM', () => { process.stdout.write(JSON.stringify(arrivals) + '\\n', () => process.exit(0)); });
  `);
  const ports = JSON.parse(line);
  const { openStore } = await import(join(dist, 'store/local/database.js'));
  const { createWebhook, enqueueEvent, ensureWebhookSchema } = await import(join(dist, 'store/sqlite/webhooks.js'));
  const { envelope } = await import(join(dist, 'domain/events.js'));
  const { createDeliveryWorker } = await import(join(dist, 'webhooks/delivery.js'));
  const { sqliteOutbox } = await import(join(dist, 'store/sqlite/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'verity-bench-wh-'));
  const store = await openStore(join(dir, 'verity.db'));
  ensureWebhookSchema(store.db);
  // One account per endpoint, so each event fans out to exactly one endpoint.
  ports.forEach((p, i) => createWebhook(store.db, `acct${i}`, { url: `http://127.0.0.1:${p}/e${i}`, events: ['verification.completed'], secret: SECRET }, new Date()));
  const perEndpoint = seconds * 10 + 20; // a backlog larger than the window can drain
  const now = Date.now();
  store.db.transaction(() => {
    for (let j = 0; j < perEndpoint; j++)
      for (let i = 0; i < ENDPOINTS; i++) enqueueEvent(store.db, `acct${i}`, envelope('verification.completed', { n: j }, new Date()), now);
  })();
  let failures = 0;
  const sendStarts = new Map();
  const worker = createDeliveryWorker({
    outbox: sqliteOutbox(store.db),
    onAttempt: (r) => {
      if (!r.ok) failures++;
      sendStarts.set(r.url, [...(sendStarts.get(r.url) ?? []), r.startedAt]);
    },
  });
  const t0 = Date.now();
  worker.start();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  await worker.stop({ abort: true });
  const out = await new Promise((resolve) => {
    let buf = '';
    proc.stdout.on('data', (c) => {
      buf += c;
      if (buf.endsWith('\n')) resolve(JSON.parse(buf.trim().split('\n').pop()));
    });
    proc.kill('SIGTERM');
  });
  store.close();
  rmSync(dir, { recursive: true, force: true });
  // Steady state: skip the first second (ramp-up), count the rest.
  const rates = [];
  let maxWindow = 0;
  let maxSendWindow = 0;
  const window = (times) => {
    const s = [...times].sort((a, b) => a - b);
    let m = 0;
    for (let i = 0, j = 0; i < s.length; i++) {
      while (s[i] - s[j] >= 1000) j++;
      m = Math.max(m, i - j + 1);
    }
    return m;
  };
  for (const times of sendStarts.values()) maxSendWindow = Math.max(maxSendWindow, window(times));
  for (const times of Object.values(out)) {
    const steady = times.filter((t) => t >= t0 + 1000 && t < t0 + seconds * 1000);
    rates.push(steady.length / (seconds - 1));
    maxWindow = Math.max(maxWindow, window(times));
  }
  rates.sort((a, b) => a - b);
  return { endpoints: Object.keys(out).length, min: rates[0], median: rates[Math.floor(rates.length / 2)], max: rates.at(-1), maxWindow, maxSendWindow, failures, latency: LATENCY };
}

const l = await listenerThroughput(arg('events', 1_000_000));
const sc = await seenIdsScaling(arg('events', 1_000_000));
const w = await workerHold(arg('worker-seconds', 12));
const { loadavg, cpus } = await import('node:os');
console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (other work shares the CPU)`);
const row = (a, b, c) => console.log(`${a.padEnd(44)}${String(b).padStart(14)}  ${c}`);
row('measure', 'value', 'goal');
row('listener: distinct signed events accepted', l.accepted.toLocaleString('en'), `${l.total.toLocaleString('en')} sent`);
row('listener: signed events/s (50 connections)', Math.round(l.rps), '≥ 5,000');
row('listener: events/s, events 10k–110k (start)', Math.round(l.start), '');
row(`listener: events/s, last 100k (to ${l.last.toLocaleString('en')})`, Math.round(l.end), '');
row('listener: end rate / start rate (wall clock)', `${((l.end / l.start) * 100).toFixed(1)} %`, '≥ 90 %');
row('listener: events per CPU-second, start / end', `${Math.round(l.cpuStart)} / ${Math.round(l.cpuEnd)}`, '');
row('listener: end / start per CPU-second', `${((l.cpuEnd / l.cpuStart) * 100).toFixed(1)} %`, '(listener mostly idle: see header)');
row('seen ids: µs/event, first / last 100k (SeenIds)', `${sc.now.first.toFixed(2)} / ${sc.now.last.toFixed(2)}`, 'last ≤ first / 0.9');
row('seen ids: µs/event, first / last 100k (old Set)', `${sc.old.first.toFixed(2)} / ${sc.old.last.toFixed(2)}`, 'anchor');
row('listener: latency p50 / p99 (ms)', `${l.p50} / ${l.p99}`, '');
row('listener: non-2xx / errors', `${l.non2xx} / ${l.errors}`, '0 / 0');
row(`worker: endpoints (${w.latency} ms each) receiving`, w.endpoints, '50');
row('worker: events/s per endpoint min/med/max', `${w.min.toFixed(1)}/${w.median.toFixed(1)}/${w.max.toFixed(1)}`, '10 each');
row('worker: most sends started in any 1 s window', w.maxSendWindow, '≤ 10');
row('worker: most arrivals in any 1 s (receiver clock)', w.maxWindow, '≤ 10 (+ machine jitter)');
row('worker: failed attempts', w.failures, '0');
// The seen-id goal allows 0.5 µs of timer noise: both figures are ~1 µs against ~50 µs per event.
const ok = l.rps >= 5000 && l.end >= 0.9 * l.start && sc.now.last <= sc.now.first / 0.9 + 0.5 && l.accepted === l.total && w.min >= 9.5 && w.maxSendWindow <= 10 && w.failures === 0 && l.non2xx === 0;
console.log(ok ? 'all goals met' : 'GOAL MISSED');
process.exit(ok ? 0 : 1);
