// The anchor of `node bench/server.mjs --process`: a bare fastify PROCESS doing the work a plain
// hand-written service would do for POST /v1/verify/claim — what "the same work" as `verity
// serve`'s sandbox claim means there (see the header of bench/server.mjs):
//   1. one JSON line per request on stderr at --log-level info (fastify's pino, as verity's);
//   2. the Bearer key parsed, hashed (SHA-256) and its row read from SQLite by hash (a prepared
//      statement on every request: no cache; unknown or revoked key → 401);
//   3. a per-key rate limit of 100 per hour in memory (fixed window), the ratelimit-* headers;
//   4. the body validated by a JSON schema of the same rules (fastify's Ajv, compiled once);
//   5. an answer of the same shape and size as verity's (a copy of one of its answers, with this
//      request's claim and its own id), serialized per request;
//   6. one usage row upserted in SQLite per request, committed (WAL, synchronous=NORMAL, as
//      verity's store) before the answer is sent — by default in a group commit as verity's
//      (the upserts of one event-loop turn in one transaction on the next setImmediate, each
//      answer sent after its commit); with --commit each, one transaction per request (what a
//      plain service would write first; on this machine it costs more than verity's whole route).
// Not done: the sandbox engine's computation, idempotency keys, quotas, webhooks.
// --minimal: steps 1 and 5 only (the log line, the JSON body parsed, the same-size answer): the
// floor a fastify process costs per request, the anchor issue 31 measured 0.55× against.
//   node bench/bare/claim-server.mjs --db FILE --sample FILE [--log-level info] [--minimal] [--commit group|each]
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const db = new Database(arg('db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS bare_keys (hash TEXT PRIMARY KEY, id TEXT NOT NULL, account TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
         CREATE TABLE IF NOT EXISTS bare_usage (account TEXT NOT NULL, period TEXT NOT NULL, requests INTEGER NOT NULL, PRIMARY KEY (account, period))`);
const findKey = db.prepare('SELECT id, account, revoked FROM bare_keys WHERE hash = ?');
const charge = db.prepare('INSERT INTO bare_usage (account, period, requests) VALUES (?, ?, 1) ON CONFLICT (account, period) DO UPDATE SET requests = requests + 1');
// Group commit: the charges of one event-loop turn in one IMMEDIATE transaction, each caller's
// promise settled after it commits.
const commitEach = arg('commit', 'group') === 'each';
const chargeAll = db.transaction((items) => {
  for (const c of items) charge.run(c.account, c.period);
}).immediate;
let queue = [];
const flush = () => {
  const items = queue;
  queue = [];
  try {
    chargeAll(items);
  } catch (err) {
    for (const c of items) c.reject(err);
    return;
  }
  for (const c of items) c.resolve();
};
const charged = (account, period) =>
  commitEach
    ? (charge.run(account, period), undefined)
    : new Promise((resolve, reject) => {
        if (queue.push({ account, period, resolve, reject }) === 1) setImmediate(flush);
      });
const sample = JSON.parse(readFileSync(arg('sample'), 'utf8'));

const app = Fastify({
  logger: { level: arg('log-level', 'info'), stream: process.stderr },
  disableRequestLogging: true,
  bodyLimit: 30 * 1024 * 1024,
  // As strict as verity's schema: unknown fields and wrong types are refused, not dropped or coerced.
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
});
app.addHook('onResponse', (request, reply, done) => {
  request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
  done();
});

const minimal = process.argv.includes('--minimal');
const windows = new Map();
const HOUR = 3_600_000;
if (!minimal) app.addHook('onRequest', (request, reply, done) => {
  const m = /^Bearer (vty_(?:live|test)_[0-9A-Za-z]{32})$/.exec(request.headers.authorization ?? '');
  const row = m && findKey.get(createHash('sha256').update(m[1]).digest('hex'));
  if (!row || row.revoked) return void reply.code(401).send({ error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } });
  request.account = row.account;
  const now = Date.now();
  let w = windows.get(row.id);
  if (!w || now - w.start >= HOUR) windows.set(row.id, (w = { start: now, n: 0 }));
  w.n++;
  reply.header('ratelimit-limit', '100');
  reply.header('ratelimit-remaining', String(Math.max(0, 100 - w.n)));
  reply.header('ratelimit-reset', String(Math.ceil((w.start + HOUR - now) / 1000)));
  if (w.n > 100) return void reply.code(429).send({ error: { code: 'RATE_LIMITED', message: 'Rate limit reached' } });
  done();
});

const schema = {
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['claim'],
    properties: {
      claim: { type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' },
      sources: { type: 'array', items: { type: 'string', enum: ['wikipedia', 'wikidata', 'factcheck', 'local'] }, maxItems: 10 },
      language: { type: 'string', pattern: '^[a-z]{2}$', default: 'en' },
      max_evidence: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    },
  },
};
let n = 0;
const base = `vrf_clm_bare${process.pid}_`;
app.post('/v1/verify/claim', minimal ? {} : { schema }, async (request) => {
  const now = new Date();
  if (!minimal) await charged(request.account, now.toISOString().slice(0, 7));
  return { ...sample, id: `${base}${++n}`, claim: request.body.claim, created_at: now.toISOString() };
});

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write(`Listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => (db.close(), process.exit(0))));
