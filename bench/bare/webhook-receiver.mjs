// The anchor of `node bench/webhooks.mjs --process`: a bare node:http PROCESS receiving signed
// webhook events, doing what `verity listen` does for an accepted event — "the same work":
//   1. the body read whole (bounded at 5 MB);
//   2. X-Service-Signature `sha256=<64 lowercase hex>` checked over the raw bytes: HMAC-SHA256
//      with the secret, compared in constant time (crypto.timingSafeEqual); 401 otherwise;
//   3. only then JSON.parse, and the envelope checked: id (wh_…), a known type, created_at a date
//      no older than the retry horizon (and not in the future), data an object;
//   4. deduplicated by event id over the last 100,000 ids (a Set and a ring, O(1) eviction);
//   5. answered 200 {"received":true};
//   6. one line per event on stdout (time, type, id, request id, verdict, score), as the
//      listener prints by default.
// Not done: several secrets, diagnosis of refusals, forwarding, --log files.
//   node bench/bare/webhook-receiver.mjs --secret SECRET
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.argv[process.argv.indexOf('--secret') + 1];
const TYPES = new Set(['verification.completed', 'verification.failed', 'credit.threshold', 'batch.completed', 'batch.failed']);
const MAX_AGE = 3 * 24 * 3600_000;
const EVENT_ID = /^wh_[A-Za-z0-9]{1,64}$/;
const ids = new Set();
const ring = new Array(100_000);
let next = 0;
const RECEIVED = JSON.stringify({ received: true });
const answer = (res, status, text) => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size <= 5 * 1024 * 1024) chunks.push(c);
  });
  req.on('end', () => {
    if (size > 5 * 1024 * 1024) return answer(res, 413, '{"error":"too large"}');
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const sig = req.headers['x-service-signature'];
    const given = typeof sig === 'string' && /^sha256=[0-9a-f]{64}$/.test(sig) ? Buffer.from(sig.slice(7), 'hex') : undefined;
    if (!given || !timingSafeEqual(given, createHmac('sha256', secret).update(body).digest())) return answer(res, 401, '{"error":"bad signature"}');
    let ev;
    try {
      ev = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(res, 400, '{"error":"not json"}');
    }
    const created = typeof ev?.created_at === 'string' ? Date.parse(ev.created_at) : NaN;
    if (!ev || typeof ev.id !== 'string' || !EVENT_ID.test(ev.id) || !TYPES.has(ev.type) || Number.isNaN(created) || typeof ev.data !== 'object' || ev.data === null)
      return answer(res, 400, '{"error":"not an event"}');
    const now = Date.now();
    if (now - created > MAX_AGE || created - now > 5 * 60_000) return answer(res, 401, '{"error":"stale"}');
    if (ids.has(ev.id)) return answer(res, 200, '{"received":true,"duplicate":true}');
    const old = ring[next];
    if (old !== undefined) ids.delete(old);
    ring[next] = ev.id;
    next = (next + 1) % ring.length;
    ids.add(ev.id);
    answer(res, 200, RECEIVED);
    const d = ev.data;
    process.stdout.write(`${new Date(now).toISOString().slice(11, 23)}  ${ev.type}  ${ev.id}  ${d.request_id ?? '—'}  ${d.verdict ?? '—'}  ${typeof d.trust_score === 'number' ? d.trust_score.toFixed(3) : ''}\n`);
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`Listening on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)) && server.closeAllConnections());
