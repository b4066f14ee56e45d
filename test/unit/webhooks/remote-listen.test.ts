/**
 * What `listen --remote` does with each stream event: the local listener's checks (same refusal
 * status, reason and explanation for the same delivery), its routes, and forwards to a real
 * loopback app, re-signed with the forward secret.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { sign, verifySignature } from '../../../src/domain/signature.js';
import { generateStandardSecret } from '../../../src/domain/standard-webhooks.js';
import { startListener, type ListenRecord, type RunningListener } from '../../../src/webhooks/listener.js';
import { checkDelivery } from '../../../src/webhooks/verify-delivery.js';
import { createStreamHandler, parseSession, parseStreamEvent, resultsOf, type StreamEvent } from '../../../src/webhooks/remote-listen.js';

const SESSION_SECRET = 'whsec_c2Vzc2lvbi1zZWNyZXQtZm9yLXRlc3Rz';
const FORWARD_SECRET = 'forward-secret-0123456789-abcdefghij';
const T0 = Date.parse('2026-05-01T10:00:00Z');
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function body(type = 'verification.completed', createdAt = T0, id = `wh_${Math.random().toString(36).slice(2)}X`) {
  return JSON.stringify({ id, type, created_at: new Date(createdAt).toISOString(), data: { request_id: 'vrf_clm_U1', trust_score: 0.4, verdict: 'false' } });
}

function streamEvent(b: string, secret = SESSION_SECRET): StreamEvent {
  const parsed = JSON.parse(b) as { id: string; type: string };
  return {
    id: parsed.id,
    type: parsed.type,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Signature': sign(secret, b),
      'X-Service-Event-Id': parsed.id,
      'X-Service-Event-Type': parsed.type,
      'X-Service-Attempt': '1',
    },
    body: b,
  };
}

/** A loopback app that records what it receives and answers `status`. */
async function app(status = 200) {
  const got: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

describe('createStreamHandler', () => {
  it('checks the session signature, forwards the exact bytes re-signed with the forward secret, and names the results by route', async () => {
    const a = await app();
    const h = createStreamHandler({ forward: [{ url: `${a.url}/webhooks` }], forwardSecret: FORWARD_SECRET, now: () => T0 });
    const b = body();
    const r = await h.handle(streamEvent(b), SESSION_SECRET);
    expect(r).toMatchObject({ outcome: 'accepted', status: 200, type: 'verification.completed', request_id: 'vrf_clm_U1', attempt: 1, path: '/v1/events/stream' });
    expect(a.got).toHaveLength(1);
    expect(a.got[0]!.body).toBe(b);
    expect(a.got[0]!.headers['x-service-event-id']).toBe(JSON.parse(b).id);
    expect(a.got[0]!.headers['content-type']).toBe('application/json');
    // The app verifies with the stable forward secret, not the per-connection session secret.
    expect(verifySignature([FORWARD_SECRET], Buffer.from(a.got[0]!.body), a.got[0]!.headers['x-service-signature'])).toMatchObject({ ok: true });
    expect(verifySignature([SESSION_SECRET], Buffer.from(a.got[0]!.body), a.got[0]!.headers['x-service-signature']).ok).toBe(false);
    expect(resultsOf(r)).toEqual([{ event_id: JSON.parse(b).id, route: '/webhooks', status: 200, latency_ms: r.forwards![0]!.latency_ms, error: null }]);
    // Sent again after a resume: acknowledged as a duplicate, not forwarded twice, not reported.
    const again = await h.handle(streamEvent(b), SESSION_SECRET);
    expect(again.outcome).toBe('duplicate');
    expect(a.got).toHaveLength(1);
    expect(resultsOf(again)).toEqual([]);
  });

  it('refuses forged, stale, future and malformed events exactly as the local listener does', async () => {
    const now = T0;
    const local: ListenRecord[] = [];
    const l: RunningListener = await startListener({ secrets: [SESSION_SECRET], port: 0, now: () => now, onRecord: (r) => local.push(r), maxAgeMs: 60_000 });
    closers.push(() => l.close());
    const a = await app();
    const h = createStreamHandler({ forward: [{ url: a.url }], forwardSecret: FORWARD_SECRET, now: () => now, maxAgeMs: 60_000 });
    const cases: Array<[string, StreamEvent]> = [
      ['forged', streamEvent(body(), 'whsec_someone-else-entirely-000000')],
      ['stale', streamEvent(body('verification.completed', T0 - 61_000))],
      ['future', streamEvent(body('verification.completed', T0 + 10 * 60_000))],
      ['not an event', streamEvent(JSON.stringify({ hello: 'world' }).replace('}', ',"id":"wh_x1","type":"verification.completed"}'))],
      ['re-encoded', { ...streamEvent(body()), body: JSON.stringify(JSON.parse(body()), null, 2) }],
    ];
    const pick = (r: ListenRecord) => ({ outcome: r.outcome, status: r.status, reason: r.reason, explanation: r.explanation, event_id: r.event_id, type: r.type });
    for (const [name, ev] of cases) {
      const remote = await h.handle(ev, SESSION_SECRET);
      local.length = 0;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(ev.headers)) headers[k.toLowerCase()] = v;
      await (await request(l.url, { method: 'POST', headers, body: ev.body })).body.text();
      expect(pick(remote), name).toEqual(pick(local[0]!));
      expect(remote.outcome, name).toBe('refused');
    }
    expect(a.got).toHaveLength(0);
    const forged = await h.handle(cases[0]![1], SESSION_SECRET);
    expect(forged.reason).toBe('no_secret_matched');
    expect(resultsOf(forged)).toEqual([{ event_id: forged.event_id, route: null, status: null, latency_ms: 0, error: 'refused by listen: no_secret_matched' }]);
  });

  it('sends each event to its most specific routes, reports every route, and marks a failed forward', async () => {
    const all = await app();
    const batches = await app(500);
    const h = createStreamHandler({
      forward: [{ url: `${all.url}/all` }, { type: 'batch.completed', url: `${batches.url}/batches` }, { type: 'batch.completed', url: 'http://127.0.0.1:9/down' }],
      forwardSecret: FORWARD_SECRET,
      now: () => T0,
    });
    const v = await h.handle(streamEvent(body('verification.completed')), SESSION_SECRET);
    expect(v.forwards!.map((f) => f.url)).toEqual([`${all.url}/all`]);
    const b = body('batch.completed');
    const r = await h.handle(streamEvent(b), SESSION_SECRET);
    expect(all.got).toHaveLength(1);
    expect(batches.got).toHaveLength(1);
    expect(r).toMatchObject({ outcome: 'forward_failed', status: 502 });
    expect(resultsOf(r).map((x) => [x.route, x.status, x.error])).toEqual([
      ['/batches', 500, null],
      ['/down', null, 'connection refused (is the app running?)'],
    ]);
  });

  it('verifies an event carrying Standard Webhooks headers by that scheme (refusing as the local listener does), and forwards it signed again', async () => {
    const now = T0;
    // The event's headers signed by the specification's reference library with the session secret.
    const standardEvent = (b: string, secret = SESSION_SECRET, at = T0): StreamEvent => {
      const { id, type } = JSON.parse(b) as { id: string; type: string };
      const headers = { 'content-type': 'application/json', 'x-service-event-id': id, 'x-service-event-type': type, 'x-service-attempt': '1' };
      return { id, type, headers: { ...headers, 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': new ReferenceWebhook(secret).sign(id, new Date(at), b) }, body: b };
    };
    const a = await app();
    const fwd = generateStandardSecret();
    const h = createStreamHandler({ forward: [{ url: `${a.url}/in` }], forwardSecret: fwd, now: () => now });
    const b = body();
    const r = await h.handle(standardEvent(b), SESSION_SECRET);
    expect(r).toMatchObject({ outcome: 'accepted', status: 200, signature_scheme: 'standard' });
    // The app gets the exact bytes, signed again with the forward secret in the same scheme (and verity's).
    const got = a.got[0]!;
    expect(got.body).toBe(b);
    expect(checkDelivery([fwd], Buffer.from(got.body), got.headers, now)).toMatchObject({ ok: true, scheme: 'standard' });
    expect(checkDelivery([SESSION_SECRET], Buffer.from(got.body), got.headers, now).ok).toBe(false);
    expect(verifySignature([fwd], Buffer.from(got.body), got.headers['x-service-signature'])).toMatchObject({ ok: true });
    // A verity-style forward secret cannot sign Standard Webhooks: the session's signature is
    // dropped, the app verifies X-Service-Signature.
    const v = await app();
    const hv = createStreamHandler({ forward: [{ url: v.url }], forwardSecret: FORWARD_SECRET, now: () => now });
    expect((await hv.handle(standardEvent(body()), SESSION_SECRET)).outcome).toBe('accepted');
    expect(v.got[0]!.headers['webhook-signature']).toBeUndefined();
    expect(verifySignature([FORWARD_SECRET], Buffer.from(v.got[0]!.body), v.got[0]!.headers['x-service-signature'])).toMatchObject({ ok: true });

    // Forged and stale Standard events: refused with the local listener's status, reason and words.
    const local: ListenRecord[] = [];
    const l: RunningListener = await startListener({ secrets: [SESSION_SECRET], port: 0, now: () => now, onRecord: (x) => local.push(x) });
    closers.push(() => l.close());
    const pick = (x: ListenRecord) => ({ outcome: x.outcome, status: x.status, reason: x.reason, explanation: x.explanation, signature_scheme: x.signature_scheme });
    const cases: Array<[string, StreamEvent]> = [
      ['forged', standardEvent(body(), generateStandardSecret())],
      ['stale timestamp', standardEvent(body(), SESSION_SECRET, T0 - 10 * 60_000)],
    ];
    for (const [name, ev] of cases) {
      const remote = await h.handle(ev, SESSION_SECRET);
      local.length = 0;
      await (await request(l.url, { method: 'POST', headers: ev.headers, body: ev.body })).body.text();
      expect(remote.outcome, name).toBe('refused');
      expect(pick(remote), name).toEqual(pick(local[0]!));
    }
    expect(a.got).toHaveLength(1);
  });

  it('reads only well-formed session and event messages', () => {
    expect(parseSession('{"session_id":"lss_1","secret":"whsec_x"}')).toMatchObject({ session_id: 'lss_1' });
    expect(parseSession('{"session_id":"lss_1"}')).toBeUndefined();
    expect(parseSession('not json')).toBeUndefined();
    expect(parseStreamEvent('{"id":"evt_1","headers":{"a":"b"},"body":"{}"}')).toMatchObject({ id: 'evt_1' });
    expect(parseStreamEvent('{"id":"evt_1","headers":{"a":1},"body":"{}"}')).toBeUndefined();
    expect(parseStreamEvent('{"id":"evt_1","headers":[],"body":"{}"}')).toBeUndefined();
  });
});
