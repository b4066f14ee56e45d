/**
 * A Server-Sent Events client for the tests of `GET /v1/events/stream` (loopback only): opens the
 * stream with node:http, parses messages as the SSE specification says (fields per line, a blank
 * line ends a message, `:` comments), and lets a test wait for a message by predicate — never on
 * the clock. `pause()` stops reading the socket (a slow reader).
 */
import { request, type IncomingMessage } from 'node:http';

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
  json: any;
}

export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  messages: SseMessage[];
  comments: string[];
  /** Resolves with the first message (already received or coming) matching `pred`. */
  next(pred: (m: SseMessage) => boolean): Promise<SseMessage>;
  /** Resolves with the first comment line (`: text`) received from now on. */
  nextComment(): Promise<string>;
  /** Resolves when the server ended or cut the stream. */
  ended: Promise<void>;
  /** The error body when the answer was not 200. */
  body: string;
  pause(): void;
  close(): void;
}

export function openStream(url: string, key: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers } }, (res) => {
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters: Array<{ pred: (m: SseMessage) => boolean; resolve: (m: SseMessage) => void; reject: (e: Error) => void }> = [];
      const commentWaiters: Array<(c: string) => void> = [];
      let endedResolve!: () => void;
      const ended = new Promise<void>((r) => (endedResolve = r));
      let buf = '';
      let cur: { id?: string; event?: string; data: string[] } = { data: [] };
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments,
        body: '',
        ended,
        next: (pred) =>
          new Promise((ok, fail) => {
            const seen = messages.find(pred);
            if (seen) return ok(seen);
            waiters.push({ pred, resolve: ok, reject: fail });
          }),
        nextComment: () => new Promise((ok) => commentWaiters.push(ok)),
        pause: () => {
          res.pause();
          res.socket.pause();
        },
        close: () => req.destroy(),
      };
      const line = (l: string): void => {
        if (l === '') {
          if (cur.data.length) {
            const data = cur.data.join('\n');
            let json: unknown;
            try {
              json = JSON.parse(data);
            } catch {
              json = undefined;
            }
            const m: SseMessage = { ...(cur.id !== undefined ? { id: cur.id } : {}), event: cur.event ?? 'message', data, json };
            messages.push(m);
            for (const w of [...waiters]) if (w.pred(m)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(m));
          }
          cur = { data: [] };
          return;
        }
        if (l.startsWith(':')) {
          comments.push(l.slice(1).trim());
          for (const w of commentWaiters.splice(0)) w(l.slice(1).trim());
          return;
        }
        const i = l.indexOf(':');
        const field = i < 0 ? l : l.slice(0, i);
        const value = i < 0 ? '' : l.slice(i + 1).replace(/^ /, '');
        if (field === 'data') cur.data.push(value);
        else if (field === 'id') cur.id = value;
        else if (field === 'event') cur.event = value;
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) return void (stream.body += chunk);
        buf += chunk;
        let i;
        while ((i = buf.search(/\r\n|\n|\r/)) >= 0) {
          const eol = buf[i] === '\r' && buf[i + 1] === '\n' ? 2 : 1;
          line(buf.slice(0, i));
          buf = buf.slice(i + eol);
        }
      });
      const finish = (): void => {
        endedResolve();
        for (const w of waiters.splice(0)) w.reject(new Error(`the stream ended before the message awaited (${messages.length} received)`));
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      if (stream.status !== 200) res.on('end', () => resolve(stream));
      else resolve(stream);
    });
    req.on('error', reject);
    req.end();
  });
}
