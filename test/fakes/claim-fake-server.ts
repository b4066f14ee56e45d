/**
 * A tiny HTTP server on 127.0.0.1:0 that the claim-source fakes share: records requests, and plays
 * the failure modes every upstream has (error body, 429 with Retry-After, hanging, empty answer,
 * slow answer). Each fake supplies only its API's documented bodies.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | 'empty' | 'error' | 'rate_limited' | 'hang';

export interface RecordedRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeReply {
  status: number;
  headers?: Record<string, string>;
  body: string | object;
}

export interface FakeOptions {
  mode?: FakeMode;
  /** Answer after this many ms (for the fan-out benchmark). */
  delayMs?: number;
  /** With mode `rate_limited`: how many 429s before answering normally (default: all). */
  rateLimitedTimes?: number;
  /** Retry-After header value sent with 429 (default "1"). */
  retryAfter?: string;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  options: FakeOptions;
  close(): Promise<void>;
}

/** `handle` answers the ok/empty/error modes; 429 and hang are common. */
export async function startFakeServer(
  handle: (req: RecordedRequest, mode: 'ok' | 'empty' | 'error') => FakeReply,
  options: FakeOptions = {},
): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let limited = 0;
  const send = (res: ServerResponse, r: FakeReply): void => {
    const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    res.writeHead(r.status, { 'content-type': typeof r.body === 'string' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8', ...r.headers });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      const mode = options.mode ?? 'ok';
      if (mode === 'hang') return; // never answers; the client's timeout must fire
      const reply = (): void => {
        if (mode === 'rate_limited' && (options.rateLimitedTimes === undefined || limited < options.rateLimitedTimes)) {
          limited++;
          send(res, { status: 429, headers: { 'retry-after': options.retryAfter ?? '1' }, body: { message: 'Too Many Requests' } });
          return;
        }
        send(res, handle(rec, mode === 'rate_limited' ? 'ok' : mode));
      };
      if (options.delayMs) setTimeout(reply, options.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    options,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
