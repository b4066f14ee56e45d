import { Writable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { requireAuth } from '../../../src/server/auth.js';
import type { VerificationFailedInfo, VerificationRecordedInfo } from '../../../src/server/types.js';
import { bearer, startHarness, type Harness } from './harness.js';
import { head, rawRequest, unfinishedRequest } from '../../e2e/raw-http.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const claim = { claim: 'The Eiffel Tower is in Paris' };

describe('authentication (SPEC 5)', () => {
  it('answers 401 with docs for missing, malformed, unknown, environment-swapped and revoked keys', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'starter');
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer vty_test_${'A'.repeat(32)}` },
      bearer(key.replace('vty_test_', 'vty_live_')),
    ];
    for (const headers of cases) {
      const r = await h.post('/v1/verify/claim', claim, headers);
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('UNAUTHORIZED');
      expect(r.json.error.docs).toMatch(/^https:\/\//);
      expect(JSON.stringify(r.json)).not.toContain(key.slice(13));
    }
    expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
    const { revokeKey } = await import('../../../src/store/sqlite/accounts.js');
    revokeKey(h.store.db, 'ci', h.clock.now());
    const after = await h.post('/v1/verify/claim', claim, bearer(key));
    expect(after.status).toBe(401);
    expect(after.json.error.message).toMatch(/revoked/);
  });

  it('records last-used time and never stores the key itself', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'starter');
    await h.post('/v1/verify/claim', claim, bearer(key));
    const row = h.store.db.prepare('SELECT * FROM api_keys WHERE name = ?').get('ci') as Record<string, string>;
    expect(row.last_used_at).toBe(h.clock.now().toISOString());
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('plans, rate limits, credits', () => {
  it('refuses media to a starter plan with 403 required_plan business, and opencorporates below enterprise', async () => {
    h = await startHarness();
    const starter = h.key('s', 'test', 'starter');
    const r = await h.post('/v1/verify/media', { url: 'https://example.com/a.jpg' }, bearer(starter));
    expect(r.status).toBe(403);
    expect(r.json.error).toMatchObject({ code: 'FORBIDDEN', required_plan: 'business' });
    const business = h.key('b', 'test', 'business');
    expect((await h.post('/v1/verify/media', { url: 'https://example.com/a.jpg' }, bearer(business))).status).toBe(200);
    const oc = await h.post('/v1/verify/business', { company_name: 'Acme Ltd', sources: ['opencorporates'] }, bearer(business));
    expect(oc.status).toBe(403);
    expect(oc.json.error.required_plan).toBe('enterprise');
    const ent = h.key('e', 'test', 'enterprise');
    expect((await h.post('/v1/verify/business', { company_name: 'Acme Ltd', sources: ['opencorporates'] }, bearer(ent))).status).toBe(200);
  });

  it('answers the 101st test-key request in an hour with 429, Retry-After and RateLimit headers', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'pro');
    for (let i = 0; i < 100; i++) {
      const r = await h.post('/v1/verify/claim', { claim: `claim number ${i}` }, bearer(key));
      expect(r.status).toBe(200);
      if (i === 0) {
        expect(r.headers.get('ratelimit-limit')).toBe('100');
        expect(r.headers.get('ratelimit-remaining')).toBe('99');
        expect(r.headers.get('ratelimit-policy')).toBe('100;w=3600');
      }
      h.clock.advance(10_000);
    }
    const r = await h.post('/v1/verify/claim', claim, bearer(key));
    expect(r.status).toBe(429);
    expect(r.json.error.code).toBe('RATE_LIMITED');
    // 100 requests 10 s apart: the first leaves the window 3600 − 1000 s from now.
    expect(r.headers.get('retry-after')).toBe('2600');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
    expect(r.json.error.retry_after).toBe(2600);
    h.clock.advance(2_600_000);
    expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
  });

  it('charges live credits, calls afterVerification inside the usage transaction, and answers 402 past the quota', async () => {
    const seen: VerificationRecordedInfo[] = [];
    h = await startHarness({
      afterVerification(db, info) {
        seen.push(info);
        db.prepare('CREATE TABLE IF NOT EXISTS outbox (kind TEXT, usage_after INTEGER)').run();
        db.prepare('INSERT INTO outbox VALUES (?, ?)').run(info.kind, info.usageAfter);
      },
    });
    const key = h.key('prod', 'live', 'starter', 'acme');
    const acct = (h.store.db.prepare("SELECT id FROM accounts WHERE name = 'acme'").get() as { id: string }).id;
    h.store.db.prepare("INSERT INTO usage (account_id, period, environment, credits, requests) VALUES (?, '2026-03', 'live', 995, 10)").run(acct);
    const doc = { source: 'raw', content: 'A plain sentence written by a person about the weather in March.' };
    const ok = await h.post('/v1/verify/document', doc, bearer(key));
    expect(ok.status).toBe(200);
    expect(ok.json.credits_used).toBe(3);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ accountId: acct, environment: 'live', kind: 'document', creditsUsed: 3, usageBefore: 995, usageAfter: 998, monthlyQuota: 1000 });
    expect(h.store.db.prepare('SELECT * FROM outbox').all()).toEqual([{ kind: 'document', usage_after: 998 }]);
    const over = await h.post('/v1/verify/document', doc, bearer(key));
    expect(over.status).toBe(402);
    expect(over.json.error.code).toBe('QUOTA_EXCEEDED');
    expect(over.json.error.message).toMatch(/998 of 1000/);
    const usage = () => (h!.store.db.prepare("SELECT credits FROM usage WHERE account_id = ? AND environment = 'live'").get(acct) as { credits: number }).credits;
    expect(usage()).toBe(998);
  });

  it('rolls the charge back when afterVerification throws (at-least-once: no event, no charge)', async () => {
    h = await startHarness({
      afterVerification() {
        throw new Error('outbox write failed');
      },
    });
    const key = h.key('ci', 'test', 'starter');
    const r = await h.post('/v1/verify/claim', claim, bearer(key));
    expect(r.status).toBe(500);
    expect(r.json.error).toEqual({ code: 'INTERNAL_ERROR', message: 'Unexpected internal error' });
    expect(h.store.db.prepare('SELECT COUNT(*) AS n FROM usage').get()).toEqual({ n: 0 });
  });

  it('calls afterFailure for an upstream failure (503 + Retry-After) and does not charge', async () => {
    const failures: VerificationFailedInfo[] = [];
    h = await startHarness({ afterFailure: (_db, info) => void failures.push(info) });
    const key = h.key('ci', 'test', 'starter');
    const r = await h.post('/v1/verify/claim', { claim: 'Anything #unavailable' }, bearer(key));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('30');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.error).toBeInstanceOf(VerityError);
    expect(failures[0]!.requestId).toMatch(/^vrf_clm_/);
    expect(h.store.db.prepare('SELECT COUNT(*) AS n FROM usage').get()).toEqual({ n: 0 });
    // A validation failure is the caller's fault: no failure event.
    await h.post('/v1/verify/claim', { claim: '' }, bearer(key));
    expect(failures).toHaveLength(1);
  });
});

describe('idempotency', () => {
  it('returns the first response to a retry with the same Idempotency-Key and charges once, for 24 h', async () => {
    h = await startHarness();
    const key = h.key('ci', 'live', 'pro');
    const doc = { source: 'raw', content: 'Some ordinary text to analyse for the idempotency test.' };
    const first = await h.post('/v1/verify/document', doc, { ...bearer(key), 'idempotency-key': 'abc-123' });
    const again = await h.post('/v1/verify/document', doc, { ...bearer(key), 'idempotency-key': 'abc-123' });
    expect(first.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const credits = () => (h!.store.db.prepare('SELECT credits, requests FROM usage').get() as { credits: number; requests: number });
    expect(credits()).toEqual({ credits: 3, requests: 1 });
    const other = await h.post('/v1/verify/document', { ...doc, content: 'different' }, { ...bearer(key), 'idempotency-key': 'abc-123' });
    expect(other.status).toBe(400);
    expect(other.json.error.details[0].field).toBe('Idempotency-Key');
    h.clock.advance(24 * 3_600_000 + 1);
    const later = await h.post('/v1/verify/document', doc, { ...bearer(key), 'idempotency-key': 'abc-123' });
    expect(later.json.id).not.toBe(first.json.id);
    expect(credits()).toEqual({ credits: 6, requests: 2 });
  });

  it('runs concurrent duplicates once', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'pro');
    const rs = await Promise.all(
      Array.from({ length: 5 }, () => h!.post('/v1/verify/claim', claim, { ...bearer(key), 'idempotency-key': 'same' })),
    );
    expect(new Set(rs.map((r) => r.json.id)).size).toBe(1);
    expect(h.store.db.prepare('SELECT requests FROM usage').get()).toEqual({ requests: 1 });
  });
});

describe('request ids', () => {
  it('names the request id on answers of every kind: success, 401, 400, 404, and echoes a plain caller id', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'business');
    const ok = await h.post('/v1/verify/claim', claim, bearer(key));
    const unauthorized = await h.post('/v1/verify/claim', claim);
    const invalid = await h.post('/v1/verify/claim', '{"claim":', bearer(key));
    const missing = await fetch(`${h.url}/v1/nothing`);
    expect([ok.status, unauthorized.status, invalid.status, missing.status]).toEqual([200, 401, 400, 404]);
    const ids = [ok.headers, unauthorized.headers, invalid.headers, missing.headers].map((x) => x.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]+$/);
    expect(new Set(ids).size).toBe(4);
    const given = await h.post('/v1/verify/claim', claim, { ...bearer(key), 'x-request-id': 'trace-42.a_b' });
    expect(given.headers.get('x-request-id')).toBe('trace-42.a_b');
  });

  it('never takes a request id shaped like a key body (32+ base62 characters) into the log: ours replaces it', async () => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    h = await startHarness({ logLevel: 'info', logStream });
    const key = h.key('ci', 'test', 'business');
    const body = key.slice('vty_test_'.length); // the 32 base62 characters
    const secretShaped = [body, `trace-${body}`, 'A1b2C3d4'.repeat(5), key];
    for (const id of secretShaped) {
      const r = await h.post('/v1/verify/claim', claim, { ...bearer(key), 'x-request-id': id });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-request-id'), id).toMatch(/^req_[0-9A-Za-z]+$/);
    }
    // Ordinary trace ids are still taken: a UUID, a short token, 31 base62 characters.
    for (const id of ['550e8400-e29b-41d4-a716-446655440000', 'trace-42', 'a'.repeat(31)])
      expect((await h.post('/v1/verify/claim', claim, { ...bearer(key), 'x-request-id': id })).headers.get('x-request-id')).toBe(id);
    const log = lines.join('');
    expect(log).toContain('550e8400-e29b-41d4-a716-446655440000');
    expect(log).not.toContain(body);
    expect(log).not.toContain('A1b2C3d4'.repeat(5));
  });
});

describe('input hardening', () => {
  it('cuts a connection whose headers never finish (slowloris) at the headers bound, shorter than the request bound', async () => {
    h = await startHarness({ headersTimeoutMs: 200 }); // the request bound stays 30 s
    const key = h.key('ci', 'test', 'business');
    const partial = await unfinishedRequest(h.url, `POST /v1/verify/claim HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Slow: a`, 5_000);
    expect(partial.closed).toBe(true);
    expect(partial.response).toMatch(/^HTTP\/1\.1 400 /);
    expect(partial.response).toContain('The request was not received in time');
    expect((await unfinishedRequest(h.url, '', 5_000)).closed).toBe(true);
    expect((await h.post('/v1/verify/claim', claim, bearer(key))).status).toBe(200);
  });

  it('answers a compressed body (Content-Encoding other than identity) 415 UNSUPPORTED_MEDIA_TYPE, JSON and NDJSON alike', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'business');
    const json = JSON.stringify(claim);
    const send = (path: string, type: string, encoding: string, body: Buffer | string) =>
      fetch(`${h!.url}${path}`, { method: 'POST', headers: { ...bearer(key), 'content-type': type, 'content-encoding': encoding }, body: typeof body === 'string' ? body : new Uint8Array(body) });
    for (const [encoding, body] of [['gzip', gzipSync(json)], ['br', brotliCompressSync(json)], ['deflate, identity', deflateSync(json)], ['x-unknown', json]] as const) {
      const r = await send('/v1/verify/claim', 'application/json', encoding, body);
      expect(r.status, encoding).toBe(415);
      const e = ((await r.json()) as any).error;
      expect(e.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(e.message).toContain(`"${encoding}"`);
    }
    const ndjson = await send('/v1/batches', 'application/x-ndjson', 'gzip', gzipSync(`${JSON.stringify({ type: 'claim', claim: 'x' })}\n`));
    expect(ndjson.status).toBe(415);
    expect((await send('/v1/verify/claim', 'application/json', 'identity', json)).status).toBe(200);
  });

  it('maps malformed JSON, non-objects, schema failures, wrong types and oversized bodies to the catalogue', async () => {
    h = await startHarness();
    const key = h.key('ci', 'test', 'business');
    const bad = await h.post('/v1/verify/claim', '{"claim":', bearer(key));
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_REQUEST');
    expect((await h.post('/v1/verify/claim', '[1,2]', bearer(key))).json.error.code).toBe('INVALID_REQUEST');
    const v = await h.post('/v1/verify/claim', { claim: 'x'.repeat(2001), max_evidence: 0, extra: 1 }, bearer(key));
    expect(v.status).toBe(400);
    expect(v.json.error.code).toBe('VALIDATION_FAILED');
    expect(v.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['claim', 'extra', 'max_evidence'].sort());
    const text = await fetch(`${h.url}/v1/verify/claim`, { method: 'POST', headers: { ...bearer(key), 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    expect(((await text.json()) as any).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // Raw socket: the server answers 413 and closes while the body is still being written; an
    // early close (EPIPE/ECONNRESET on a loaded machine) is the expected outcome, not a failure.
    const bigBody = JSON.stringify({ file: 'A'.repeat(31 * 1024 * 1024) });
    const big = await rawRequest(
      h.url,
      head('POST', '/v1/verify/media', h.url, [`Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${bigBody.length}`]),
      bigBody,
    );
    expect(big.closedEarly || big.status === 413).toBe(true);
    if (big.status !== null) {
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    }
    const missing = await fetch(`${h.url}/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('NOT_FOUND');
  });

  it('answers 422 for an undecodable file and 415 for an unsupported one (live engine)', async () => {
    h = await startHarness();
    const key = h.key('prod', 'live', 'business');
    const truncatedJpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 1, 2, 3]).toString('base64');
    const r = await h.post('/v1/verify/media', { file: truncatedJpeg }, bearer(key));
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe('UNPROCESSABLE_CONTENT');
    const u = await h.post('/v1/verify/media', { file: Buffer.from('plain words, not an image').toString('base64') }, bearer(key));
    expect(u.status).toBe(415);
    expect(h.store.db.prepare('SELECT COUNT(*) AS n FROM usage').get()).toEqual({ n: 0 });
  });
});

