/**
 * The event-stream client of `listen --remote` against a loopback SSE server that plays scripted
 * connections (a fake of OUR service's stream route, for the reconnect/backoff/resume logic only;
 * test/e2e/listen-remote.test.ts runs against a real `verity serve`). Waits are injected: no test
 * sleeps or depends on timing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { runSse, type SseMessage, type SseReconnect } from '../../../src/client/sse-client.js';

type Script = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
afterEach(async () => {
  while (servers.length) {
    const s = servers.pop()!;
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Serves connection i with scripts[i] (the last one again past the end); records each request. */
async function sseServer(scripts: Script[]) {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    scripts[Math.min(requests.length, scripts.length) - 1]!(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/events/stream`, requests };
}

const streamHead = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
const session = (id: string) => `retry: 200\nevent: session\ndata: {"session_id":"${id}","secret":"whsec_x"}\n\n`;
const event = (id: string) => `id: ${id}\nevent: verification.completed\ndata: {"id":"${id}"}\n\n`;

/** Writes the text in 3-byte pieces, so the parser sees lines and events split anywhere. */
function trickle(res: ServerResponse, text: string, end = true): void {
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += 3) res.write(b.subarray(i, i + 3));
  if (end) res.end();
}

function client(url: string, o: { until: (m: SseMessage[]) => boolean; lastEventId?: string; maxEventChars?: number; maxFailures?: number }) {
  const messages: SseMessage[] = [];
  const waits: SseReconnect[] = [];
  const stop = new AbortController();
  const done = runSse({
    url,
    headers: { authorization: 'Bearer vty_test_x' },
    lastEventId: o.lastEventId,
    signal: stop.signal,
    maxEventChars: o.maxEventChars,
    maxFailures: o.maxFailures,
    random: () => 0.5,
    sleep: async () => {},
    onReconnect: (r) => void waits.push(r),
    onMessage: (m) => {
      messages.push(m);
      if (o.until(messages)) stop.abort();
    },
  });
  return { done, messages, waits };
}

describe('runSse', () => {
  it('parses events split at any byte, in order, with their ids, and skips comments', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        trickle(res, `${session('lss_1')}: ping\n\n${event('evt_1')}data: {"multi":\ndata: "line"}\n\n${event('evt_2')}`, false);
      },
    ]);
    const c = client(url, { until: (m) => m.length === 4 });
    await c.done;
    expect(c.messages.map((m) => m.event ?? 'message')).toEqual(['session', 'verification.completed', 'message', 'verification.completed']);
    expect(c.messages[2]!.data).toBe('{"multi":\n"line"}');
    expect(c.messages[3]).toMatchObject({ id: 'evt_2', data: '{"id":"evt_2"}' });
    expect(requests[0]!.headers).toMatchObject({ accept: 'text/event-stream', authorization: 'Bearer vty_test_x' });
    expect(requests[0]!.headers['last-event-id']).toBeUndefined();
  });

  it('reconnects with growing backoff after a close, a broken connection and a 503, resuming after the last event received', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_1') + event('evt_1') + event('evt_2'));
      },
      (req) => req.socket.destroy(),
      (_req, res) => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'starting up' } }));
      },
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_2') + event('evt_3'), false);
      },
    ]);
    const c = client(url, { until: (m) => m.some((x) => x.id === 'evt_3'), lastEventId: 'evt_0' });
    await c.done;
    expect(requests.map((r) => r.headers['last-event-id'])).toEqual(['evt_0', 'evt_2', 'evt_2', 'evt_2']);
    // retry: 200 from the service is the first step; each failure in a row doubles it; jitter 0.5 → ¾ of the step.
    expect(c.waits.map((w) => [w.failures, w.waitMs])).toEqual([
      [1, 150],
      [2, 300],
      [3, 600],
    ]);
    expect(c.waits[0]!.reason).toBe('the service closed the stream');
    expect(c.waits.map((w) => w.resumeFrom)).toEqual(['evt_2', 'evt_2', 'evt_2']);
    expect(c.waits[1]!.reason).toMatch(/connection|reach/);
    expect(c.waits[2]!.reason).toBe('HTTP 503: starting up');
    expect(c.messages.filter((m) => m.event === 'session').map((m) => JSON.parse(m.data).session_id)).toEqual(['lss_1', 'lss_2']);
  });

  it('honours Retry-After on 429, and starts the backoff again once a connection delivered', async () => {
    const { url } = await sseServer([
      (_req, res) => {
        res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'too many streams' } }));
      },
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_1'));
      },
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_2'), false);
      },
    ]);
    const c = client(url, { until: (m) => m.length === 2 });
    await c.done;
    expect(c.waits.map((w) => [w.failures, w.waitMs])).toEqual([
      [1, 7000],
      [1, 150],
    ]);
    expect(c.waits[0]!.error?.code).toBe('RATE_LIMITED');
  });

  it('stops at once with the service error on 401 (no retry loop)', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } }));
      },
    ]);
    const c = client(url, { until: () => false });
    await expect(c.done).rejects.toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid API key' });
    expect(requests).toHaveLength(1);
  });

  it('refuses an answer that is not an event stream', async () => {
    const { url } = await sseServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>login</html>');
      },
    ]);
    const err = await client(url, { until: () => false }).done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).message).toMatch(/text\/html where an event stream was expected/);
  });

  it('cuts a connection whose event grows past the bound, and resumes after the last whole event', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        // The huge event never ends: without the bound the client would hold it all.
        res.write(session('lss_1') + event('evt_1'));
        const line = `data: ${'x'.repeat(4096)}\n`;
        for (let i = 0; i < 64; i++) res.write(line);
      },
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_2') + event('evt_2'), false);
      },
    ]);
    const c = client(url, { until: (m) => m.some((x) => x.id === 'evt_2'), maxEventChars: 64 * 1024 });
    await c.done;
    expect(c.waits[0]!.reason).toMatch(/longer than 65536 characters: connection cut/);
    expect(requests[1]!.headers['last-event-id']).toBe('evt_1');
    expect(c.messages.every((m) => m.data.length < 1000)).toBe(true);
  });

  it('treats a connection that goes quiet past the idle bound as broken, and resumes', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        res.write(session('lss_1') + event('evt_1')); // then silence, no ping: a dead link
      },
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_2'), false);
      },
    ]);
    // The idle timer is the test's: it fires when the first connection has delivered evt_1.
    const timers: Array<{ fn: () => void; ms: number }> = [];
    const messages: SseMessage[] = [];
    const waits: SseReconnect[] = [];
    const stop = new AbortController();
    await runSse({
      url,
      headers: {},
      signal: stop.signal,
      idleMs: 45_000,
      random: () => 0.5,
      sleep: async () => {},
      setTimer: (fn, ms) => {
        const t = { fn, ms };
        timers.push(t);
        return () => void timers.splice(timers.indexOf(t), 1);
      },
      onReconnect: (r) => void waits.push(r),
      onMessage: (m) => {
        messages.push(m);
        if (m.id === 'evt_1') setImmediate(() => timers.at(-1)!.fn()); // after the client re-armed it
        if (messages.length === 3) stop.abort();
      },
    });
    expect(waits[0]!.reason).toBe('nothing received for 45 s');
    expect(requests[1]!.headers['last-event-id']).toBe('evt_1');
    expect(timers.every((t) => t.ms === 45_000)).toBe(true);
  });

  it('passes the handler\'s own failure to the caller instead of reconnecting', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_1'), false);
      },
    ]);
    const done = runSse({ url, headers: {}, signal: new AbortController().signal, sleep: async () => {}, onMessage: () => Promise.reject(new TypeError('a bug')) });
    await expect(done).rejects.toThrow('a bug');
    expect(requests).toHaveLength(1);
  });

  it('gives up early only before a first connection delivered', async () => {
    const { url, requests } = await sseServer([
      (_req, res) => {
        streamHead(res);
        trickle(res, session('lss_1'));
      },
      (req) => req.socket.destroy(),
    ]);
    const done = runSse({ url, headers: {}, signal: new AbortController().signal, sleep: async () => {}, maxFailuresBeforeFirst: 1, maxFailures: 4, onMessage: () => {} });
    await expect(done).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(requests).toHaveLength(4); // 1 that delivered, then 3 more failures to reach maxFailures 4 (the first counts)
    const refused = await runSse({ url: 'http://127.0.0.1:9/v1/events/stream', headers: {}, signal: new AbortController().signal, sleep: async () => {}, maxFailuresBeforeFirst: 2, onMessage: () => {} }).catch((e: unknown) => e);
    expect((refused as VerityError).message).toMatch(/failed 2 times in a row: cannot reach 127\.0\.0\.1:9/);
  });

  it('gives up after maxFailures connections in a row fail', async () => {
    const { url, requests } = await sseServer([(req) => req.socket.destroy()]);
    await expect(client(url, { until: () => false, maxFailures: 3 }).done).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(requests).toHaveLength(3);
  });
});
