/**
 * Raw HTTP/1.1 over a socket for the tests that send what fetch will not (lying Content-Length,
 * bad percent-encoding, 30 MB bodies a server refuses early). A server may answer (413, 401) and
 * close while the body is still being written: the resulting EPIPE/ECONNRESET is an expected
 * outcome, reported as `closedEarly`, never a test failure by itself.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** The server closed (or reset) the connection before the whole request was written. */
  closedEarly: boolean;
  written: number;
}

export function rawRequest(url: string, head: string, body: Buffer | string = '', o: { chunk?: number } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  const chunk = o.chunk ?? 64 * 1024;
  return new Promise((resolve) => {
    const sock = connect(Number(port), hostname);
    let response = Buffer.alloc(0);
    let written = 0;
    let stop = false;
    let done = false;
    // A bound on the whole exchange, so a hung server fails the test instead of hanging it.
    sock.setTimeout(60_000, () => sock.destroy());
    const finish = (): void => {
      if (done) return;
      done = true;
      const text = response.toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const lines = (split === -1 ? text : text.slice(0, split)).split('\r\n');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '');
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({
        status: m ? Number(m[1]) : null,
        headers,
        body: split === -1 ? '' : Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
        closedEarly: written < data.length,
        written,
      });
    };
    sock.on('data', (c: Buffer) => {
      response = Buffer.concat([response, c]);
      stop = true; // an answer has started: writing more only invites a reset
    });
    sock.on('error', () => undefined); // EPIPE / ECONNRESET: judged by what was received
    sock.on('close', finish);
    sock.on('connect', () => {
      sock.write(head);
      const pump = (): void => {
        while (!stop && written < data.length) {
          const part = data.subarray(written, written + chunk);
          written += part.length;
          if (!sock.write(part)) return void sock.once('drain', pump);
        }
      };
      pump();
    });
  });
}

/** A request head with the given lines (Host and Connection: close added). */
export function head(method: string, path: string, url: string, lines: string[] = []): string {
  return `${method} ${path} HTTP/1.1\r\nHost: ${new URL(url).host}\r\nConnection: close\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
}

export interface Unfinished {
  /** The server closed the connection before the deadline. */
  closed: boolean;
  /** What it sent before closing (a 408/400 answer, or nothing). */
  response: string;
}

/**
 * Slowloris: connects, sends `head` (request headers that never end, or nothing) and waits for
 * the server to close the connection — on the close event, with `deadlineMs` as the bound after
 * which the test gives up (closed: false), never a sleep.
 */
export function unfinishedRequest(url: string, head: string, deadlineMs: number): Promise<Unfinished> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const sock = connect(Number(port), hostname);
    let response = '';
    const deadline = setTimeout(() => {
      sock.removeAllListeners('close');
      sock.destroy();
      resolve({ closed: false, response });
    }, deadlineMs);
    sock.on('data', (c: Buffer) => void (response += c.toString('latin1')));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(deadline);
      resolve({ closed: true, response });
    });
    sock.on('connect', () => void (head && sock.write(head)));
  });
}
