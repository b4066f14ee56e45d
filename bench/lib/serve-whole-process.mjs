// `node bench/server.mjs --process`: the sandbox claim route of the SHIPPED `verity serve` (the
// built bin/verity.js, as a user starts it, on a SQLite file) against a bare fastify process
// doing the same work (bench/bare/claim-server.mjs, whose header lists that work), each its own
// process, loaded in turn by autocannon from a third process (bench/lib/whole-process.mjs).
// This is the figure the README quotes for the service.
//   node bench/server.mjs --process [--rounds 5] [--duration 6] [--slices 2] [--connections 50]
//     [--log-level info|silent] [--warmup 3] [--cpu-prof DIR] [--anchor same-work|minimal] [--commit group|each]
//     [--anchor-tree DIR]
// Each round gives each server --duration seconds in --slices alternating slices (A B B A …, the
// first swapped every round); req/s and CPU per request (the server's utime + stime from
// /proc/<pid>/stat around each slice, divided by the requests answered) are summed per round and
// the ratios taken within the round: median, min and max over the rounds. Both servers log at
// --log-level (default info, `verity serve`'s default: one JSON line per request on stderr, to a
// file). Every slice uses keys no earlier slice used (test keys allow 100 requests per hour), the
// same keys for both servers, so neither answers cheap 429s (non2xx must stay 0).
// --cpu-prof DIR: `verity serve` writes a V8 CPU profile there when it stops.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleavedRounds, loadRun, options, report, startServerProcess } from './whole-process.mjs';

const body = JSON.stringify({ claim: 'The Eiffel Tower is in Paris', max_evidence: 5 });

