import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import { parseForwardRoute, SeenIds, startListener, type ListenRecord, type RunningListener } from '../../../src/webhooks/listener.js';
import { sign } from '../../../src/domain/signature.js';
import { unfinishedRequest } from '../../e2e/raw-http.js';

const SECRET = 'listener-unit-secret-0123456789-abcdefgh';
const T0 = Date.parse('2026-05-01T10:00:00Z');
const running: RunningListener[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

function ev(type: string, createdAt = T0, id = `wh_${Math.random().toString(36).slice(2)}X`) {
  return JSON.stringify({ id, type, created_at: new Date(createdAt).toISOString(), data: { request_id: 'vrf_clm_U1', trust_score: 0.4, verdict: 'false' } });
}

async function start(extra: Partial<Parameters<typeof startListener>[0]> = {}) {
  const records: ListenRecord[] = [];
  let now = T0;
  const l = await startListener({ secrets: [SECRET], port: 0, now: () => now, onRecord: (r) => records.push(r), ...extra });
  running.push(l);
  return { l, records, setNow: (t: number) => void (now = t) };
}

async function send(url: string, body: string, sig = sign(SECRET, body), dispatcher?: Agent) {
  const res = await request(url, { method: 'POST', body, headers: { 'x-service-signature': sig, 'x-service-attempt': '2' }, dispatcher });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

describe('startListener', () => {
  it('records the event line fields, filters by type, and bounds the replay window both ways', async () => {
    const { l, records } = await start({ events: ['verification.completed'], maxAgeMs: 60_000 });
    expect((await send(l.url, ev('verification.completed'))).status).toBe(200);
    expect(records[0]).toMatchObject({ outcome: 'accepted', type: 'verification.completed', request_id: 'vrf_clm_U1', verdict: 'false', trust_score: 0.4, attempt: 2 });
    expect((await send(l.url, ev('credit.threshold'))).json).toEqual({ received: true, ignored: true });
    expect(records[1]!.outcome).toBe('ignored');
    const old = await send(l.url, ev('verification.completed', T0 - 61_000));
    expect(old).toMatchObject({ status: 401, json: { error: { reason: 'stale_event' } } });
    const future = await send(l.url, ev('verification.completed', T0 + 10 * 60_000));
    expect(future.json.error.reason).toBe('future_event');
    const notEvent = JSON.stringify({ hello: 'world' });
    expect((await send(l.url, notEvent)).json.error.reason).toBe('not_an_event');
    expect((await send(l.url, 'not json')).json.error.reason).toBe('not_json');
  });

  it('serves HTTPS with --tls-cert/--tls-key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'));
      const { l, records } = await start({ tls: { cert, key: readFileSync(join(dir, 'key.pem')) } });
      expect(l.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const agent = new Agent({ connect: { ca: cert } });
      expect((await send(l.url, ev('verification.completed'), undefined, agent)).status).toBe(200);
      expect(records[0]!.outcome).toBe('accepted');
      await agent.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cuts a connection whose headers never finish (slowloris), and one that sends nothing', async () => {
    const problems: string[] = [];
    const { l, records } = await start({ headersTimeoutMs: 200, onProblem: (m) => problems.push(m) });
    // A deadline for the test, far above the bound (Node checks every quarter of it).
    const partial = await unfinishedRequest(l.url, 'POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Service-Signature: sha256=00', 5_000);
    expect(partial.closed).toBe(true);
    expect(partial.response).toMatch(/^HTTP\/1\.1 408 /);
    expect((await unfinishedRequest(l.url, '', 5_000)).closed).toBe(true);
    expect(problems).toContain('a connection did not send its request in time: closed');
    expect(records).toEqual([]);
    // Whole requests are still served.
    expect((await send(l.url, ev('verification.completed'))).status).toBe(200);
  });

  it('refuses to start on a port in use, with a message', async () => {
    const { l } = await start();
    await expect(startListener({ secrets: [SECRET], port: l.port, onRecord: () => undefined })).rejects.toThrow(/already in use/);
  });

  it('summarises non-verification events on their line', async () => {
    const { l, records } = await start();
    const body = JSON.stringify({ id: 'wh_Credit1', type: 'credit.threshold', created_at: new Date(T0).toISOString(), data: { threshold: 90, usage: 905, quota: 1000, period: '2026-05' } });
    expect((await send(l.url, body)).status).toBe(200);
    expect(records[0]).toMatchObject({ outcome: 'accepted', detail: '90 % of quota (905/1000, 2026-05)', request_id: null });
  });

  it('parses --forward-to routes', () => {
    expect(parseForwardRoute('http://localhost:3000/h')).toEqual({ url: 'http://localhost:3000/h' });
    expect(parseForwardRoute('credit.threshold=http://localhost:3000/c')).toEqual({ type: 'credit.threshold', url: 'http://localhost:3000/c' });
    expect(() => parseForwardRoute('ftp://x')).toThrow(/forward-to/);
  });

  it('forgets the oldest ids first, keeping exactly the last `capacity`', () => {
    const seen = new SeenIds(3);
    for (const id of ['a', 'b', 'c', 'd']) seen.add(id);
    expect([seen.has('a'), seen.has('b'), seen.has('c'), seen.has('d')]).toEqual([false, true, true, true]);
    seen.add('c'); // already there: no new slot, nothing evicted
    expect(seen.size).toBe(3);
    seen.add('e');
    expect([seen.has('b'), seen.has('c'), seen.has('e')]).toEqual([false, true, true]);
  });

  it('forwards a replay (x-service-replay: 1) even when its id was seen, and marks it; a plain repeat is a duplicate', async () => {
    const got: string[] = [];
    const app = createServer((req, res) => {
      got.push(String(req.headers['x-service-replay'] ?? ''));
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    try {
      const port = (app.address() as { port: number }).port;
      const { l, records } = await start({ forward: [{ url: `http://127.0.0.1:${port}/hook` }] });
      const body = ev('verification.completed', T0, 'wh_ReplayMe1');
      expect((await send(l.url, body)).status).toBe(200);
      expect((await send(l.url, body)).json).toEqual({ received: true, duplicate: true });
      const res = await request(l.url, { method: 'POST', body, headers: { 'x-service-signature': sign(SECRET, body), 'x-service-replay': '1' } });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      expect(got).toEqual(['', '1']);
      expect(records.map((r) => [r.outcome, r.replay ?? false])).toEqual([['accepted', false], ['duplicate', false], ['accepted', true]]);
    } finally {
      app.closeAllConnections();
      await new Promise<void>((r) => app.close(() => r()));
    }
  });

  it('most specific route wins; a retry caused by one app is not re-sent to the app that answered 200', async () => {
    // Two apps: "all" (catch-all) and "batches" (typed); batches fails once, then recovers.
    const hits: Record<string, number> = { all: 0, batches: 0 };
    let batchesFails = 1;
    const app = createServer((req, res) => {
      const which = req.url === '/batches' ? 'batches' : 'all';
      hits[which]!++;
      req.resume();
      req.on('end', () => {
        if (which === 'batches' && batchesFails-- > 0) res.writeHead(500).end('boom');
        else res.end('ok');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
      const { l, records } = await start({
        forward: [
          { url: `${base}/all` },
          { type: 'batch.completed', url: `${base}/batches` },
          { type: 'batch.completed', url: `${base}/all-batches` },
        ],
      });
      // A typed event goes to its typed routes only (both of them), not also to the catch-all.
      const batch = ev('batch.completed', T0, 'wh_BatchOne1');
      expect((await send(l.url, batch)).status).toBe(500); // /batches failed, /all-batches took it
      expect(hits).toEqual({ all: 1, batches: 1 }); // /all-batches is served by the "all" handler
      expect(records.at(-1)!.forwards!.map((f) => [f.url.replace(base, ''), f.status])).toEqual([['/batches', 500], ['/all-batches', 200]]);
      // The sender's retry: only /batches gets it again; /all-batches is shown as already delivered.
      expect((await send(l.url, batch)).status).toBe(200);
      expect(hits).toEqual({ all: 1, batches: 2 });
      expect(records.at(-1)!.forwards!.map((f) => [f.url.replace(base, ''), f.already_delivered ?? false])).toEqual([
        ['/all-batches', true],
        ['/batches', false],
      ]);
      // An untyped event goes to the catch-all alone.
      expect((await send(l.url, ev('verification.completed'))).status).toBe(200);
      expect(hits).toEqual({ all: 2, batches: 2 });
    } finally {
      app.closeAllConnections();
      await new Promise<void>((r) => app.close(() => r()));
    }
  });

  it('a refusal names the event (from its headers, marked unverified) and the webhook', async () => {
    const { l, records } = await start();
    const body = ev('verification.completed', T0, 'wh_WrongSecret1');
    const res = await request(l.url, {
      method: 'POST',
      body,
      headers: {
        'x-service-signature': sign('another-secret-0123456789-abcdefghijkl', body),
        'x-service-event-id': 'wh_WrongSecret1',
        'x-service-event-type': 'verification.completed',
        'x-service-webhook-id': 'we_Hook42',
      },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(401);
    expect(records[0]).toMatchObject({
      outcome: 'refused',
      reason: 'no_secret_matched',
      event_id: 'wh_WrongSecret1',
      type: 'verification.completed',
      from_headers: true,
      webhook_id: 'we_Hook42',
    });
  });
});
