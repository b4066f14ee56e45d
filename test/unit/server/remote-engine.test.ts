import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { callRemote, createRemoteEngine, endpoint } from '../../../src/client/remote-engine.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
let server: Server | undefined;
afterEach(() => void server?.close());

async function serve(handlers: Handler[]): Promise<{ url: string; seen: { headers: IncomingMessage['headers']; body: string }[] }> {
  const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const h = handlers[Math.min(seen.length - 1, handlers.length - 1)]!;
      h(req, res, body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_q, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
/** The error a call failed with (a call that succeeds fails the test). */
const failure = (p: Promise<unknown>): Promise<VerityError> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as VerityError,
  );
const ok = json(200, { id: 'vrf_clm_x', trust_score: 0.5 });

describe('RemoteEngine', () => {
  it('joins base URLs with and without /v1', () => {
    expect(endpoint('https://a.example/', '/verify/claim')).toBe('https://a.example/v1/verify/claim');
    expect(endpoint('https://a.example/v1', '/verify/claim')).toBe('https://a.example/v1/verify/claim');
  });

  it('retries 503 and 429 after the Retry-After the service sent, with the same Idempotency-Key', async () => {
    const { url, seen } = await serve([
      json(503, { error: { code: 'UNAVAILABLE', message: 'upstream down' } }, { 'retry-after': '2' }),
      json(429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '1' }),
      ok,
    ]);
    const waits: number[] = [];
    const engine = createRemoteEngine({ baseUrl: url, apiKey: `vty_test_${'a'.repeat(32)}`, userAgent: 'test', sleep: async (ms) => void waits.push(ms) });
    const r = await engine.verifyClaim({ claim: 'x' });
    expect(r).toMatchObject({ id: 'vrf_clm_x' });
    expect(waits).toEqual([2000, 1000]);
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]!.headers.authorization).toBe(`Bearer vty_test_${'a'.repeat(32)}`);
    expect(JSON.parse(seen[0]!.body)).toEqual({ claim: 'x' });
  });

  it('does not wait for a Retry-After longer than the limit: the error carries it to the caller', async () => {
    const { url, seen } = await serve([json(429, { error: { code: 'RATE_LIMITED', message: 'hourly limit' } }, { 'retry-after': '3600' })]);
    const waits: number[] = [];
    const err = await failure(callRemote({ baseUrl: url, userAgent: 't', sleep: async (ms) => void waits.push(ms) }, 'POST', '/verify/claim', {}));
    expect(err).toBeInstanceOf(VerityError);
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryAfter).toBe(3600);
    expect(waits).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxAttempts and does not retry 4xx answers', async () => {
    const { url, seen } = await serve([json(503, { error: { code: 'UNAVAILABLE', message: 'down' } }, { 'retry-after': '0' })]);
    const e1 = await failure(callRemote({ baseUrl: url, userAgent: 't', maxAttempts: 3, sleep: async () => undefined }, 'POST', '/verify/claim', {}));
    expect(e1.code).toBe('UNAVAILABLE');
    expect(seen).toHaveLength(3);
    server!.close();
    const s2 = await serve([json(403, { error: { code: 'FORBIDDEN', message: 'plan', required_plan: 'business' } })]);
    const e2 = await failure(callRemote({ baseUrl: s2.url, userAgent: 't', sleep: async () => undefined }, 'POST', '/verify/media', {}));
    expect(e2).toMatchObject({ code: 'FORBIDDEN', requiredPlan: 'business' });
    expect(s2.seen).toHaveLength(1);
  });

  it('retries refused connections with backoff, then reports UNAVAILABLE naming the host', async () => {
    const { url } = await serve([ok]);
    await new Promise<void>((r) => server!.close(() => r()));
    const waits: number[] = [];
    const err = await failure(callRemote({ baseUrl: url, userAgent: 't', sleep: async (ms) => void waits.push(ms) }, 'POST', '/verify/claim', {}));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/Cannot reach the service at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(waits).toEqual([250, 500]);
  });

  it('reports a deadline as UNAVAILABLE instead of hanging', async () => {
    const { url } = await serve([() => undefined]); // never answers
    const err = await failure(callRemote({ baseUrl: url, userAgent: 't', timeoutMs: 200 }, 'POST', '/verify/claim', {}));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toMatch(/did not answer within/);
  });

  it('maps a non-JSON 502 from a proxy to UNAVAILABLE', async () => {
    const { url } = await serve([(_q, res) => { res.writeHead(502, { 'content-type': 'text/html' }); res.end('<h1>Bad gateway</h1>'); }]);
    const err = await failure(callRemote({ baseUrl: url, userAgent: 't' }, 'GET', '/openapi.json'));
    expect(err.code).toBe('UNAVAILABLE');
  });
});
