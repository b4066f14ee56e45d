// Benchmark: the sandbox claim route of `verity serve` (auth, rate limit, validation, sandbox
// engine, usage write in SQLite) against a bare fastify route, both on 127.0.0.1 in the same run.
// Imports the BUILT code: run `npx tsc -p tsconfig.build.json` first.
//   node bench/server.mjs [--duration 10] [--connections 50]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildServer } from '../dist/server/app.js';
import { createKey, migrateServer } from '../dist/server/accounts.js';
import { createServerEngines } from '../dist/server/engines.js';
import { openStore } from '../dist/store/database.js';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const duration = arg('duration', 10);
const connections = arg('connections', 50);

const dir = mkdtempSync(join(tmpdir(), 'verity-bench-'));
const store = await openStore(join(dir, 'bench.db'));
migrateServer(store.db);
// Test keys run the sandbox engine and are limited to 100 requests per hour each (SPEC 5.2). The
// limiter stays in the path: requests rotate over enough keys that none reaches its limit.
const keyCount = Math.ceil((duration * 8000) / 100) + 10;
const keys = store.db.transaction(() =>
  Array.from({ length: keyCount }, (_, i) =>
    createKey(store.db, { name: `bench-${i}`, environment: 'test', account: 'bench', plan: 'enterprise', now: new Date() }).key,
  ),
)();

const app = await buildServer({ db: store.db, engines: createServerEngines({ config: {}, store }), logLevel: 'silent' });
const verityUrl = await app.listen({ host: '127.0.0.1', port: 0 });

const bare = Fastify({ logger: false });
bare.post('/v1/verify/claim', async (request) => ({ ok: true, claim: request.body.claim }));
const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

const body = JSON.stringify({ claim: 'The Eiffel Tower is in Paris', max_evidence: 5 });

let next = 0;
const headers = { 'content-type': 'application/json' };
async function run(url, authenticated) {
  return autocannon({
    url: `${url}/v1/verify/claim`,
    method: 'POST',
    connections,
    duration,
    requests: [
      {
        method: 'POST',
        body,
        // Every verity request is authenticated, rate-limited, validated, run and charged.
        setupRequest: (req) => ({ ...req, headers: authenticated ? { ...headers, authorization: `Bearer ${keys[next++ % keys.length]}` } : headers }),
      },
    ],
  });
}

// Warm up both (JIT, SQLite page cache), then measure: bare first, then verity.
await autocannon({ url: `${bareUrl}/v1/verify/claim`, method: 'POST', connections: 10, duration: 2, headers: { 'content-type': 'application/json' }, body });
await autocannon({ url: `${verityUrl}/v1/verify/claim`, method: 'POST', connections: 1, amount: 50, headers: { ...headers, authorization: `Bearer ${keys[keys.length - 1]}` }, body });

const bareRes = await run(bareUrl, false);
const verityRes = await run(verityUrl, true);

const row = (name, r) => ({
  route: name,
  'req/s': Math.round(r.requests.average),
  'p50 ms': r.latency.p50,
  'p99 ms': r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});
console.log(`autocannon: ${connections} connections, ${duration} s each, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
console.table([row('bare fastify', bareRes), row('verity sandbox claim', verityRes)]);
const ratio = bareRes.requests.average / verityRes.requests.average;
console.log(`bare / verity throughput ratio: ${ratio.toFixed(2)}× (goal ≤ 2×); verity goal ≥ 1500 req/s and p99 < 50 ms`);
const requests = store.db.prepare("SELECT SUM(requests) AS n FROM usage").get().n;
console.log(`usage rows recorded for the verity run (incl. warm-up): ${requests}`);

await app.close();
await bare.close();
store.close();
rmSync(dir, { recursive: true, force: true });
