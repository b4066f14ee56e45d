// Benchmark: 10,000 sandbox claims through `verity serve` as ONE batch (issue 15), whole process:
// the real CLI serves on 127.0.0.1, a test key on the pro plan creates the batch (POST
// /v1/batches), and the results are followed as NDJSON (`follow=true`) until the last line.
// Reported: time to the 202 (validation of every item + storing them), items/s from the POST to
// the last result line, and the server's peak RSS (VmHWM of the serve process, Linux).
// Anchor, measured in the same run: the same 10,000 claims through the sandbox engine in this
// process (4 at a time, no HTTP, no store) — the ratio is what the batch machinery costs (item
// claims, one SQLite commit per event-loop turn for results, charges and outbox rows).
// Needs the build (`npm run build`).
//   node bench/batch-server.mjs [--items 10000]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey, startServe } from './lib/serve.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const N = Number(arg('items', 10_000));
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'verity-bench-batch-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home, NO_COLOR: '1' };
const claims = Array.from({ length: N }, (_, i) => ({ custom_id: `row-${i}`, claim: `The Eiffel Tower in Paris is ${300 + (i % 50)} metres tall (${i})` }));

const peakRss = (pid) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const rssNow = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

// ---- anchor: the engine alone -------------------------------------------------------------
const { createSandboxEngine } = await import('../dist/engine/index.js');
const offline = async () => {
  throw new Error('the sandbox used the network');
};
const engine = createSandboxEngine({ clock: { now: () => new Date() }, config: {}, http: { request: offline, getJson: offline }, fetchInput: offline });
const a0 = performance.now();
for (let i = 0; i < N; i += 4) await Promise.all(claims.slice(i, i + 4).map(({ custom_id: _c, ...req }) => engine.verifyClaim(req, { plan: 'pro' })));
const anchorMs = performance.now() - a0;

// ---- the server ---------------------------------------------------------------------------
const key = createKey(bin, env, { environment: 'test', plan: 'pro' });
const { proc: serve, url } = await startServe(bin, env);
const idleRss = rssNow(serve.pid);
const headers = { authorization: `Bearer ${key}` };

const t0 = performance.now();
const created = await fetch(`${url}/v1/batches`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'claim', items: claims }) });
const accepted = performance.now() - t0;
if (created.status !== 202) throw new Error(`POST /v1/batches: ${created.status} ${await created.text()}`);
const { id } = await created.json();
const res = await fetch(`${url}/v1/batches/${id}/results?follow=true`, { headers });
let lines = 0;
let failed = 0;
let buf = '';
const decoder = new TextDecoder();
for await (const chunk of res.body) {
  buf += decoder.decode(chunk, { stream: true });
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    if (!line) continue; // the follow stream's heartbeat
    lines++;
    if (!line.includes('"status":"succeeded"')) failed++;
  }
}
const totalMs = performance.now() - t0;
const batch = await (await fetch(`${url}/v1/batches/${id}`, { headers })).json();
const peak = peakRss(serve.pid);
serve.kill('SIGTERM');
await new Promise((r) => serve.once('exit', r));
rmSync(home, { recursive: true, force: true });

const itemsPerS = (N / totalMs) * 1000;
const anchorPerS = (N / anchorMs) * 1000;
console.log(`batch-server: ${N} sandbox claims as one batch through verity serve (node ${process.version})`);
console.log(`  202 after            ${accepted.toFixed(0)} ms (every item validated and stored)`);
console.log(`  all results after   ${(totalMs / 1000).toFixed(2)} s → ${itemsPerS.toFixed(0)} items/s (status ${batch.status}, ${lines} lines, ${failed} not succeeded)`);
console.log(`  serve RSS           ${idleRss.toFixed(0)} MB idle, ${peak.toFixed(0)} MB peak`);
console.log(`  anchor: sandbox engine in-process, 4 at a time: ${anchorPerS.toFixed(0)} items/s → the batch runs at ${(itemsPerS / anchorPerS).toFixed(2)}x the bare engine`);
if (lines !== N || batch.request_counts.succeeded !== N) process.exitCode = 1;
