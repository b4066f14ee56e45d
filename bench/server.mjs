// Benchmark: the sandbox claim route of `verity serve` (auth, rate limit, validation, sandbox
// engine, usage write committed in SQLite) against a bare fastify route, both on 127.0.0.1 in the
// same run, measured alike:
// - the load generator (autocannon) runs in a CHILD process, so it does not share the servers'
//   event loop; on 2 cores it takes one core and the server under test the other;
// - both routes get the same request (same JSON body, same headers including Authorization), the
//   same connection count and duration, and a fastify logger at the same level;
// - the bare route parses the JSON body and answers a JSON object of the same size as verity's
//   answer (a copy of one), serialized per request — but no auth, no limits, no validation, no
//   engine, no SQLite.
// Imports the BUILT code: run `npx tsc -p tsconfig.build.json` first.
//   node bench/server.mjs [--duration 10] [--connections 50] [--log-level silent|info]
import { fork } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const body = JSON.stringify({ claim: 'The Eiffel Tower is in Paris', max_evidence: 5 });

// ---- child: the load generator -------------------------------------------------------------
if (process.argv[2] === '--load') {
  const { default: autocannon } = await import('autocannon');
  process.once('message', async ({ url, keys, connections, duration, amount }) => {
    let next = 0;
    const cpu0 = process.cpuUsage();
    const r = await autocannon({
      url,
      method: 'POST',
      connections,
      ...(amount ? { amount } : { duration }),
      requests: [
        {
          method: 'POST',
          body,
          setupRequest: (req) => ({
            ...req,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[next++ % keys.length]}` },
          }),
        },
      ],
    });
    const cpu = process.cpuUsage(cpu0);
    process.send({
      reqs: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors,
      total: r.requests.total,
      clientCpu: (cpu.user + cpu.system) / 1000 / (r.duration * 1000),
    });
  });
} else {
  // ---- parent: the servers -----------------------------------------------------------------
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : def;
  };
  const duration = Number(arg('duration', 10));
  const connections = Number(arg('connections', 50));
  const logLevel = arg('log-level', 'silent');

  const { default: Fastify } = await import('fastify');
  const { buildServer } = await import('../dist/server/app.js');
  const { createKey, migrateServer } = await import('../dist/server/accounts.js');
  const { createServerEngines } = await import('../dist/server/engines.js');
  const { openStore } = await import('../dist/store/database.js');

  const load = (url, keys, o) =>
    new Promise((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['--load'], { stdio: 'inherit' });
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      child.once('message', (m) => {
        const cpu = process.cpuUsage(cpu0);
        child.kill();
        // The servers' process CPU share over the run: near 100 % means the server is the bottleneck.
        resolve({ ...m, serverCpu: (cpu.user + cpu.system) / 1000 / (performance.now() - t0) });
      });
      child.once('error', reject);
      child.send({ url, keys, connections, duration, ...o });
    });

  const dir = mkdtempSync(join(tmpdir(), 'verity-bench-'));
  const store = await openStore(join(dir, 'bench.db'));
  migrateServer(store.db);
  // Test keys run the sandbox engine and are limited to 100 requests per hour each (SPEC 5.2). The
  // limiter stays in the path: requests rotate over enough keys that none reaches its limit.
  const keyCount = Math.ceil((duration * 12_000) / 100) + 20;
  const keys = store.db.transaction(() =>
    Array.from({ length: keyCount }, (_, i) =>
      createKey(store.db, { name: `bench-${i}`, environment: 'test', account: 'bench', plan: 'enterprise', now: new Date() }).key,
    ),
  )();
  const logStream = () => createWriteStream('/dev/null');

  const app = await buildServer({ db: store.db, engines: createServerEngines({ config: {}, store }), logLevel, logStream: logStream() });
  const verityUrl = await app.listen({ host: '127.0.0.1', port: 0 });

  // One real answer, so the bare route serializes an object of the same size.
  const sampleRes = await fetch(`${verityUrl}/v1/verify/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[keys.length - 1]}` },
    body,
  });
  const sampleText = await sampleRes.text();
  const sample = JSON.parse(sampleText);
  const bare = Fastify({ logger: { level: logLevel, stream: logStream() } });
  bare.post('/v1/verify/claim', async (request) => ({ ...sample, claim: request.body.claim }));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  // Warm up both (JIT, SQLite page cache), then measure: bare first, then verity.
  const warmKeys = keys.slice(-10);
  await load(`${bareUrl}/v1/verify/claim`, warmKeys, { duration: 2, connections: 10 });
  await load(`${verityUrl}/v1/verify/claim`, warmKeys, { amount: 500, connections: 10 });
  const measured = keys.slice(0, -10);
  const bareRes = await load(`${bareUrl}/v1/verify/claim`, measured, {});
  const verityRes = await load(`${verityUrl}/v1/verify/claim`, measured, {});

  const row = (name, r) => ({
    route: name,
    'req/s': Math.round(r.reqs),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    'server CPU': `${Math.round(r.serverCpu * 100)} %`,
    'autocannon CPU': `${Math.round(r.clientCpu * 100)} %`,
  });
  console.log(
    `autocannon (child process): ${connections} connections, ${duration} s each, node ${process.version}, ${cpus().length} cores, log level ${logLevel}`,
  );
  console.log(
    `bare route: fastify, parses the ${body.length}-byte JSON body, answers a ${sampleText.length}-byte JSON object like verity's; no auth, limits, validation, engine or SQLite`,
  );
  console.table([row('bare fastify', bareRes), row('verity sandbox claim', verityRes)]);
  const ratio = bareRes.reqs / verityRes.reqs;
  console.log(`bare / verity throughput ratio: ${ratio.toFixed(2)}× (goal ≤ 2×); verity goal ≥ 1500 req/s and p99 < 50 ms`);
  const extra = (1e6 / verityRes.reqs - 1e6 / bareRes.reqs).toFixed(0);
  console.log(`verity costs ~${extra} µs more per request than the bare route (from the throughputs)`);
  const perReq = (r) => ((r.serverCpu * 1e6) / r.reqs).toFixed(0);
  console.log(`server CPU per request: bare ${perReq(bareRes)} µs, verity ${perReq(verityRes)} µs`);
  if (bareRes.serverCpu < 0.9)
    console.log(
      `note: the bare server used ${Math.round(bareRes.serverCpu * 100)} % of a core, so its req/s is bounded by the load generator ` +
        'or the machine, not by fastify: compare the CPU per request rather than the req/s ratio',
    );
  const requests = store.db.prepare("SELECT SUM(requests) AS n FROM usage WHERE environment = 'test'").pluck().get();
  console.log(`usage rows committed for verity (incl. warm-up and sample): ${requests} requests`);

  await app.close();
  await bare.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
