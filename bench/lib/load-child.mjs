// The load generator of the whole-process benchmarks (bench/lib/whole-process.mjs): autocannon in
// its own process, so it shares neither server's event loop. Protocol over IPC: the parent sends
// the job; this child loads autocannon and answers { ready }; the parent reads the server's CPU
// and answers { go }; the child runs and answers its result.
//   job.kind 'claim':   POST job.body to job.url, `Authorization: Bearer <key>` rotating over job.keys
//   job.kind 'webhook': POST a distinct signed event per request (id wh_<salt><n>), signed with
//                       job.secret as verity's sender signs (x-service-signature: sha256=<hex>)
import { createHmac } from 'node:crypto';

const job = await new Promise((r) => process.once('message', r));
const { default: autocannon } = await import('autocannon');

let setupRequest;
if (job.kind === 'claim') {
  let next = 0;
  const { keys } = job;
  setupRequest = (req) => ({ ...req, body: job.body, headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[next++ % keys.length]}` } });
} else if (job.kind === 'webhook') {
  let k = 0;
  const created = new Date().toISOString();
  setupRequest = (req) => {
    const i = k++;
    const body = JSON.stringify({
      id: `wh_${job.salt}${i}`,
      type: 'verification.completed',
      created_at: created,
      data: { request_id: `vrf_clm_${job.salt}${i}`, request_type: 'claim', trust_score: 0.8, verdict: 'true', evidence: [], latency_ms: 10 },
    });
    const sig = `sha256=${createHmac('sha256', job.secret).update(body).digest('hex')}`;
    return { ...req, body, headers: { 'content-type': 'application/json', 'x-service-signature': sig } };
  };
} else throw new Error(`unknown load kind ${job.kind}`);

process.send({ ready: true });
await new Promise((r) => process.once('message', r));
const cpu0 = process.cpuUsage();
const r = await autocannon({
  url: job.url,
  connections: job.connections,
  ...(job.amount ? { amount: job.amount } : { duration: job.duration }),
  timeout: 30,
  requests: [{ method: 'POST', setupRequest }],
});
const cpu = process.cpuUsage(cpu0);
process.send({
  reqs: r.requests.average,
  total: r.requests.total,
  duration: r.duration,
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
  clientCpuUs: cpu.user + cpu.system,
});
