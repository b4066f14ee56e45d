// Starts `verity serve` fleets that stay up, for whole-process timings of a fixed amount of
// requests against each (bench/server-load.mjs), run in turn A B A B … by any timing tool:
// - `sqlite`: one serve process on a SQLite file (the anchor);
// - `pg1`, `pg2`, `pg3`: 1, 2 and 3 serve processes on one throwaway PostgreSQL database.
// Every fleet gets the same keys (100/hour test keys: sandbox claims); a run takes keys no earlier
// run used (a counter file), so none reaches its limit. Writes the fleet description (URLs, pids,
// key files) to --out, warms each process up, prints "fleet ready", and stops everything (and
// drops the database) on SIGINT/SIGTERM. Imports the BUILT code: `npm run build` first.
//   node bench/server-fleet.mjs --out /tmp/fleet.json [--pg URL] [--keys 4000] [--accounts 1] [--processes 1,2,3] [--warmup 3000]
//     [--node-flags "--single-threaded-gc ..."] [--no-sqlite]
// --node-flags: extra Node/V8 flags for every serve process (to compare a flag's effect with a
// second fleet started without it); --no-sqlite: only the PostgreSQL fleets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgAdminUrl, seedTestKeys, serveProcess, throwawayDatabase } from './serve-processes.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const out = arg('out', join(tmpdir(), 'verity-fleet.json'));
const keyCount = Number(arg('keys', 4000));
const accounts = Number(arg('accounts', 1));
const counts = String(arg('processes', '1,2,3')).split(',').map(Number);
const warmup = Number(arg('warmup', 3000));
const nodeFlags = String(arg('node-flags', '')).split(' ').filter(Boolean);
const adminUrl = pgAdminUrl(arg('pg', undefined));
if (!adminUrl) throw new Error('no PostgreSQL: give --pg URL, VERITY_BENCH_DATABASE_URL, or run under pg_virtualenv');

const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const database = await throwawayDatabase(adminUrl, `verity_fleet_${process.pid}`);
const dbUrl = database.url;
const home = mkdtempSync(join(tmpdir(), 'verity-fleet-'));
const sqliteFile = join(home, 'fleet.db');
const { pgKeys, sqliteKeys } = await seedTestKeys({ dbUrl, sqliteFile, count: keyCount, accounts, prefix: 'fleet' });
writeFileSync(join(home, 'pg-keys.json'), JSON.stringify(pgKeys));
writeFileSync(join(home, 'sqlite-keys.json'), JSON.stringify(sqliteKeys));

const fleets = {};
const all = [];
const start = async (label, count, db, keysFile) => {
  const procs = await Promise.all(Array.from({ length: count }, () => serveProcess(bin, db, home, { nodeFlags })));
  all.push(...procs);
  fleets[label] = { urls: procs.map((p) => `${p.url}/v1/verify/claim`), pids: procs.map((p) => p.child.pid), keys: keysFile, postgres: db === dbUrl };
};
if (!process.argv.includes('--no-sqlite')) await start('sqlite', 1, sqliteFile, join(home, 'sqlite-keys.json'));
for (const n of counts) await start(`pg${n}`, n, dbUrl, join(home, 'pg-keys.json'));
const fleetFile = { fleets, counter: join(home, 'counter'), home };
writeFileSync(out, JSON.stringify(fleetFile, null, 2));

// Warm-up (JIT, caches, pool connections): `warmup` requests per process, through the load client.
const { runLoad } = await import('./server-load.mjs');
for (const label of Object.keys(fleets)) await runLoad(out, label, { amount: warmup * fleets[label].urls.length, connections: 10, quiet: true });
process.stderr.write(`fleet ready: ${out} (${Object.entries(fleets).map(([k, f]) => `${k}: ${f.urls.length}`).join(', ')})\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all(all.map((p) => p.stop()));
  await database.drop();
  rmSync(home, { recursive: true, force: true });
  rmSync(out, { force: true });
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
setInterval(() => undefined, 1 << 30);
