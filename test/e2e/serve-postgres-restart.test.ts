/**
 * PostgreSQL goes away and comes back; `verity serve` stays up (issue 28). Three serve processes
 * (the built bin, child processes stopped by PID in every exit path) on a PostgreSQL cluster of
 * the test's own (test/helpers/pg-cluster.ts: restarting pg_virtualenv's shared cluster would
 * break the other test files), a webhook registered to a receiver on loopback, then:
 * - three times: requests in flight while the database stops (`pg_ctlcluster … stop -m fast`),
 *   requests and /healthz while it is down, the database started again, every process polled
 *   until it serves;
 * - once: every backend of the database terminated (pg_terminate_backend — a crash or a network
 *   cut of the sessions) while requests are in flight.
 * Every process must be alive throughout; every request answered (200, or 503 UNAVAILABLE with
 * Retry-After) within ANSWER_BOUND_MS; /healthz must say the database is the problem; after the
 * database is back every process serves again, and every committed event reaches the receiver.
 * Without the driver fix (src/store/postgres/driver.ts) processes died here with
 * `TypeError: Cannot read properties of null (reading 'write')`. The figures (time to the first
 * 503, to recovery) are printed; docs/server.md quotes them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { ownCluster, type OwnCluster } from '../helpers/pg-cluster.js';
import { freshDatabase } from '../helpers/postgres.js';
import { startServeProcess, type Served } from './serve-process.js';
import { timedCall, until, type Answer } from './timed-answers.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const cluster = await ownCluster();
const skipWhy = 'skip' in cluster ? cluster.skip : undefined;
if (skipWhy) process.stderr.write(`\n[postgres] SKIPPING the PostgreSQL restart e2e: ${skipWhy}.\n`);

/** Every request gets an answer within this (a connect bound of 5 s plus a loaded CI machine). */
const ANSWER_BOUND_MS = 15_000;
/** Each process serves again within this after the database is back. */
const RECOVERY_BOUND_MS = 20_000;
const claimBody = JSON.stringify({ claim: 'The Eiffel Tower is in Paris' });

const call = (url: string, init: RequestInit = {}): Promise<Answer> => timedCall(url, init, ANSWER_BOUND_MS);

