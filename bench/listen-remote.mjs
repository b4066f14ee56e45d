#!/usr/bin/env node
/**
 * `verity listen --remote` latency (issue 29; the BUILT CLI: `npm run build` first).
 *
 * `verity serve` (SQLite, loopback) stands in for the remote service; `verity listen --remote`
 * (child process, connects out) forwards every event to an app in this process at /stream. As the
 * anchor, measured in the same run on the same events: a webhook registered on the service for
 * a local `verity listen --port 0` (child process) that forwards to the same app at /delivery —
 * the outbox delivery path that `listen --remote` replaces. Claims are sent one at a time (test
 * key, sandbox, a new claim text each), so each event's two arrivals are measured alone.
 *
 * Latency of an event = the app's arrival time − the moment the claim request was answered
 * (performance.now() in this process; both clocks are this process's). It can be negative: the
 * event is written in the request's transaction and may be streamed before the answer reaches us.
 *
 * --postgres (under pg_virtualenv, or VERITY_BENCH_DATABASE_URL): two serve processes on one
 * throwaway PostgreSQL database; claims go to process 1, listen --remote and the registered
 * webhook's delivery use process 2, so the stream's events cross processes (NOTIFY).
 *
 * Options: --events <n> (default 60), --warmup <n> (default 5), --postgres.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgAdminUrl, throwawayDatabase } from './serve-processes.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const EVENTS = arg('events', 60);
const WARMUP = arg('warmup', 5);
const POSTGRES = process.argv.includes('--postgres');
const BIN = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'verity-bench-listen-remote-'));
const db = join(home, 'serve.db');
const env = { ...process.env, VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '', VERITY_DATABASE_URL: '', VERITY_WEBHOOK_SECRET: '' };

const children = [];
const cleanup = () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(home, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

const cli = (args) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`verity ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim();
};

/** The last output of each child, printed when a run fails. */
const tails = [];
const tailsText = () => tails.map((t) => `--- verity ${t.name}:\n${t.text.slice(-3000)}`).join('\n');

/** Starts `verity ARGS` and resolves with the first stderr line matching `ready`. */
function start(args, ready) {
  const p = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  const tail = { name: args.slice(0, 2).join(' '), text: '' };
  tails.push(tail);
  const keep = (c) => (tail.text = (tail.text + c).slice(-20_000));
  p.stdout.on('data', keep);
  return new Promise((resolve, reject) => {
    let buf = '';
    p.stderr.on('data', (c) => {
      keep(c);
      buf += c;
      const m = buf.split('\n').find((l) => ready.test(l));
      if (m) resolve(m);
    });
    p.on('exit', (code) => reject(new Error(`verity ${args[0]} exited (${code}) before it was ready: ${buf.slice(-600)}`)));
  });
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

const arrivals = new Map(); // request id → { stream, delivery }
let waiter;
const app = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const at = performance.now();
    res.end('{"ok":true}');
    try {
      const id = JSON.parse(body).data?.request_id;
      const a = arrivals.get(id) ?? {};
      a[req.url === '/stream' ? 'stream' : 'delivery'] = at;
      arrivals.set(id, a);
      if (a.stream !== undefined && a.delivery !== undefined) waiter?.(id);
    } catch {
      // not an event: ignored
    }
  });
});
await new Promise((r) => app.listen(0, '127.0.0.1', r));
const appUrl = `http://127.0.0.1:${app.address().port}`;

// Test keys allow 100 requests an hour each (the report-back of every event counts too): claims
// are spread over keys of the same account, whose events the listener's key streams.
let pg;
if (POSTGRES) {
  const admin = pgAdminUrl();
  if (!admin) throw new Error('--postgres needs a PostgreSQL server: run under pg_virtualenv, or set VERITY_BENCH_DATABASE_URL');
  pg = await throwawayDatabase(admin, 'verity_bench_listen_remote');
}
const store = pg ? pg.url : db;
const key = cli(['admin', 'keys', 'create', '--name', 'bench', '--env', 'test', '--plan', 'enterprise', '--db', store]);
const claimKeys = Array.from({ length: Math.ceil((WARMUP + EVENTS) / 90) }, (_, i) =>
  cli(['admin', 'keys', 'create', '--name', `bench-claims-${i}`, '--env', 'test', '--plan', 'enterprise', '--db', store]),
);
if (WARMUP + EVENTS > 95) throw new Error('at most 95 events a run: the listener key reports each one and test keys allow 100 requests an hour');
const serveOne = async () =>
  (await start(['serve', '--port', '0', '--db', store, '--allow-private-webhooks', '--log-level', 'warn'], /^Listening on /)).replace('Listening on ', '').trim();
const serveUrl = await serveOne();
// On PostgreSQL the claims go to another process than the stream's.
const claimUrl = pg ? await serveOne() : serveUrl;
const secret = cli(['listen', '--print-secret']);
const localUrl = (await start(['listen', '--port', '0', '--secret', secret, '--forward-to', `${appUrl}/delivery`], /^Listening on /)).replace('Listening on ', '').trim();
cli(['webhooks', 'add', `${localUrl}/`, '--events', 'verification.completed', '--secret', secret, '--remote', serveUrl, '--key', key]);
await start(['listen', '--remote', serveUrl, '--key', key, '--events', 'verification.completed', '--forward-to', `${appUrl}/stream`], /^Connected to /);

const stream = [];
const delivery = [];
const answer = [];
const load = [loadavg()[0]];
for (let i = 0; i < WARMUP + EVENTS; i++) {
  const t0 = performance.now();
  const res = await fetch(`${claimUrl}/v1/verify/claim`, {
    method: 'POST',
    headers: { authorization: `Bearer ${claimKeys[Math.floor(i / 90)]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ claim: `Benchmark claim number ${i} about the Eiffel Tower in Paris` }),
  });
  const { id } = await res.json();
  const answered = performance.now();
  if (res.status !== 200) throw new Error(`claim answered ${res.status}`);
  const both = () => arrivals.get(id)?.stream !== undefined && arrivals.get(id)?.delivery !== undefined;
  if (!both())
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`event of ${id} did not arrive both ways within 30 s: ${JSON.stringify(arrivals.get(id) ?? {})}\n${tailsText()}`)), 30_000);
      waiter = (got) => got === id && (clearTimeout(t), resolve());
    });
  if (i < WARMUP) continue;
  const a = arrivals.get(id);
  stream.push(a.stream - answered);
  delivery.push(a.delivery - answered);
  answer.push(answered - t0);
}
load.push(loadavg()[0]);

const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;
console.log(`${pg ? 'PostgreSQL, claims on serve process 1, the stream from process 2 (deliveries by whichever worker claims them)' : 'SQLite, one serve process'}`);
console.log(`listen --remote latency, ${EVENTS} verification.completed events one at a time (after ${WARMUP} warm-up), load average ${load.map((l) => l.toFixed(1)).join(' → ')}`);
console.log(`  claim request, sent → answered:                     ${fmt(answer)}`);
console.log(`  event stream, answered → app (listen --remote):     ${fmt(stream)}`);
console.log(`  anchor: delivery, answered → app (serve → listen):  ${fmt(delivery)}`);
console.log(`  ratio stream / delivery: p50 ${(pct(stream, 50) / pct(delivery, 50)).toFixed(2)}, p95 ${(pct(stream, 95) / pct(delivery, 95)).toFixed(2)}`);
app.close();
for (const c of children) c.kill('SIGTERM');
await pg?.drop();
process.exit(0);