export async function main() {
  const { arg, rounds, duration, slices, connections, warmup, cpuProf } = options();
  const logLevel = arg('log-level', 'info');
  // --anchor minimal: the bare process only logs, parses and answers (no key, limit, schema or
  // SQLite): the floor of a fastify process, the anchor issue 31's 0.55× was measured against.
  const minimal = arg('anchor', 'same-work') === 'minimal';
  // --commit each: the same-work anchor commits each request's usage in its own transaction
  // (default: a group commit per event-loop turn, as verity).
  const commit = arg('commit', 'group');
  // --anchor-tree DIR: the anchor is `verity serve` of another build (DIR/bin/verity.js, with its
  // dist/ beside it) on a copy of the same database: a before/after of the shipped process,
  // interleaved like the rest.
  const anchorTree = arg('anchor-tree', undefined);

  const { openStore } = await import('../../dist/store/local/database.js');
  const { createKey, migrateServer } = await import('../../dist/store/sqlite/accounts.js');
  const { hashKey } = await import('../../dist/domain/keys.js');
  const bin = fileURLToPath(new URL('../../bin/verity.js', import.meta.url));
  const bare = fileURLToPath(new URL('../bare/claim-server.mjs', import.meta.url));
  const home = mkdtempSync(join(tmpdir(), 'verity-bench-proc-'));
  const servers = [];
  const stopAll = () => Promise.all(servers.map((s) => s.stop()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  try {
    // Keys: a fresh set per slice (and for the warm-up and the sample), enough for KEY_RATE req/s
    // at ≤ 90 requests per key. Sized at 15,000, a quiet machine's ~21,000 req/s of both servers
    // passed test keys' 100/hour in every slice: the 429s were counted as throughput.
    const KEY_RATE = 40_000;
    const perSlice = Math.ceil(((duration / slices) * KEY_RATE) / 90);
    const perWarm = Math.ceil((warmup * KEY_RATE) / 90);
    const count = 1 + 2 * perWarm + rounds * slices * perSlice;
    const verityDb = join(home, 'verity.db');
    const bareDb = join(home, 'bare.db');
    const store = await openStore(verityDb);
    migrateServer(store.db);
    const created = store.db.transaction(() =>
      Array.from({ length: count }, (_, i) => createKey(store.db, { name: `bench-${i}`, environment: 'test', account: 'bench', plan: 'enterprise', now: new Date() })),
    )();
    store.close();
    const anchorDb = join(home, 'anchor.db');
    if (anchorTree) copyFileSync(verityDb, anchorDb);
    const keys = created.map((k) => k.key);
    {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(bareDb);
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE bare_keys (hash TEXT PRIMARY KEY, id TEXT NOT NULL, account TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0)');
      const ins = db.prepare('INSERT INTO bare_keys (hash, id, account) VALUES (?, ?, ?)');
      db.transaction(() => created.forEach((k, i) => ins.run(hashKey(k.key), `key${i}`, 'bench')))();
      db.close();
    }
    let used = 0;
    const take = (n) => keys.slice(used, (used += n));

    const verity = await startServerProcess(
      [...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), bin, 'serve', '--port', '0', '--db', verityDb, '--log-level', logLevel],
      { env: { ...process.env, VERITY_HOME: join(home, 'home'), VERITY_DATABASE_URL: '' }, stdoutFile: join(home, 'verity.out'), stderrFile: join(home, 'verity.err') },
    );
    servers.push(verity);
    // One real answer: the bare server answers a copy of it (same shape and size).
    const res = await fetch(`${verity.url}/v1/verify/claim`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${take(1)[0]}` }, body });
    const sampleText = await res.text();
    if (res.status !== 200) throw new Error(`verity answered ${res.status}: ${sampleText}`);
    writeFileSync(join(home, 'sample.json'), sampleText);
    const anchor = anchorTree
      ? await startServerProcess([join(anchorTree, 'bin/verity.js'), 'serve', '--port', '0', '--db', anchorDb, '--log-level', logLevel], {
          env: { ...process.env, VERITY_HOME: join(home, 'anchor-home'), VERITY_DATABASE_URL: '' },
          stdoutFile: join(home, 'anchor.out'),
          stderrFile: join(home, 'anchor.err'),
        })
      : await startServerProcess([bare, '--db', bareDb, '--sample', join(home, 'sample.json'), '--log-level', logLevel, '--commit', commit, ...(minimal ? ['--minimal'] : [])], {
          stdoutFile: join(home, 'bare.out'),
          stderrFile: join(home, 'bare.err'),
        });
    servers.push(anchor);
    const url = (s) => `${s.url}/v1/verify/claim`;
    // Warm-up of each alike (JIT, page cache): the same connections, its own keys.
    const warmKeys = take(perWarm);
    for (const s of [anchor, verity]) await loadRun(s.pid, { kind: 'claim', url: url(s), keys: warmKeys, body, connections, duration: warmup });
    const sliceKeys = [];
    const results = await interleavedRounds({
      a: verity,
      b: anchor,
      rounds,
      slices,
      job: (name, r, i) => {
        const k = (sliceKeys[r * slices + i] ??= take(perSlice));
        return { kind: 'claim', url: url(name === 'a' ? verity : anchor), keys: k, body, connections, duration: duration / slices };
      },
      onSlice: (name, r, p) => process.stderr.write(`bench: round ${r + 1} ${name === 'a' ? 'verity serve' : anchorTree ? 'anchor build' : 'bare fastify'}: ${Math.round(p.total / p.duration)} req/s, ${Math.round(p.cpuPerReq)} µs CPU/req\n`),
    });
    console.log(
      `whole processes, autocannon in a third process: ${connections} connections, ${duration} s per server and round in ${slices} alternating slices, ${rounds} rounds, log level ${logLevel}, node ${process.version}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    );
    if (anchorTree) console.log(`verity: \`node bin/verity.js serve --db FILE --log-level ${logLevel}\` (SQLite) of this tree and of ${anchorTree}, each on its copy of the same database`);
    else console.log(`verity: \`node bin/verity.js serve --db FILE --log-level ${logLevel}\` (SQLite); bare: bench/bare/claim-server.mjs ${minimal ? '--minimal (fastify: log line, JSON parse, same-size answer; nothing else)' : `(fastify: log line, key hash + SQLite look-up, rate limit, JSON schema, same-size answer, SQLite usage upsert committed before the answer, ${commit === 'each' ? 'one transaction per request' : 'group commit per event-loop turn'})`}`);
    const anchorName = anchorTree ? `verity serve (${anchorTree})` : minimal ? 'minimal fastify' : 'bare fastify';
    const ratios = report({ results, names: { a: 'verity serve', b: anchorName }, goal: anchorTree ? undefined : 0.75 });
    if (results.some((x) => x.a.non2xx + x.b.non2xx > 0)) console.log('warning: non-2xx answers (a key over its hourly limit?): req/s then includes cheap refusals');
    await stopAll();
    // Every answered request was charged and committed: the usage the stopped server left.
    const check = await openStore(verityDb);
    const charged = check.db.prepare("SELECT SUM(requests) AS n FROM usage WHERE environment = 'test'").pluck().get();
    check.close();
    const answered = results.reduce((x, r) => x + r.a.total, 0);
    console.log(`verity usage committed: ${charged} requests (measured ${answered}, plus the warm-up and the sample)`);
    return ratios;
  } finally {
    await stopAll();
    rmSync(home, { recursive: true, force: true });
  }
}
