import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../src/webhooks-verify/index.js';
import { VerityError } from '../../../src/api/errors.js';
import { EventEnvelope } from '../../../src/api/webhooks.js';
import { webhookServerHooks } from '../../../src/server/webhook-routes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey, migrateServer } from '../../../src/store/sqlite/accounts.js';
import { buildServer } from '../../../src/server/app.js';
import { createServerEngines } from '../../../src/server/engines.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { sqliteServerStore } from '../../../src/store/sqlite/index.js';
import { systemWorkerClock } from '../../../src/webhooks/delivery.js';
import { FakeClock } from '../server/harness.js';

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const SECRET = 'server-plugin-secret-0123456789-abcdefgh';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

async function receiver(status = 200): Promise<{ url: string; received: Received[]; next(): Promise<Received> }> {
  const received: Received[] = [];
  let waiting: ((r: Received) => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      received.push(r);
      res.statusCode = status;
      res.end();
      waiting?.(r);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  let seen = 0;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    received,
    next: () =>
      new Promise((resolve) => {
        if (received.length > seen) return resolve(received[seen++]!);
        waiting = (r) => {
          waiting = undefined;
          seen++;
          resolve(r);
        };
      }),
  };
}

interface Harness {
  url: string;
  store: Store;
  clock: FakeClock;
  key(name: string, env: 'live' | 'test', plan: string): string;
  post(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; json: any }>;
}

