// Helpers for the benchmarks that run `verity serve` as processes (bench/server.mjs,
// bench/server-fleet.mjs, bench/server-load.mjs): start one, read CPU from /proc, find PostgreSQL.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';

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
  const { openPostgresStore } = await import('../dist/store/postgres/index.js');
  const { createKey, migrateServer } = await import('../dist/store/sqlite/accounts.js');
  const { openStore } = await import('../dist/store/local/database.js');
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

/**
 * A `verity serve` child on port 0 (`cpuProf`: a directory for its V8 CPU profile; `nodeFlags`:
 * extra Node/V8 flags, for experiments); resolves once it prints its ready line.
 */
export function serveProcess(bin, db, home, { cpuProf: prof, nodeFlags = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, ...(prof ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), bin, 'serve', '--port', '0', '--db', db, '--log-level', 'silent'], {
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

/** The `wrk` binary on PATH (Debian: `apt-get install wrk`), or undefined: the wrk mode is optional. */
export function findWrk() {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = `${dir || '.'}/wrk`;
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

// The wrk script: POST the bench's body, a test key per request rotating over a key file from an
// offset (so several wrk processes use different keys), and a JSON line at the end.
const WRK_SCRIPT = (body) => `
local keys, n, i, off = {}, 0, 0, 0
init = function(args)
  for line in io.lines(args[1]) do n = n + 1; keys[n] = line end
  off = tonumber(args[2]) or 0
end
local body = ${JSON.stringify(body)}
request = function()
  i = i + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. keys[((off + i) % n) + 1] }, body)
end
done = function(s, latency, requests)
  local e = s.errors
  io.write(string.format('WRK {"requests":%d,"us":%d,"status":%d,"errors":%d,"p50":%d,"p99":%d}\\n', s.requests, s.duration, e.status, e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
`;

/**
 * A lighter load generator than autocannon, for an ADDITIONAL measurement (never instead of it):
 * one `wrk` process (one thread) per URL, the connections split evenly, for `duration` seconds,
 * each request a POST of `body` with the next of `keys` (each process from its own offset).
 * Resolves `{ reqs, total, duration, p50, p99, non2xx, errors, clientCpuUs }` — p50/p99 in ms, the
 * worst process's; clientCpuUs the wrk processes' CPU (user + system, from the shell's `times`).
 */
export async function wrkLoad(wrk, urls, keys, { connections, duration, body, dir }) {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const tmp = mkdtempSync(join(dir, 'wrk-'));
  try {
    writeFileSync(join(tmp, 'keys.txt'), `${keys.join('\n')}\n`);
    writeFileSync(join(tmp, 'post.lua'), WRK_SCRIPT(body));
    const one = (url, i) =>
      new Promise((resolve, reject) => {
        const c = Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0);
        const off = Math.floor((keys.length / urls.length) * i);
        // `times` after wrk: the shell's children's user and system time (wrk's CPU); the shell
        // exits with wrk's status, not that of `times`.
        const cmd = `"$0" -t1 -c${c} -d${duration}s --timeout 10s -s "$1" "$2" -- "$3" ${off}; s=$?; times; exit $s`;
        const child = spawn('sh', ['-c', cmd, wrk, join(tmp, 'post.lua'), url, join(tmp, 'keys.txt')], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.once('error', reject);
        // 'close', not 'exit': the output may still be in the pipe when the process has exited.
        child.once('close', (code) => {
          const m = /WRK (\{.*\})/.exec(out);
          // The last four: `times` prints last (the shell's own user/system, then its children's).
          const t = [...out.matchAll(/(\d+)m([\d.]+)s/g)].map((x) => Number(x[1]) * 60 + Number(x[2])).slice(-4);
          if (code !== 0 || !m || t.length < 4) return reject(new Error(`wrk failed (${code}): ${out.slice(-400)}`));
          resolve({ ...JSON.parse(m[1]), cpuUs: (t[2] + t[3]) * 1e6 });
        });
      });
    // allSettled: a failing wrk must not remove the folder under the others still running.
    const settled = await Promise.allSettled(urls.map(one));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const rs = settled.map((r) => r.value);
    const seconds = Math.max(...rs.map((r) => r.us)) / 1e6;
    const total = rs.reduce((a, r) => a + r.requests, 0);
    return {
      reqs: total / seconds,
      total,
      duration: seconds,
      p50: Math.max(...rs.map((r) => r.p50)) / 1000,
      p99: Math.max(...rs.map((r) => r.p99)) / 1000,
      non2xx: rs.reduce((a, r) => a + r.status, 0),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      clientCpuUs: rs.reduce((a, r) => a + r.cpuUs, 0),
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
