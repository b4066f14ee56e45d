// Helpers for the benchmarks that run `verity serve` as processes (bench/server.mjs,
// bench/server-fleet.mjs, bench/server-load.mjs): start one, read CPU from /proc, find PostgreSQL.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The admin URL of a PostgreSQL server for the process benchmark, if one is configured. */
export function pgAdminUrl(given) {
  if (given) return given;
  if (process.env.VERITY_BENCH_DATABASE_URL) return process.env.VERITY_BENCH_DATABASE_URL;
  const { PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE } = process.env;
  if (!PGHOST || !PGUSER || PGHOST.startsWith('/')) return undefined;
  const auth = PGPASSWORD ? `${encodeURIComponent(PGUSER)}:${encodeURIComponent(PGPASSWORD)}` : encodeURIComponent(PGUSER);
  return `postgres://${auth}@${PGHOST}:${PGPORT ?? '5432'}/${PGDATABASE ?? 'postgres'}`;
}

/**
 * A throwaway database `name` on the PostgreSQL server at `adminUrl` (dropped first if a killed run
 * left it): `{ url, name, admin, drop() }`; `drop()` removes it (forcing out connections) and closes
 * the admin connection.
 */
export async function throwawayDatabase(adminUrl, name) {
  const { default: postgres } = await import('postgres');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const drop = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end({ timeout: 1 });
  };
  return { url: u.toString(), name, admin, drop };
}

/**
 * `count` 100/hour test keys (enterprise plan) spread over `accounts` accounts, created alike in the
 * PostgreSQL database `dbUrl` and the SQLite file `sqliteFile` (built code: `npm run build`):
 * `{ pgKeys, sqliteKeys }`, the full keys.
 */
export async function seedTestKeys({ dbUrl, sqliteFile, count, accounts, prefix }) {
  const { openPostgresStore } = await import('../dist/store/postgres/server-store.js');
  const { createKey, migrateServer } = await import('../dist/server/accounts.js');
  const { openStore } = await import('../dist/store/database.js');
  const spec = (i) => ({ name: `${prefix}${i}`, environment: 'test', account: `${prefix}-${i % accounts}`, plan: 'enterprise', now: new Date() });
  const pg = await openPostgresStore({ url: dbUrl, poolSize: 4, listen: false });
  const pgKeys = [];
  try {
    // A few at a time: each key is its own transaction on a pool of four.
    for (let i = 0; i < count; i += 8) {
      const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) => pg.admin.createKey(spec(i + j)).then((k) => k.key));
      pgKeys.push(...(await Promise.all(batch)));
    }
  } finally {
    await pg.close();
  }
  const file = await openStore(sqliteFile);
  try {
    migrateServer(file.db);
    const sqliteKeys = file.db.transaction(() => Array.from({ length: count }, (_, i) => createKey(file.db, spec(i)).key))();
    return { pgKeys, sqliteKeys };
  } finally {
    file.close();
  }
}

/** A `verity serve` child on port 0 (`cpuProf`: a directory for its V8 CPU profile); resolves once it prints its ready line. */
export function serveProcess(bin, db, home, { cpuProf: prof } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), bin, 'serve', '--port', '0', '--db', db, '--log-level', 'silent'], {
      env: { ...process.env, VERITY_HOME: home, VERITY_DATABASE_URL: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let buf = '';
    child.stderr.on('data', (c) => {
      buf += c.toString();
      const m = /Listening on (\S+)/.exec(buf);
      if (m) resolve({ child, url: m[1], stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${buf}`)));
  });
}

/** CPU seconds (user + system) of the given processes so far, from /proc; `.sys` the system part. */
export function cpuOf(pids) {
  const tick = 100; // USER_HZ on Linux
  let user = 0;
  let sys = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      user += Number(f[11]) / tick;
      sys += Number(f[12]) / tick;
    } catch {
      // the process ended
    }
  }
  return Object.assign(new Number(user + sys), { sys });
}

/** Voluntary + involuntary context switches of the given processes so far. */
export function switchesOf(pids) {
  let n = 0;
  for (const pid of pids) {
    try {
      const st = readFileSync(`/proc/${pid}/status`, 'utf8');
      n += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(st)?.[1] ?? 0) + Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(st)?.[1] ?? 0);
    } catch {
      // the process ended
    }
  }
  return n;
}

/** Every `postgres` process on the machine (the server under test and its backends). */
export function postgresPids() {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    })
    .map(Number);
}