/** The real server (buildServer) over a real SQLite file, with the webhook hooks plugged in. */
async function harness(): Promise<{ h: Harness; hooks: ReturnType<typeof webhookServerHooks> }> {
  const dir = mkdtempSync(join(tmpdir(), 'verity-wh-'));
  const store = await openStore(join(dir, 'verity.db'));
  migrateServer(store.db);
  const clock = new FakeClock();
  const hooks = webhookServerHooks({
    store: sqliteServerStore(store.db, { nowMs: () => systemWorkerClock.now() }),
    clock: { now: () => clock.now() },
    workerClock: systemWorkerClock,
    // The receivers here are on loopback: the development switch (the guard has its own tests).
    targetPolicy: { allowPrivate: true },
  });
  const engines = createServerEngines({ config: {}, store, cacheDir: join(dir, 'cache'), clock });
  const app = await buildServer({ logLevel: 'silent', store: sqliteServerStore(store.db), engines, clock, ...hooks });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  hooks.background.start();
  cleanups.push(async () => {
    await app.close();
    await hooks.background.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const h: Harness = {
    url,
    store,
    clock,
    key: (name, env, plan) => createKey(store.db, { name, environment: env, plan, account: name, now: clock.now() }).key,
    async post(path, body, headers) {
      const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: res.status, json: await res.json() };
    },
  };
  return { h, hooks };
}

async function call(h: Harness, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

describe('webhooks in verity serve', () => {
  it('registers, validates, delivers verification.completed signed, logs attempts, replays, rotates and removes', async () => {
    const { h } = await harness();
    const key = h.key('dev', 'test', 'pro');
    const rx = await receiver();

    const bad = await call(h, 'POST', '/v1/webhooks', key, { url: 'http://example.com/x', events: ['nope'], secret: 'short' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('VALIDATION_FAILED');
    expect(bad.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['events.0', 'secret', 'url']);
    expect((await call(h, 'GET', '/v1/webhooks', 'vty_test_' + 'x'.repeat(32))).status).toBe(401);

    const created = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'] });
    expect(created.status).toBe(201);
    expect(created.json.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    const secret: string = created.json.secret;
    const list = await call(h, 'GET', '/v1/webhooks', key);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0].secret).toBeUndefined();
    expect(JSON.stringify(list.json)).not.toContain(secret);

    const verify = await h.post('/v1/verify/claim', { claim: 'The Eiffel Tower is in Paris' }, bearer(key));
    expect(verify.status).toBe(200);
    const got = await rx.next();
    expect(await octokitVerify(secret, got.body, String(got.headers['x-service-signature']))).toBe(true);
    const ev = EventEnvelope.parse(JSON.parse(got.body));
    expect(ev.type).toBe('verification.completed');
    expect(got.headers['x-service-event-id']).toBe(ev.id);
    expect(got.headers['x-service-event-type']).toBe('verification.completed');
    expect(got.headers['x-service-attempt']).toBe('1');
    expect(ev.data).toMatchObject({
      request_id: verify.json.id,
      request_type: 'claim',
      trust_score: verify.json.trust_score,
      verdict: verify.json.verdict,
      latency_ms: verify.json.latency_ms,
    });
    expect((ev.data.evidence as unknown[]).length).toBe(verify.json.evidence.length);

    // Another account (or the live environment of the same one) sees nothing of it.
    const other = h.key('other', 'test', 'pro');
    expect((await call(h, 'GET', '/v1/webhooks', other)).json.data).toEqual([]);
    expect((await call(h, 'GET', `/v1/webhooks/${created.json.id}/deliveries`, other)).status).toBe(404);

    const log = await call(h, 'GET', `/v1/webhooks/${created.json.id}/deliveries`, key);
    expect(log.json.data[0]).toMatchObject({ event_id: ev.id, attempt: 1, outcome: 'delivered', status_code: 200 });
    expect(typeof log.json.data[0].latency_ms).toBe('number');

    const replay = await call(h, 'POST', `/v1/events/${ev.id}/replay`, key, {});
    expect(replay.json).toEqual({ event_id: ev.id, deliveries: 1 });
    const again = await rx.next();
    expect(again.body).toBe(got.body);

    const test = await call(h, 'POST', `/v1/webhooks/${created.json.id}/test`, key, { type: 'credit.threshold' });
    expect(test.status).toBe(200);
    expect(test.json).toMatchObject({ type: 'credit.threshold', attempt: { ok: true, status_code: 200 } });
    const sample = await rx.next();
    expect(JSON.parse(sample.body).data.sample).toBe(true);

    const rotated = await call(h, 'POST', `/v1/webhooks/${created.json.id}/rotate-secret`, key, {});
    expect(rotated.json.secret).not.toBe(secret);
    await call(h, 'POST', `/v1/webhooks/${created.json.id}/test`, key, {});
    const afterRotation = await rx.next();
    expect(await octokitVerify(rotated.json.secret, afterRotation.body, String(afterRotation.headers['x-service-signature']))).toBe(true);
    expect(await octokitVerify(secret, afterRotation.body, String(afterRotation.headers['x-service-signature']))).toBe(false);

    expect((await call(h, 'DELETE', `/v1/webhooks/${created.json.id}`, key)).json).toEqual({ id: created.json.id, deleted: true });
    expect((await call(h, 'GET', '/v1/webhooks', key)).json.data).toEqual([]);
    expect((await call(h, 'DELETE', `/v1/webhooks/${created.json.id}`, key)).status).toBe(404);
    expect((await call(h, 'POST', '/v1/events/wh_nope/replay', key, {})).status).toBe(404);
  });

  it('builds only the credit thresholds when the store says no endpoint exists (onceOnly)', async () => {
    const { h, hooks } = await harness();
    const info = {
      accountId: 'acct_x', environment: 'live' as const, kind: 'claim' as const, creditsUsed: 10, usageBefore: 740, usageAfter: 750, monthlyQuota: 1000, now: h.clock.now(),
      result: { id: 'vrf_clm_abc', trust_score: 0.5, verdict: 'true', evidence: [], latency_ms: 3, credits_used: 10, dimensions: {} } as never,
    };
    expect(hooks.eventsAfterVerification(info).map((e) => e.event.type)).toEqual(['verification.completed', 'credit.threshold']);
    expect(hooks.eventsAfterVerification(info, { onceOnly: true }).map((e) => [e.event.type, e.once?.threshold])).toEqual([['credit.threshold', 75]]);
    expect(hooks.eventsAfterVerification({ ...info, usageBefore: 100, usageAfter: 110 }, { onceOnly: true })).toEqual([]);
  });

  it('emits credit.threshold once per period at 75, 90 and 100 %, for live usage only', async () => {
    const { h, hooks } = await harness();
    const key = h.key('live1', 'live', 'starter');
    const rx = await receiver();
    await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['credit.threshold'], secret: SECRET });
    const accountId = (h.store.db.prepare('SELECT account_id FROM api_keys WHERE name = ?').get('live1') as { account_id: string }).account_id;
    const result = { id: 'vrf_clm_abc', trust_score: 0.5, verdict: 'true', evidence: [], latency_ms: 3, credits_used: 1, dimensions: {} };
    // The events the hook computes, written through the store's commit (as the ledger does).
    const usage = (before: number, after: number, environment: 'live' | 'test' = 'live') =>
      sqliteServerStore(h.store.db).commitFailure({
        outbox: hooks.eventsAfterVerification({
          accountId, environment, kind: 'claim', result: result as never, creditsUsed: after - before,
          usageBefore: before, usageAfter: after, monthlyQuota: 1000, now: h.clock.now(),
        }),
      });
    await usage(700, 740);
    await usage(749, 760); // 75 %
    await usage(760, 950); // 90 % (and 75 % again: not re-sent)
    await usage(950, 1000); // 100 %
    await usage(100, 1000, 'test'); // test usage never counts
    h.clock.advance(31 * 86_400_000); // next month
    await usage(740, 800); // 75 % again, in the new period
    const got = [];
    for (let i = 0; i < 4; i++) got.push(JSON.parse((await rx.next()).body));
    expect(got.map((e) => [e.type, e.data.threshold, e.data.period])).toEqual([
      ['credit.threshold', 75, '2026-03'],
      ['credit.threshold', 90, '2026-03'],
      ['credit.threshold', 100, '2026-03'],
      ['credit.threshold', 75, '2026-04'],
    ]);
    expect(got[1].data).toMatchObject({ usage: 950, quota: 1000, percent: 95 });
    expect(rx.received).toHaveLength(4);
  });

  it('emits verification.failed with the error code and message', async () => {
    const { h, hooks } = await harness();
    const key = h.key('f', 'test', 'pro');
    const rx = await receiver();
    await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.failed'], secret: SECRET });
    const accountId = (h.store.db.prepare('SELECT account_id FROM api_keys WHERE name = ?').get('f') as { account_id: string }).account_id;
    await sqliteServerStore(h.store.db).commitFailure({
      outbox: hooks.eventsAfterFailure({
        accountId, environment: 'test', kind: 'document', requestId: 'vrf_doc_x1',
        error: new VerityError('UNAVAILABLE', 'Upstream down'), now: h.clock.now(),
      }),
    });
    const ev = JSON.parse((await rx.next()).body);
    expect(ev).toMatchObject({ type: 'verification.failed', data: { request_id: 'vrf_doc_x1', request_type: 'document', error: { code: 'UNAVAILABLE', message: 'Upstream down' } } });
  });
});

describe('Standard Webhooks endpoints in verity serve (signature_scheme: standard)', () => {
  /** The reference library (by the specification's authors) checks a received delivery: their verify, our bytes. */
  const reference = (secret: string, r: Received): unknown => new ReferenceWebhook(secret).verify(r.body, r.headers as Record<string, string>);

  it('validates the scheme and its secret format, generates whsec_ base64 secrets, lists the scheme', async () => {
    const { h } = await harness();
    const key = h.key('std1', 'test', 'pro');
    const rx = await receiver();
    const badScheme = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], signature_scheme: 'hmac' });
    expect(badScheme.status).toBe(400);
    expect(badScheme.json.error.details.map((d: { field: string }) => d.field)).toEqual(['signature_scheme']);
    // A verity-style secret (any 32+ characters) is not a Standard Webhooks secret.
    const badSecret = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], signature_scheme: 'standard', secret: 'x'.repeat(40) });
    expect(badSecret.status).toBe(400);
    expect(badSecret.json.error.details).toEqual([expect.objectContaining({ field: 'secret', issue: expect.stringContaining('whsec_') })]);
    const tooShortKey = `whsec_${Buffer.alloc(16, 7).toString('base64')}`;
    expect((await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], signature_scheme: 'standard', secret: tooShortKey })).status).toBe(400);

    const std = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], signature_scheme: 'standard' });
    expect(std.status).toBe(201);
    expect(std.json.signature_scheme).toBe('standard');
    expect(std.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(std.json.secret.slice(6), 'base64')).toHaveLength(32);
    const plain = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['credit.threshold'] });
    expect(plain.json.signature_scheme).toBe('verity');
    const list = await call(h, 'GET', '/v1/webhooks', key);
    // Two endpoints made in the same millisecond list in id order: compare by id, not position.
    const schemes = Object.fromEntries(list.json.data.map((w: { id: string; signature_scheme: string }) => [w.id, w.signature_scheme]));
    expect(schemes).toEqual({ [std.json.id]: 'standard', [plain.json.id]: 'verity' });
    expect(JSON.stringify(list.json)).not.toContain(std.json.secret);
    const doc = (await (await fetch(`${h.url}/v1/openapi.json`)).json()) as any;
    expect(doc.components.schemas.WebhookConfig.properties.signature_scheme.enum).toEqual(['verity', 'standard']);
    expect(doc.paths['/v1/webhooks'].post.operationId).toBe('createWebhook');
  });

  it('real deliveries, a replay and the rotation overlap verify with the reference library and with verifyWebhook', async () => {
    const { h } = await harness();
    const key = h.key('std2', 'test', 'pro');
    const rx = await receiver();
    const created = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], signature_scheme: 'standard' });
    const secret: string = created.json.secret;

    const verify = await h.post('/v1/verify/claim', { claim: 'The Eiffel Tower is in Paris' }, bearer(key));
    expect(verify.status).toBe(200);
    const got = await rx.next();
    expect(got.headers['x-service-signature']).toBeUndefined();
    const ev = JSON.parse(got.body);
    expect(got.headers['webhook-id']).toBe(ev.id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(String(got.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(reference(secret, got)).toEqual(ev);
    expect(verifyWebhook(got.body, got.headers, secret)).toEqual(ev);
    expect(ev.data.request_id).toBe(verify.json.id);
    // Someone else's secret: the reference library refuses too.
    expect(() => reference(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got)).toThrow(/signature/i);

    // A replay: the same id and bytes, freshly signed.
    await call(h, 'POST', `/v1/events/${ev.id}/replay`, key, {});
    const again = await rx.next();
    expect(again.body).toBe(got.body);
    expect(again.headers['webhook-id']).toBe(ev.id);
    expect(again.headers['x-service-replay']).toBe('1');
    expect(reference(secret, again)).toEqual(ev);

    // Rotation: two signatures (new, then previous) for 24 h; receivers on either secret accept.
    const rotated = await call(h, 'POST', `/v1/webhooks/${created.json.id}/rotate-secret`, key, {});
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(Date.parse(rotated.json.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await call(h, 'GET', `/v1/webhooks/${created.json.id}`, key)).json.previous_secret_expires_at).toBe(rotated.json.previous_secret_expires_at);
    await call(h, 'POST', `/v1/webhooks/${created.json.id}/test`, key, {});
    const overlap = await rx.next();
    expect(String(overlap.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const sample = JSON.parse(overlap.body);
    expect(reference(rotated.json.secret, overlap)).toEqual(sample);
    expect(reference(secret, overlap)).toEqual(sample);
    expect(verifyWebhook(overlap.body, overlap.headers, secret).id).toBe(sample.id);

    // A given secret must be in the scheme's format.
    const bad = await call(h, 'POST', `/v1/webhooks/${created.json.id}/rotate-secret`, key, { secret: 'y'.repeat(40) });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details[0].field).toBe('secret');
  });

  it('a verity endpoint rotates at once (one signature per header), as before', async () => {
    const { h } = await harness();
    const key = h.key('std3', 'test', 'pro');
    const rx = await receiver();
    const created = await call(h, 'POST', '/v1/webhooks', key, { url: rx.url, events: ['verification.completed'], secret: SECRET });
    const rotated = await call(h, 'POST', `/v1/webhooks/${created.json.id}/rotate-secret`, key, {});
    expect(rotated.json.previous_secret_expires_at).toBeUndefined();
    expect(rotated.json.secret).toMatch(/^whsec_[0-9A-Za-z]{40}$/);
    await call(h, 'POST', `/v1/webhooks/${created.json.id}/test`, key, {});
    const got = await rx.next();
    expect(got.headers['webhook-signature']).toBeUndefined();
    expect(verifyWebhook(got.body, got.headers, rotated.json.secret).id).toBe(JSON.parse(got.body).id);
    expect(() => verifyWebhook(got.body, got.headers, SECRET)).toThrow(expect.objectContaining({ code: 'bad_signature' }));
  });
});
