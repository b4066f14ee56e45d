#!/usr/bin/env node
/**
 * Event stream benchmark (issue 29; imports the BUILT code: `npm run build` first). Loopback only.
 *
 * 1. Latency, event creation → stream message, across processes: three `verity serve` processes on
 *    one PostgreSQL database (a throwaway database on the server pg_virtualenv or
 *    VERITY_BENCH_DATABASE_URL names; skipped without one), a stream held by process 3, events made
 *    one at a time by POST /v1/events/trigger on processes 1 and 2. Two figures per event: from the
 *    trigger request's start to the message's arrival at the stream's client (the whole path:
 *    request, commit, NOTIFY, the stream's read and write), and from the event's `created_at`
 *    (stamped before the commit) to arrival. Anchor in the same run: one serve on a SQLite file
 *    (trigger and stream on the same process).
 * 2. Memory with a reader that stops reading: in process (dist/), a SQLite server store and the
 *    stream plugin with the default 1 MiB bound; a client that opens a stream and never reads; events
 *    written through the outbox until the stream is cut. Reports the bytes buffered at the cut and
 *    the process's RSS / heap growth, against a reader that reads the same events (anchor). The
 *    drain wait is --drain-ms (default 3 s here; 30 s in serve) so the run is short.
 *
 * Options: --events <n> (default 200), --memory-events <n> (default 30,000), --drain-ms <ms> (3,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgAdminUrl, seedTestKeys, serveProcess, throwawayDatabase } from './serve-processes.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const EVENTS = arg('events', 200);
const MEMORY_EVENTS = arg('memory-events', 30_000);
/** How long a stream with unsent bytes waits for its reader here (the server's default is 30 s). */
const DRAIN_MS = arg('drain-ms', 3_000);
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const children = [];
process.on('exit', () => children.forEach((c) => c.child.kill('SIGKILL')));

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (n=${xs.length})`;

/** A minimal SSE reader: calls onEvent(id, data, arrivalMs) for each message with an id. */
function stream(url, key, onEvent) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/events/stream`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        const at = performance.now();
        const wall = Date.now();
        buf += c;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const msg = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const id = /^id: (.*)$/m.exec(msg)?.[1];
          const data = /^data: (.*)$/m.exec(msg)?.[1];
          if (/^event: session$/m.test(msg)) resolve(() => req.destroy());
          if (id && data) onEvent(id, JSON.parse(data), at, wall);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Events made one at a time on `makers` (round robin), each awaited on the stream held at `holder`. */