describe('SSRF guard on url inputs (live engine)', () => {
  let target: Server | undefined;
  afterEach(() => void target?.close());

  it('refuses loopback, IPv6 loopback, metadata and names that resolve to private addresses, without connecting', async () => {
    let hits = 0;
    target = createServer((_req, res) => {
      hits++;
      res.end('secret');
    });
    await new Promise<void>((r) => target!.listen(0, '127.0.0.1', r));
    const port = (target.address() as AddressInfo).port;
    const lookup = (host: string, _o: unknown, cb: (e: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void) =>
      host === 'internal.example.com' ? cb(null, [{ address: '10.0.0.1', family: 4 }]) : cb(null, [{ address: '127.0.0.1', family: 4 }]);
    h = await startHarness({ lookup });
    const key = h.key('prod', 'live', 'business');
    const urls = [
      `http://127.0.0.1:${port}/doc.pdf`,
      `http://[::1]:${port}/doc.pdf`,
      'http://169.254.169.254/latest/meta-data/',
      'http://internal.example.com/doc.pdf',
      `http://localhost:${port}/doc.pdf`,
      `http://[::ffff:127.0.0.1]:${port}/doc.pdf`,
    ];
    for (const url of urls) {
      const d = await h.post('/v1/verify/document', { source: 'url', content: url }, bearer(key));
      expect(d.status, url).toBe(400);
      expect(d.json.error.code).toBe('VALIDATION_FAILED');
      expect(d.json.error.details[0].issue).toMatch(/private, loopback/);
      const m = await h.post('/v1/verify/media', { url }, bearer(key));
      expect(m.status, url).toBe(400);
    }
    const scheme = await h.post('/v1/verify/media', { url: 'file:///etc/passwd' }, bearer(key));
    expect(scheme.status).toBe(400);
    expect(hits).toBe(0);
  });
});

describe('extension points', () => {
  it('registers plugins after auth so their routes can use requireAuth and see request.auth', async () => {
    let started = 0;
    h = await startHarness({
      plugins: [
        async (app) => {
          app.get('/v1/whoami', { onRequest: requireAuth }, async (request) => ({ ...request.auth, db: typeof app.verity.db.prepare }));
        },
      ],
      background: { start: () => void started++, stop: async () => undefined },
    });
    const key = h.key('ci', 'test', 'pro');
    const me = await fetch(`${h.url}/v1/whoami`, { headers: bearer(key) });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ plan: 'pro', environment: 'test', keyPrefix: key.slice(0, 13), db: 'function' });
    const anon = await fetch(`${h.url}/v1/whoami`);
    expect(anon.status).toBe(401);
  });

  it('serves an OpenAPI document generated from the schemas, and /healthz', async () => {
    h = await startHarness();
    const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/verify/claim', '/v1/verify/business', '/v1/verify/media', '/v1/verify/document']));
    expect(doc.components.schemas.ClaimRequest.properties.max_evidence).toMatchObject({ minimum: 1, maximum: 20 });
    expect(doc.components.schemas.ClaimRequest.required).toEqual(['claim']);
    expect(doc.paths['/v1/verify/media'].post.responses['403']).toBeDefined();
    const health = await fetch(`${h.url}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });
});