describe.skipIf(!!skipWhy)('verity serve: PostgreSQL restarted three times under load, with a webhook registered', () => {
  const pg = cluster as OwnCluster;
  const home = mkdtempSync(join(tmpdir(), 'verity-pg-restart-e2e-'));
  const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '', VERITY_DATABASE_URL: '' };
  const cli = (args: string[]) => execa('node', [BIN, ...args], { env, reject: false });
  let db: { url: string; drop(): Promise<void> };
  const served: Served[] = [];
  const exited = new Map<Served, string>();
  const keys: string[] = [];
  const received = new Set<string>();
  let receiver: Server | undefined;
  const answers: Answer[] = [];
  const figures: string[] = [];

  let turn = 0;
  /** A claim to process i, with one of its two keys (a test key takes 100 requests an hour). */
  const claim = (i: number) =>
    call(`${served[i]!.url}/v1/verify/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[2 * i + (turn++ % 2)]}` },
      body: claimBody,
    }).then((a) => (answers.push(a), a));
  /** Two request loops per process, one request after another, until stopped: the answers. */
  const load = () => {
    let on = true;
    const loops = served.flatMap((_, i) =>
      [0, 1].map(async () => {
        const got: Answer[] = [];
        while (on) got.push(await claim(i));
        return got;
      }),
    );
    return async () => {
      on = false;
      return (await Promise.all(loops)).flat();
    };
  };
  const healthz = (i: number) => call(`${served[i]!.url}/healthz`);
  const alive = () => served.map((s) => !exited.has(s));

  beforeAll(async () => {
    db = await freshDatabase(pg.url);
    const m = await cli(['admin', 'migrate', '--db', db.url]);
    expect(m.exitCode, m.stderr).toBe(0);
    for (let i = 0; i < 6; i++) {
      // Two keys per process (a test key takes 100 requests an hour), one account: one webhook scope.
      const k = await cli(['admin', 'keys', 'create', '--name', `restart-${i}`, '--env', 'test', '--plan', 'pro', '--account', 'restart', '--db', db.url]);
      expect(k.exitCode, k.stderr).toBe(0);
      keys.push(k.stdout.trim());
    }
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.add(String(req.headers['x-service-event-id']));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    for (let i = 0; i < 3; i++) {
      const s = await startServeProcess(BIN, ['--db', db.url, '--pool', '4', '--log-level', 'warn', '--allow-private-webhooks'], env);
      served.push(s);
      void s.proc.then((r) => exited.set(s, `exit ${r.exitCode ?? r.signal}: ${s.stderr.slice(-20).join('\n')}`));
    }
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const w = await fetch(`${served[0]!.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[0]}` },
      body: JSON.stringify({ url, events: ['verification.completed'] }),
    });
    expect(w.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await claim(i)).status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    // Every exit path: each serve process stopped by its PID, killed if it does not stop in time.
    for (const s of served) if (!exited.has(s)) s.proc.kill('SIGTERM');
    await until(() => served.every((s) => exited.has(s)), 15_000);
    for (const s of served) if (!exited.has(s)) s.proc.kill('SIGKILL');
    await Promise.allSettled(served.map((s) => s.proc));
    if (receiver) await new Promise<void>((r) => (receiver!.close(() => r()), receiver!.closeAllConnections()));
    await db?.drop().catch(() => undefined);
    await pg.drop();
    rmSync(home, { recursive: true, force: true });
    if (figures.length) process.stdout.write(`\n[restart e2e] ${figures.join('\n[restart e2e] ')}\n`);
  }, 60_000);

  /** Every answer 200 or 503 UNAVAILABLE with Retry-After, within the bound. */
  const expectHonest = (list: Answer[]) => {
    for (const a of list) {
      expect(
        a.status === 200 || a.status === 503,
        `${JSON.stringify(a)}\n${[...exited.values()].join('\n')}\n${served.flatMap((s) => s.stderr.filter((l) => /internal error/.test(l))).join('\n')}`,
      ).toBe(true);
      if (a.status === 503) {
        expect(a.code).toBe('UNAVAILABLE');
        expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect(a.ms).toBeLessThan(ANSWER_BOUND_MS);
    }
  };

  /** Polls every process until /healthz says ok and a request is answered 200; returns ms per process. */
  const recovered = async (since: number): Promise<number[]> => {
    return Promise.all(
      served.map(async (_, i) => {
        let ok = false;
        expect(await until(async () => (ok = (await healthz(i)).status === 200), RECOVERY_BOUND_MS), `process ${i} /healthz`).toBe(true);
        const ready = performance.now() - since;
        expect(ok).toBe(true);
        let last: Answer | undefined;
        expect(await until(async () => (last = await claim(i)).status === 200, RECOVERY_BOUND_MS), JSON.stringify(last)).toBe(true);
        return Math.round(Math.max(ready, performance.now() - since - (last?.ms ?? 0)));
      }),
    );
  };

  it('stays up through three fast shutdowns and restarts: 503 with Retry-After while the database is down, /healthz says why, serving again after', async () => {
    for (let round = 1; round <= 3; round++) {
      // Requests going on (two loops per process) while the database shuts down.
      const before = answers.length;
      const stopLoad = load();
      await until(() => answers.length >= before + 6, 10_000);
      const tStop = performance.now();
      await pg.stop('fast');
      const down = performance.now();
      const burst = stopLoad();
      // (Started again whatever this round finds, so a failure here does not take the next tests' database.)
      const restarted = { done: false };
      onTestFinished(async () => void (restarted.done || (await pg.start())));
      const inFlight = await burst;
      expectHonest(inFlight);
      // While it is down: requests 503 with Retry-After, /healthz 503 naming the database.
      const probes = await Promise.all(served.map((_, i) => claim(i)));
      expectHonest(probes);
      expect(probes.map((a) => a.status)).toEqual([503, 503, 503]);
      const health = await Promise.all(served.map((_, i) => healthz(i)));
      for (const h of health) {
        expect(h.status, JSON.stringify(h)).toBe(503);
        expect(h.message).toMatch(/database/);
        expect(Number(h.retryAfter)).toBeGreaterThanOrEqual(1);
      }
      expect(alive()).toEqual([true, true, true]);
      const first503 = Math.min(...[...inFlight, ...probes].filter((a) => a.status === 503).map((a) => a.at)) - tStop;
      await pg.start();
      restarted.done = true;
      const up = performance.now();
      const recovery = await recovered(up);
      expect(alive(), [...exited.values()].join('\n')).toEqual([true, true, true]);
      const ok = inFlight.filter((a) => a.status === 200).length;
      figures.push(
        `round ${round}: stop took ${Math.round(down - tStop)} ms; under load: ${ok} × 200, ${inFlight.length - ok} × 503 (slowest ${Math.round(Math.max(...inFlight.map((a) => a.ms)))} ms); ` +
          `first 503 ${Math.round(first503)} ms after the stop began; down: probes 503 in ${probes.map((a) => Math.round(a.ms)).join('/')} ms, /healthz 503 in ${health.map((a) => Math.round(a.ms)).join('/')} ms ` +
          `("${health[0]!.message}"); serving again ${recovery.join('/')} ms after the start returned`,
      );
    }
  }, 180_000);

  it('stays up when every backend of the database is terminated mid-request (a crash or a cut of the sessions)', async () => {
    const { default: postgres } = await import('postgres');
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const dbName = new URL(db.url).pathname.slice(1);
      const before = answers.length;
      const stopLoad = load();
      await until(() => answers.length >= before + 6, 10_000);
      const t = performance.now();
      const [{ n }] = await admin<[{ n: number }]>`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = ${dbName} AND pid <> pg_backend_pid()`;
      expect(n).toBeGreaterThan(0);
      const inFlight = await stopLoad();
      expectHonest(inFlight);
      const recovery = await recovered(t);
      expect(alive(), [...exited.values()].join('\n')).toEqual([true, true, true]);
      const ok = inFlight.filter((a) => a.status === 200).length;
      figures.push(`terminated ${n} backends under load: ${ok} × 200, ${inFlight.length - ok} × 503; serving again ${recovery.join('/')} ms after`);
    } finally {
      await admin.end({ timeout: 1 });
    }
  }, 90_000);

  it('delivers every committed event in the end, and every process stops cleanly', async () => {
    const { default: postgres } = await import('postgres');
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    let events: string[] = [];
    let charged = 0;
    try {
      // Every event the database holds (each charged request made one) reaches the receiver.
      const delivered = await until(async () => {
        events = (await sql<{ id: string }[]>`SELECT id FROM webhook_events`).map((r) => r.id);
        const [{ n }] = await sql<[{ n: number }]>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`;
        return n === 0 && events.every((id) => received.has(id));
      }, 60_000);
      expect(delivered, `${events.filter((id) => !received.has(id)).length} of ${events.length} events not delivered`).toBe(true);
      [{ n: charged }] = await sql<[{ n: number }]>`SELECT coalesce(sum(requests), 0)::int AS n FROM usage`;
    } finally {
      await sql.end({ timeout: 1 });
    }
    const ok = answers.filter((a) => a.status === 200).length;
    // Every request answered 200 was charged, with its event; a request cut off after its commit
    // (answered 503) may have been charged too, never the other way round.
    expect(charged).toBe(events.length);
    expect(events.length).toBeGreaterThanOrEqual(ok);
    expect([...received].filter((id) => !events.includes(id))).toEqual([]);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    for (const s of served) expect(s.stderr.join('\n')).not.toMatch(/TypeError|Cannot read properties|unhandled/i);
    figures.push(`${answers.length} requests: ${ok} × 200, ${answers.filter((a) => a.status === 503).length} × 503, none unanswered; ${events.length} events committed, ${events.length} delivered; processes alive: ${alive().filter(Boolean).length} of 3`);
    // A graceful stop still works after all that: exit code 0.
    for (const s of served) s.proc.kill('SIGTERM');
    expect(await until(() => served.every((s) => exited.has(s)), 20_000)).toBe(true);
    for (const s of served) {
      const r = await s.proc;
      expect(r.exitCode, `${r.signal ?? ''} ${s.stderr.slice(-10).join('\n')}`).toBe(0);
    }
  }, 120_000);
});