async function latency(makers, holder, keys, label) {
  // Every message by id (it may arrive before the trigger's answer is read), and who waits for which.
  const arrived = new Map();
  const waiters = new Map();
  const close = await stream(holder, keys[0], (id, data, at, wall) => {
    arrived.set(id, [at, wall, data]);
    waiters.get(id)?.();
  });
  const total = [];
  const fromCreated = [];
  try {
    for (let i = 0; i < EVENTS; i++) {
      const key = keys[1 + (Math.floor(i / 90) % (keys.length - 1))];
      const started = performance.now();
      const res = await fetch(`${makers[i % makers.length]}/v1/events/trigger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{"type":"verification.completed"}',
      });
      if (res.status !== 201) throw new Error(`trigger answered ${res.status}: ${await res.text()}`);
      const { event_id } = await res.json();
      if (!arrived.has(event_id)) await new Promise((r) => waiters.set(event_id, r));
      waiters.delete(event_id);
      const [at, wall, data] = arrived.get(event_id);
      total.push(at - started);
      fromCreated.push(wall - Date.parse(data.created_at));
    }
  } finally {
    close();
  }
  console.log(`  ${label}: trigger start → stream message: ${fmt(total)}`);
  console.log(`  ${label}: created_at → stream message:     ${fmt(fromCreated)}`);
  return { total, fromCreated };
}

async function latencyBench() {
  const home = mkdtempSync(join(tmpdir(), 'verity-stream-bench-'));
  const keysNeeded = Math.ceil(EVENTS / 90) + 2;
  const admin = pgAdminUrl();
  const sqliteFile = join(home, 'serve.db');
  let db;
  try {
    db = admin ? await throwawayDatabase(admin, `verity_stream_bench_${process.pid}`) : undefined;
    const { pgKeys, sqliteKeys } = await seedTestKeys({ dbUrl: db?.url, sqliteFile, count: keysNeeded, accounts: 1, prefix: 'sb' }).catch(async (err) => {
      if (db) throw err;
      return seedSqliteOnly(sqliteFile, keysNeeded);
    });
    console.log(`1. Latency, ${EVENTS} events one at a time`);
    const one = await serveProcess(bin, sqliteFile, home);
    children.push(one);
    // One account, test environment: key 0 holds the stream, the others make the events (100/hour each).
    await latency([one.url], one.url, sqliteKeys, 'SQLite, one process (anchor)');
    await one.stop();
    if (!db) return console.log('  PostgreSQL: skipped (no server: run under pg_virtualenv or set VERITY_BENCH_DATABASE_URL)');
    const procs = [];
    for (let i = 0; i < 3; i++) procs.push(await serveProcess(bin, db.url, home));
    children.push(...procs);
    await latency([procs[0].url, procs[1].url], procs[2].url, pgKeys, 'PostgreSQL, made on processes 1–2, streamed by process 3');
    await Promise.all(procs.map((p) => p.stop()));
  } finally {
    await db?.drop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function seedSqliteOnly(sqliteFile, count) {
  const { createKey, migrateServer } = await import('../dist/store/sqlite/accounts.js');
  const { openStore } = await import('../dist/store/local/database.js');
  const file = await openStore(sqliteFile);
  try {
    migrateServer(file.db);
    const spec = (i) => ({ name: `sb${i}`, environment: 'test', account: 'sb-0', plan: 'enterprise', now: new Date() });
    return { pgKeys: [], sqliteKeys: Array.from({ length: count }, (_, i) => createKey(file.db, spec(i)).key) };
  } finally {
    file.close();
  }
}

/** In process: a stalled reader vs a reading one, the same events through the outbox. */
async function memoryBench() {
  const [{ buildServer }, { eventStreamPlugin }, { openStore }, { createKey, migrateServer }, { sqliteServerStore }, { envelope, sampleData }, { createServerEngines }] = await Promise.all([
    import('../dist/server/app.js'),
    import('../dist/server/event-stream-routes.js'),
    import('../dist/store/local/database.js'),
    import('../dist/store/sqlite/accounts.js'),
    import('../dist/store/sqlite/index.js'),
    import('../dist/domain/events.js'),
    import('../dist/server/engines.js'),
  ]);
  console.log(`2. Memory: ${MEMORY_EVENTS} events to one stream, default bound (1 MiB of unsent bytes)`);
  for (const mode of ['reading', 'stalled']) {
    const dir = mkdtempSync(join(tmpdir(), 'verity-stream-mem-'));
    const file = await openStore(join(dir, 'verity.db'));
    migrateServer(file.db);
    const store = sqliteServerStore(file.db);
    let cut;
    const plugin = eventStreamPlugin({ store, drainTimeoutMs: DRAIN_MS, onCut: (c) => (cut = c) });
    const engines = createServerEngines({ config: {}, store: file, cacheDir: join(dir, 'cache') });
    const app = await buildServer({ logLevel: 'silent', store, engines, plugins: [plugin.plugin] });
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const key = createKey(file.db, { name: 'm', environment: 'test', plan: 'enterprise', account: 'mem', now: new Date() }).key;
    const account = file.db.prepare("SELECT id FROM accounts WHERE name = 'mem'").pluck().get();
    // A raw client: it reads the answer's head and first message, then (stalled) never reads again.
    const sock = connect(Number(url.port), '127.0.0.1');
    let received = 0;
    let opened;
    const ready = new Promise((r) => (opened = r));
    sock.on('data', (c) => {
      received += c.length;
      if (String(c).includes('event: session')) {
        opened();
        if (mode === 'stalled') sock.pause();
      }
    });
    sock.write(`GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    await ready;
    global.gc?.();
    const before = process.memoryUsage();
    let peakBuffered = 0;
    const t0 = performance.now();
    for (let made = 0; made < MEMORY_EVENTS && !cut; made += 500) {
      const out = Array.from({ length: 500 }, () => ({ scope: `${account}/test`, event: envelope('verification.completed', sampleData('verification.completed', new Date()), new Date()) }));
      await store.commitFailure({ outbox: out });
      await new Promise((r) => setImmediate(r));
      for (const s of plugin.hub()?.['byScope']?.values() ?? []) for (const x of s) peakBuffered = Math.max(peakBuffered, x.res.writableLength);
    }
    // A stalled reader holds at most the bound while the stream waits for it to drain; then it is cut.
    if (mode === 'stalled') while (!cut) await new Promise((r) => setTimeout(r, 50));
    if (mode === 'reading') while (plugin.hub()?.size && received < MEMORY_EVENTS * 900) await new Promise((r) => setTimeout(r, 20));
    const after = process.memoryUsage();
    const mb = (n) => `${(n / 1048576).toFixed(1)} MiB`;
    console.log(
      `  ${mode}: ${cut ? `cut (${cut.reason}) with ${mb(cut.buffered)} unsent` : 'not cut'}; peak unsent seen ${mb(peakBuffered)}; ` +
        `client got ${mb(received)}; RSS ${mb(before.rss)} → ${mb(after.rss)}, heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)}; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    sock.destroy();
    await app.close();
    file.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await latencyBench();
await memoryBench();
process.exit(0);
