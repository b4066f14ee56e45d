/**
 * /v1/batches on the real server (buildServer on loopback, real SQLite file): validation before
 * anything is stored, 402 for a batch that does not fit, Idempotency-Key, the results cursor,
 * cancel. Live items wait on a fake Wikipedia on loopback (the only outside service here).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Batch, BatchEventData, BatchResultLine } from '../../../src/api/batches.js';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { buildServer } from '../../../src/server/app.js';
import { createServerEngines } from '../../../src/server/engines.js';
import { SPILL_AT } from '../../../src/server/batches/stream.js';
import type { BatchFinishedInfo, VerificationFailedInfo, VerificationRecordedInfo } from '../../../src/server/types.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { startWikipediaFake } from '../../fakes/wikipedia.js';
import type { FakeServer } from '../../fakes/claim-fake-server.js';
import { FakeClock } from '../server/harness.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface H {
  url: string;
  /** The batch spool (streamed batches' files). */
  spool: string;
  close(): Promise<void>;
  store: Store;
  clock: FakeClock;
  events: { completed: VerificationRecordedInfo[]; failed: VerificationFailedInfo[]; batches: BatchFinishedInfo[] };
  key(name: string, env: 'live' | 'test', plan: string): string;
  req(method: string, path: string, key: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

async function harness(o: { wiki?: FakeServer } = {}): Promise<H> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-batch-'));
  const store = await openStore(join(dir, 'verity.db'));
  migrateServer(store.db);
  const clock = new FakeClock();
  const config = o.wiki ? { contact: 'test@example.com', sources: { wikipedia: { base_url: `${o.wiki.url}/w/api.php` } } } : {};
  const engines = createServerEngines({ config, store, cacheDir: join(dir, 'cache'), clock });
  const events: H['events'] = { completed: [], failed: [], batches: [] };
  const spool = join(dir, 'spool');
  const app = await buildServer({
    logLevel: 'silent',
    store: sqliteServerStore(store.db),
    engines,
    clock,
    batchSpoolDir: spool,
    afterVerification: (_db, info) => void events.completed.push(info),
    afterFailure: (_db, info) => void events.failed.push(info),
    afterBatch: (_db, info) => void events.batches.push(info),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(async () => {
    await app.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url,
    spool,
    close: () => app.close(),
    store,
    clock,
    events,
    key: (name, env, plan) => createKey(store.db, { name, environment: env, plan, account: name, now: clock.now() }).key,
    async req(method, path, key, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}

const claims = (n: number, prefix = 'c'): Array<{ custom_id: string; claim: string }> =>
  Array.from({ length: n }, (_, i) => ({ custom_id: `${prefix}${i}`, claim: `Claim number ${i} is about Paris` }));

/** Follows the results until the batch ends; the lines parsed. */
async function follow(h: H, key: string, id: string, query = ''): Promise<any[]> {
  const r = await h.req('GET', `/v1/batches/${id}/results?follow=true${query}`, key);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  return r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe('POST /v1/batches validation', () => {
  it('names every bad item by position, refuses duplicates and unknown types, and stores nothing', async () => {
    const h = await harness();
    const key = h.key('v', 'test', 'pro');
    const items = [{ custom_id: 'a', claim: 'ok' }, { custom_id: 'b', claim: '' }, { custom_id: 'a', claim: 'x' }, { claim: 'no id' }, { custom_id: 'e', claim: 'y', bogus: 1 }];
    const r = await h.req('POST', '/v1/batches', key, { type: 'claim', items });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('VALIDATION_FAILED');
    const fields = r.json.error.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(['items[1].claim', 'items[2].custom_id', 'items[3].custom_id', 'items[4].bogus']); // an unknown field is named (issue 32)
    expect(r.json.error.details[1].issue).toMatch(/duplicate of items\[0\]/);
    // An item of another kind is one problem that names the kind, not one per field it has.
    const mixed = await h.req('POST', '/v1/batches', key, { type: 'claim', items: [{ custom_id: 'a', company_name: 'Acme Ltd', jurisdiction: 'gb' }] });
    expect(mixed.json.error.details).toEqual([
      { field: 'items[0]', issue: 'looks like a business item (company_name, jurisdiction), not a claim: send it in a batch of type business' },
    ]);
    const t = await h.req('POST', '/v1/batches', key, { type: 'poem', items });
    expect(t.status).toBe(400);
    expect(t.json.error.details[0].field).toBe('type');
    expect((await h.req('POST', '/v1/batches', key, { type: 'claim', items: [] })).json.error.details[0].field).toBe('items');
    const list = await h.req('GET', '/v1/batches', key);
    expect(list.json).toEqual({ data: [], has_more: false });
  });

  it('refuses a batch over the plan limit and media below the business plan', async () => {
    const h = await harness();
    const starter = h.key('s', 'test', 'starter');
    const big = await h.req('POST', '/v1/batches', starter, { type: 'claim', items: claims(1001) });
    expect(big.status).toBe(400);
    expect(big.json.error.message).toMatch(/at most 1000 items on the starter plan/);
    const media = await h.req('POST', '/v1/batches', starter, { type: 'media', items: [{ custom_id: 'm', url: 'https://example.com/a.jpg' }] });
    expect(media.status).toBe(403);
    expect(media.json.error.required_plan).toBe('business');
  });

  it('reads NDJSON with a header line or ?type=, and names a bad line', async () => {
    const h = await harness();
    const key = h.key('n', 'test', 'pro');
    const nd = { 'content-type': 'application/x-ndjson' };
    const body = ['{"type":"claim","metadata":{"run":"7"}}', '{"custom_id":"x","claim":"Paris is in France"}', '', '{"custom_id":"y","claim":"Water is wet"}'].join('\n');
    const ok = await h.req('POST', '/v1/batches', key, body, nd);
    expect(ok.status).toBe(202);
    expect(ok.json).toMatchObject({ status: 'queued', type: 'claim', request_counts: { total: 2, succeeded: 0, failed: 0 }, metadata: { run: '7' } });
    const q = await h.req('POST', '/v1/batches?type=claim', key, '{"custom_id":"x","claim":"a"}\n', nd);
    expect(q.status).toBe(202);
    const bad = await h.req('POST', '/v1/batches?type=claim', key, '{"custom_id":"x","claim":"a"}\n{"custom_id":\n', nd);
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0]).toEqual({ field: 'line 2', issue: 'is not valid JSON' });
  });
});

describe('OpenAPI', () => {
  it('documents the batch operations with examples', async () => {
    const h = await harness();
    const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as any;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/batches', '/v1/batches/{id}', '/v1/batches/{id}/cancel', '/v1/batches/{id}/results']));
    expect(doc.paths['/v1/batches'].post.responses['202'].content['application/json'].example.id).toMatch(/^bat_/);
    expect(doc.paths['/v1/batches'].post.requestBody.content['application/x-ndjson']).toBeDefined();
    expect(doc.components.schemas.Batch.properties.request_counts).toBeDefined();
    // Items are closed objects that include custom_id (not an allOf a strict validator would refuse).
    const item = doc.components.schemas.BatchClaimItem;
    expect(item.required).toEqual(expect.arrayContaining(['custom_id', 'claim']));
    expect(item.additionalProperties).toBe(false);
    expect(Object.keys(item.properties)).toContain('custom_id');
    const example = doc.paths['/v1/batches'].post.requestBody.content['application/json'].example.items as Array<Record<string, unknown>>;
    for (const x of example) expect(Object.keys(x).every((k) => k in item.properties)).toBe(true);
  });
});

describe('sample batch events', () => {
  it('`webhooks trigger` samples have the shape the server sends', async () => {
    const { sampleData } = await import('../../../src/domain/events.js');
    for (const t of ['batch.completed', 'batch.partial'] as const) {
      const { sample, ...data } = sampleData(t, new Date()) as Record<string, unknown>;
      expect(sample).toBe(true);
      expect(BatchEventData.safeParse(data).success).toBe(true);
    }
  });
});

describe('credits and idempotency', () => {
  it('answers 402 when the whole batch does not fit in the month, before storing anything', async () => {
    const h = await harness();
    const key = h.key('q', 'live', 'starter');
    const account = (h.store.db.prepare("SELECT id FROM accounts WHERE name = 'q'").get() as { id: string }).id;
    h.store.db.prepare("INSERT INTO usage (account_id, period, environment, credits, requests) VALUES (?, '2026-03', 'live', 990, 990)").run(account);
    const r = await h.req('POST', '/v1/batches', key, { type: 'claim', items: claims(11) });
    expect(r.status).toBe(402);
    expect(r.json.error.code).toBe('QUOTA_EXCEEDED');
    expect(r.json.error.message).toMatch(/990 of 1000.*needs 11/);
    expect((await h.req('GET', '/v1/batches', key)).json.data).toHaveLength(0);
  });

  it('a retried create with the same Idempotency-Key returns the same batch; another body under it is refused', async () => {
    const h = await harness();
    const key = h.key('i', 'test', 'pro');
    const body = { type: 'claim', items: claims(3) };
    const a = await h.req('POST', '/v1/batches', key, body, { 'idempotency-key': 'batch-1' });
    const b = await h.req('POST', '/v1/batches', key, body, { 'idempotency-key': 'batch-1' });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.json.id).toBe(a.json.id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(a.headers.get('location')).toBe(`/v1/batches/${a.json.id}`);
    expect(b.headers.get('location')).toBe(`/v1/batches/${a.json.id}`);
    const other = await h.req('POST', '/v1/batches', key, { type: 'claim', items: claims(4) }, { 'idempotency-key': 'batch-1' });
    expect(other.status).toBe(400);
    expect((await h.req('GET', '/v1/batches', key)).json.data).toHaveLength(1);
  });
});

describe('limits', () => {
  it('a live batch holds its credits: a single request that no longer fits gets 402 until the batch is cancelled', async () => {
    const wiki = await startWikipediaFake(undefined, { mode: 'hang' });
    cleanups.push(() => wiki.close());
    const h = await harness({ wiki });
    const key = h.key('hold', 'live', 'starter');
    const items = claims(1000).map((i) => ({ ...i, sources: ['wikipedia'] }));
    const a = await h.req('POST', '/v1/batches', key, { type: 'claim', items });
    expect(a.status).toBe(202);
    const single = await h.req('POST', '/v1/verify/claim', key, { claim: 'One more', sources: ['wikipedia'] });
    expect(single.status).toBe(402);
    const second = await h.req('POST', '/v1/batches', key, { type: 'claim', items: claims(1, 'z') });
    expect(second.status).toBe(402);
    await h.req('POST', `/v1/batches/${a.json.id}/cancel`, key);
    await follow(h, key, a.json.id);
    const after = await h.req('POST', '/v1/batches', key, { type: 'claim', items: claims(1000, 'y').map((i) => ({ ...i, sources: ['wikipedia'] })) });
    expect(after.status).toBe(202);
    await h.req('POST', `/v1/batches/${after.json.id}/cancel`, key);
    await follow(h, key, after.json.id);
  });

  it('refuses more unfinished batches than the plan allows (429), and bad metadata and queries (400)', async () => {
    const wiki = await startWikipediaFake(undefined, { mode: 'hang' });
    cleanups.push(() => wiki.close());
    const h = await harness({ wiki });
    const key = h.key('many', 'live', 'starter');
    const one = (p: string) => ({ type: 'claim', items: claims(3, p).map((i) => ({ ...i, sources: ['wikipedia'] })) });
    const ids: string[] = [];
    for (const p of ['a', 'b']) ids.push((await h.req('POST', '/v1/batches', key, one(p))).json.id);
    const third = await h.req('POST', '/v1/batches', key, one('c'));
    expect(third.status).toBe(429);
    expect(third.json.error.message).toMatch(/2 unfinished batches/);
    const meta = await h.req('POST', '/v1/batches', key, { ...one('d'), metadata: { ok: 'x', bad: 7 } });
    expect(meta.status).toBe(400);
    expect(meta.json.error.details[0].field).toBe('metadata.bad');
    expect((await h.req('GET', `/v1/batches/${ids[0]}/results?after=-1`, key)).status).toBe(400);
    expect((await h.req('GET', `/v1/batches/${ids[0]}/results?status=done`, key)).status).toBe(400);
    for (const id of ids) {
      await h.req('POST', `/v1/batches/${id}/cancel`, key);
      await follow(h, key, id);
    }
    expect((await h.req('POST', '/v1/batches', key, one('e'))).status).toBe(202);
  });

  it('on a server store without a BatchStore (neither SQLite nor PostgreSQL) the routes answer 503', async () => {
    const { default: Fastify } = await import('fastify');
    const { batchesPlugin } = await import('../../../src/server/batches/index.js');
    const { sendError } = await import('../../../src/server/error-handler.js');
    const app = Fastify();
    app.setErrorHandler((err, request, reply) => sendError(err, request, reply));
    await app.register(batchesPlugin({ store: { kind: 'elsewhere' } as never, engines: {} as never, ledger: {} as never, idempotency: {} as never, clock: { now: () => new Date() }, hooks: {} }));
    const r = await app.inject({ method: 'GET', url: '/v1/batches' });
    expect(r.statusCode).toBe(503);
    expect(r.json().error.message).toMatch(/not available on the elsewhere store/);
    await app.close();
  });
});

describe('graceful stop and bounds', () => {
  it('closing the server ends follow streams and hands the running items back (not charged, not finished)', async () => {
    const wiki = await startWikipediaFake(undefined, { mode: 'hang' });
    cleanups.push(() => wiki.close());
    const h = await harness({ wiki });
    const key = h.key('stop', 'live', 'pro');
    const { json } = await h.req('POST', '/v1/batches', key, { type: 'claim', items: claims(12).map((i) => ({ ...i, sources: ['wikipedia'] })) });
    while (wiki.requests.length < 2) await new Promise<void>((r) => setImmediate(r));
    const res = await fetch(`${h.url}/v1/batches/${json.id}/results?follow=true`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get('verity-batch-status')).toBe('running');
    const following = res.text();
    await h.close();
    expect((await following).trim()).toBe('');
    const rows = h.store.db.prepare('SELECT status, count(*) AS n FROM batch_items GROUP BY status').all();
    expect(rows).toEqual([{ status: 'queued', n: 12 }]);
    expect(h.store.db.prepare('SELECT count(*) AS n FROM usage').get()).toEqual({ n: 0 });
  });

  it('a JSON batch body over 30 MB, or an NDJSON line over 28 MB, is refused with 413; nothing is stored or spooled', async () => {
    const h = await harness();
    const key = h.key('big', 'test', 'enterprise');
    const items = Array.from({ length: 31 * 1024 }, (_, i) => ({ custom_id: `x${i}`, claim: 'y'.repeat(1000) }));
    const r = await h.req('POST', '/v1/batches', key, { type: 'claim', items });
    expect(r.status).toBe(413);
    expect(r.json.error.code).toBe('PAYLOAD_TOO_LARGE');
    // NDJSON is read as it arrives (no whole-body limit), but one line is bounded.
    const photo = Buffer.alloc(21 * 1024 * 1024, 7).toString('base64');
    const body = `{"type":"media"}\n{"custom_id":"a","file":"${Buffer.from('small').toString('base64')}"}\n{"custom_id":"big","file":"${photo}"}\n`;
    const n = await h.req('POST', '/v1/batches', key, body, { 'content-type': 'application/x-ndjson' });
    expect(n.status).toBe(413);
    expect(n.json.error.details).toEqual([{ field: 'line', issue: 'at most 28 MB' }]);
    expect((await h.req('GET', '/v1/batches', key)).json.data).toHaveLength(0);
    expect(readdirSync(h.spool)).toEqual([]);
  });

  it('a streamed NDJSON media batch: files wait in the spool (not in the database) and are removed as items finish', async () => {
    const h = await harness();
    const key = h.key('s', 'test', 'business');
    const { default: sharp } = await import('sharp');
    const photos = await Promise.all(
      [0, 1, 2].map((i) => sharp({ create: { width: 64 + i, height: 48, channels: 3, background: { r: 40 * i, g: 90, b: 160 } } }).jpeg().toBuffer()),
    );
    const lines = [JSON.stringify({ type: 'media', metadata: { run: 'stream' } }), ...photos.map((p, i) => JSON.stringify({ custom_id: `p${i}`, file: p.toString('base64'), check_deepfakes: i !== 1 }))];
    const r = await h.req('POST', '/v1/batches', key, `${lines.join('\n')}\n`, { 'content-type': 'application/x-ndjson', 'idempotency-key': 'stream-1' });
    expect(r.status, r.text).toBe(202);
    expect(r.json.metadata).toEqual({ run: 'stream' });
    // The rows hold the request without the file; the bytes were on disk until each item ran.
    const stored = h.store.db.prepare('SELECT request FROM batch_items ORDER BY idx').all() as Array<{ request: string }>;
    expect(stored.map((x) => JSON.parse(x.request))).toEqual([
      { $spooled: true, check_deepfakes: true },
      { $spooled: true, check_deepfakes: false },
      { $spooled: true, check_deepfakes: true },
    ]);
    const results = await follow(h, key, r.json.id);
    expect(results.map((l) => [l.custom_id, l.status])).toEqual(expect.arrayContaining([['p0', 'succeeded'], ['p1', 'succeeded'], ['p2', 'succeeded']]));
    // Each result is the single request's (the sandbox's answer for the same bytes).
    const single = await h.req('POST', '/v1/verify/media', key, { file: photos[1]!.toString('base64'), check_deepfakes: false });
    const { id: _a, latency_ms: _b, ...want } = single.json;
    const { id: _c, latency_ms: _d, ...got } = results.find((l) => l.custom_id === 'p1').result;
    expect(got).toEqual(want);
    while ((await h.req('GET', `/v1/batches/${r.json.id}`, key)).json.status !== 'completed') await new Promise<void>((res) => setImmediate(res));
    expect(readdirSync(h.spool)).toEqual([]);
    // The same key and body again: the same batch, and nothing left spooled by the replay.
    const again = await h.req('POST', '/v1/batches', key, `${lines.join('\n')}\n`, { 'content-type': 'application/x-ndjson', 'idempotency-key': 'stream-1' });
    expect(again.json.id).toBe(r.json.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(readdirSync(h.spool)).toEqual([]);
  });

  it('a streamed file past 64 KB of base64 is decoded to the spool as it arrives, with the same result; a long value that is no file is refused', async () => {
    const h = await harness();
    const key = h.key('sp', 'test', 'business');
    const { default: sharp } = await import('sharp');
    // Noise does not compress: ~200 KB of JPEG, ~270 KB of base64 (spilled: SPILL_AT.file is 64 KB).
    const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 90, g: 90, b: 90 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 95 }).toBuffer();
    expect(photo.length * 4 / 3).toBeGreaterThan(SPILL_AT.file!);
    // Sent with MIME line breaks and escaped slashes, both legal in the single request too.
    const file = JSON.stringify(photo.toString('base64').replace(/(.{76})/g, '$1\r\n')).replace(/\//g, '\\/');
    const body = `{"type":"media"}\n{"custom_id":"big","file":${file},"check_deepfakes":false}\n`;
    const r = await h.req('POST', '/v1/batches', key, body, { 'content-type': 'application/x-ndjson' });
    expect(r.status, r.text).toBe(202);
    const stored = h.store.db.prepare('SELECT request FROM batch_items').all() as Array<{ request: string }>;
    expect(stored.map((x) => JSON.parse(x.request))).toEqual([{ $spooled: true, check_deepfakes: false }]);
    const [line] = await follow(h, key, r.json.id);
    const single = await h.req('POST', '/v1/verify/media', key, { file: photo.toString('base64'), check_deepfakes: false });
    const { id: _a, latency_ms: _b, ...want } = single.json;
    const { id: _c, latency_ms: _d, ...got } = line.result;
    expect(got).toEqual(want);

    // Raw text longer than any raw text may be (even fully escaped) is refused, not taken for a file.
    const raw = 'x'.repeat(SPILL_AT.content! + 10);
    const refused = await h.req('POST', '/v1/batches', key, `{"type":"document"}\n${JSON.stringify({ custom_id: 'r', source: 'raw', content: raw })}\n`, { 'content-type': 'application/x-ndjson' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.details).toContainEqual(expect.objectContaining({ field: 'items[0].content' }));
    // A spilled value that is not base64 is named as the schema names it.
    const bad = await h.req('POST', '/v1/batches', key, `{"type":"media"}\n${JSON.stringify({ custom_id: 'b', file: `${'A'.repeat(70_000)}!` })}\n`, { 'content-type': 'application/x-ndjson' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details).toContainEqual({ field: 'items[0].file', issue: 'must be base64-encoded data' });
    while (!['completed', 'partial'].includes((await h.req('GET', `/v1/batches/${r.json.id}`, key)).json.status)) await new Promise<void>((res) => setImmediate(res));
    expect(readdirSync(h.spool)).toEqual([]);
  });
});

describe('running, results and cancel', () => {
  it('runs every item once, charges each success, and the results cursor resumes where it stopped', async () => {
    const h = await harness();
    const key = h.key('r', 'test', 'pro');
    const items = claims(30);
    items[7]!.claim = 'This fails #unavailable';
    items[21]!.claim = 'This too #unavailable';
    const created = await h.req('POST', '/v1/batches', key, { type: 'claim', items, metadata: { source: 'sheet' } });
    expect(created.status).toBe(202);
    const id = created.json.id as string;
    expect(id).toMatch(/^bat_/);
    const all = await follow(h, key, id);
    expect(all).toHaveLength(30);
    expect(all.map((l) => l.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(all.map((l) => l.custom_id)).size).toBe(30);
    const failed = all.filter((l) => l.status === 'failed');
    expect(failed.map((l) => [l.custom_id, l.index, l.error.code]).sort()).toEqual([
      ['c21', 21, 'UNAVAILABLE'],
      ['c7', 7, 'UNAVAILABLE'],
    ]);
    const ok = all.find((l) => l.custom_id === 'c3');
    expect(ok.result.id).toMatch(/^vrf_clm_/);
    // Resume after the 12th line: exactly the rest, in the same order.
    const rest = (await h.req('GET', `/v1/batches/${id}/results?after=12`, key)).text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(rest.map((l) => l.custom_id)).toEqual(all.slice(12).map((l) => l.custom_id));
    const onlyFailed = (await h.req('GET', `/v1/batches/${id}/results?status=failed`, key)).text.trim().split('\n');
    expect(onlyFailed).toHaveLength(2);
    const b = await h.req('GET', `/v1/batches/${id}`, key);
    expect(b.json).toMatchObject({ id, status: 'partial', request_counts: { total: 30, succeeded: 28, failed: 2, cancelled: 0 }, credits_used: 28, metadata: { source: 'sheet' } });
    expect(b.json.completed_at).toBe(h.clock.now().toISOString());
    // Charged once per success; every item announced once with its batch and custom id; one terminal event.
    const usage = h.store.db.prepare("SELECT credits, requests FROM usage WHERE environment = 'test'").get();
    expect(usage).toEqual({ credits: 28, requests: 28 });
    expect(h.events.completed.map((e) => e.batch?.custom_id).sort()).toEqual(all.filter((l) => l.status === 'succeeded').map((l) => l.custom_id).sort());
    expect(h.events.failed.map((e) => e.batch)).toEqual(expect.arrayContaining([{ batch_id: id, custom_id: 'c7' }, { batch_id: id, custom_id: 'c21' }]));
    expect(h.events.batches).toHaveLength(1);
    expect(h.events.batches[0]!.batch).toMatchObject({ id, status: 'partial', total: 30, succeeded: 28, failed: 2 });
    // The wire contract holds for what was sent.
    expect(Batch.safeParse(b.json).success).toBe(true);
    for (const l of all) expect(BatchResultLine.safeParse(l).success).toBe(true);
    const { id: _id, ...eventRest } = h.events.batches[0]!.batch;
    expect(BatchEventData.safeParse({ batch_id: id, ...eventRest }).success).toBe(true);
    const list = await h.req('GET', '/v1/batches?limit=1', key);
    expect(list.json).toMatchObject({ data: [{ id }], has_more: false });
    expect((await h.req('GET', '/v1/batches/bat_nope', key)).status).toBe(404);
  });

  it('cancel stops queued and running live items; nothing cancelled is charged; one batch.partial', async () => {
    const wiki = await startWikipediaFake(undefined, { mode: 'hang' });
    cleanups.push(() => wiki.close());
    const h = await harness({ wiki });
    const key = h.key('x', 'live', 'pro');
    const items = claims(20).map((i) => ({ ...i, sources: ['wikipedia'] }));
    const created = await h.req('POST', '/v1/batches', key, { type: 'claim', items });
    const id = created.json.id as string;
    // Wait until items are at the (hanging) source (its host limit lets only some through at once).
    while (wiki.requests.length < 2) await new Promise<void>((r) => setImmediate(r));
    const c = await h.req('POST', `/v1/batches/${id}/cancel`, key);
    expect(c.status).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(c.json.status);
    const lines = await follow(h, key, id);
    expect(lines).toHaveLength(20);
    expect(lines.every((l) => l.status === 'cancelled')).toBe(true);
    const b = await h.req('GET', `/v1/batches/${id}`, key);
    expect(b.json).toMatchObject({ status: 'cancelled', request_counts: { total: 20, succeeded: 0, failed: 0, cancelled: 20 }, credits_used: 0 });
    expect(h.store.db.prepare("SELECT count(*) AS n FROM usage WHERE environment = 'live'").get()).toEqual({ n: 0 });
    expect(h.events.batches.map((e) => e.batch.status)).toEqual(['cancelled']);
    expect(h.events.completed).toHaveLength(0);
    // The credits held for the batch are free again: a single request of the full month fits.
    const again = await h.req('POST', `/v1/batches/${id}/cancel`, key);
    expect(again.json.status).toBe('cancelled');
  });
});
