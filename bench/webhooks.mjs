#!/usr/bin/env node
/**
 * Webhooks benchmark (imports the BUILT code; `npm run build` first).
 *
 * 1. Listener throughput: `verity listen`'s server (startListener) in a child process; autocannon
 *    sends valid signed events, each with its own id (so every one is fully checked, none is a
 *    duplicate). Goal: ≥ 5,000 events/s on this machine.
 * 2. Delivery worker: 50 slow local endpoints (150 ms per answer, in a child process) with a
 *    backlog each; the worker must hold 10 events/s on every endpoint at once, never more than
 *    10 in any 1 s window.
 *
 * Options: --duration <s> (autocannon, default 10), --worker-seconds <s> (default 12).
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

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

async function listenerThroughput(duration) {
  const { proc, line } = await child(`
    import { startListener } from ${JSON.stringify(join(dist, 'webhooks/listener.js'))};
    let n = 0, refused = 0;
    const l = await startListener({ secrets: [${JSON.stringify(SECRET)}], port: 0, onRecord: (r) => { if (r.outcome === 'accepted') n++; else refused++; } });
    console.log(l.url);
    process.on('SIGTERM', () => { console.error(JSON.stringify({ accepted: n, refused })); process.exit(0); });
    process.stdin.resume();
  `);
  // Pre-signed distinct events, so the load generator spends no time on HMACs.
  const created = new Date().toISOString();
  const bodies = Array.from({ length: 100_000 }, (_, i) => {
    const body = JSON.stringify({
      id: `wh_bench${i}${randomBytes(6).toString('hex')}`,
      type: 'verification.completed',
      created_at: created,
      data: { request_id: `vrf_clm_bench${i}`, request_type: 'claim', trust_score: 0.8, verdict: 'true', evidence: [], latency_ms: 10 },
    });
    return { body, sig: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
  });
  let k = 0;
  const result = await autocannon({
    url: line,
    connections: 50,
    pipelining: 1,
    duration,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const b = bodies[k++ % bodies.length];
          return { ...req, body: b.body, headers: { 'content-type': 'application/json', 'x-service-signature': b.sig } };
        },
      },
    ],
  });
  proc.kill('SIGTERM');
  const non2xx = result.non2xx;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total, non2xx, errors: result.errors };
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
  const { openStore } = await import(join(dist, 'store/database.js'));
  const { createWebhook, enqueueEvent, ensureWebhookSchema } = await import(join(dist, 'webhooks/repository.js'));
  const { envelope } = await import(join(dist, 'webhooks/events.js'));
  const { createDeliveryWorker } = await import(join(dist, 'webhooks/delivery.js'));
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
    db: store.db,
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

const l = await listenerThroughput(arg('duration', 10));
const w = await workerHold(arg('worker-seconds', 12));
const { loadavg, cpus } = await import('node:os');
console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (other work shares the CPU)`);
const row = (a, b, c) => console.log(`${a.padEnd(44)}${String(b).padStart(14)}  ${c}`);
row('measure', 'value', 'goal');
row('listener: signed events/s (50 connections)', Math.round(l.rps), '≥ 5,000');
row('listener: latency p50 / p99 (ms)', `${l.p50} / ${l.p99}`, '');
row('listener: non-2xx / errors', `${l.non2xx} / ${l.errors}`, '0 / 0');
row(`worker: endpoints (${w.latency} ms each) receiving`, w.endpoints, '50');
row('worker: events/s per endpoint min/med/max', `${w.min.toFixed(1)}/${w.median.toFixed(1)}/${w.max.toFixed(1)}`, '10 each');
row('worker: most sends started in any 1 s window', w.maxSendWindow, '≤ 10');
row('worker: most arrivals in any 1 s (receiver clock)', w.maxWindow, '≤ 10 (+ machine jitter)');
row('worker: failed attempts', w.failures, '0');
const ok = l.rps >= 5000 && w.min >= 9.5 && w.maxSendWindow <= 10 && w.failures === 0 && l.non2xx === 0;
console.log(ok ? 'all goals met' : 'GOAL MISSED');
process.exit(ok ? 0 : 1);
