/**
 * `verity listen`'s server: receives webhook deliveries on loopback, checks each signature over
 * the raw bytes (constant time, several secrets during a rotation) BEFORE parsing, refuses and
 * explains mismatches, deduplicates by event id, refuses events older than the retry horizon
 * (replays), and optionally forwards the raw bytes and headers unchanged to a local app.
 *
 * Plain node:http (not fastify): the listener is a hot loop of HMACs and must stay cheap.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VerityError } from '../api/errors.js';
import { EVENT_ID } from '../api/ids.js';
import { EVENT_TYPES, type EventType } from '../api/webhooks.js';
import { RESPONSE_DEADLINE_MS, RETRY_HORIZON_MS } from '../domain/delivery-schedule.js';
import {
  ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  REPLAY_HEADER,
  WEBHOOK_ID_HEADER,
} from '../domain/signature.js';
import { checkDelivery, type DeliveryProblem } from './verify-delivery.js';

export const DEFAULT_LISTEN_PORT = 4242;
/** Events older than the last scheduled retry (+ 15 min for leases and throttling) are replays. */
export const DEFAULT_MAX_AGE_MS = RETRY_HORIZON_MS + 15 * 60_000;
/** Clock skew tolerated for events that claim to come from the future. */
const FUTURE_SKEW_MS = 5 * 60_000;
const MAX_BODY_BYTES = 5 * 1024 * 1024;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEDUPE_CAPACITY = 100_000;
/** Events whose forwarding is partly done (some app answered 2xx, another not): remembered per route. */
const PARTIAL_CAPACITY = 10_000;

export interface ForwardRoute {
  /** Only events of this type; undefined = every event. */
  type?: EventType;
  url: string;
}

export interface ForwardResult {
  url: string;
  status: number | null;
  latency_ms: number;
  body_start: string;
  error?: string;
  /** Not sent again: this app already answered 2xx to an earlier attempt of the same event. */
  already_delivered?: true;
}

export type ListenOutcome = 'accepted' | 'duplicate' | 'ignored' | 'refused' | 'forward_failed';

export interface ListenRecord {
  time: string;
  outcome: ListenOutcome;
  /** The HTTP status the sender got. */
  status: number;
  path: string;
  type: string | null;
  event_id: string | null;
  request_id: string | null;
  verdict: string | null;
  trust_score: number | null;
  attempt: number | null;
  /** The sender marked this delivery as a replay (REPLAY_HEADER): forwarded even when seen. */
  replay?: boolean;
  /** A short reading of non-verification events (threshold, error code, batch counts). */
  detail?: string;
  /** Which --secret matched (0-based), during a rotation. */
  secret_index?: number;
  /** The registered webhook (we_…) the sender says this delivery is for (its header). */
  webhook_id?: string;
  /**
   * On a refusal before the body could be trusted: `type` and `event_id` come from the sender's
   * headers, unverified (`from_headers: true`), so the line can still name the event.
   */
  from_headers?: true;
  /** Set for Standard Webhooks deliveries (verity's own scheme is the default, left out). */
  signature_scheme?: 'standard';
  reason?: DeliveryProblem | 'not_json' | 'not_an_event' | 'stale_event' | 'future_event' | 'too_large';
  explanation?: string;
  forwards?: ForwardResult[];
}

export interface ListenerOptions {
  secrets: string[];
  port?: number;
  host?: string;
  tls?: { cert: Buffer; key: Buffer };
  /** Only these types are handled; others are acknowledged (200) and reported as `ignored`. */
  events?: EventType[];
  maxAgeMs?: number;
  forward?: ForwardRoute[];
  now?: () => number;
  onRecord: (r: ListenRecord) => void;
  /** Non-fatal problems (a failing socket, a forward error) that should show on stderr. */
  onProblem?: (message: string) => void;
  /** A connection that has not sent its whole headers within this is cut (slowloris); default 10 s. */
  headersTimeoutMs?: number;
  /** A request (headers and body) not received within this is cut; default 60 s. */
  requestTimeoutMs?: number;
}

export interface RunningListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Where an event goes: the routes for its type when there are any, else the catch-all ones —
 * the most specific route wins, as Stripe CLI's --forward-connect-to takes Connect events from
 * --forward-to. Several routes of the same specificity all get the event.
 */
export function routesFor(routes: readonly ForwardRoute[], type: string): ForwardRoute[] {
  const typed = routes.filter((r) => r.type === type);
  return typed.length ? typed : routes.filter((r) => !r.type);
}

/** Parses `--forward-to` values: `URL` or `type=URL`. */
export function parseForwardRoute(value: string): ForwardRoute {
  const eq = value.indexOf('=');
  const maybeType = eq > 0 ? value.slice(0, eq) : '';
  const isRouted = (EVENT_TYPES as readonly string[]).includes(maybeType);
  const url = isRouted ? value.slice(eq + 1) : value;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new VerityError('VALIDATION_FAILED', `--forward-to must be URL or type=URL with an http(s) URL, got "${value}"`, {
      details: [{ field: 'forward-to', issue: `http(s) URL, optionally prefixed by one of ${EVENT_TYPES.join(', ')} and =` }],
    });
  }
  return isRouted ? { type: maybeType as EventType, url } : { url };
}

/**
 * The last DEDUPE_CAPACITY ids: a Set for look-ups and a ring buffer for age, so forgetting the
 * oldest id is one array read and one Set delete — O(1) however many ids came before. (Deleting
 * `set.values().next().value` instead walks the Set's deleted slots and slowed the listener by
 * half once it had seen 100,000 ids.)
 */
export class SeenIds {
  private readonly ids = new Set<string>();
  private readonly ring: (string | undefined)[];
  private next = 0;
  constructor(readonly capacity = DEDUPE_CAPACITY) {
    this.ring = new Array<string | undefined>(capacity);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
  add(id: string): void {
    if (this.ids.has(id)) return;
    const old = this.ring[this.next];
    if (old !== undefined) this.ids.delete(old);
    this.ring[this.next] = id;
    this.next = (this.next + 1) % this.capacity;
    this.ids.add(id);
  }
  get size(): number {
    return this.ids.size;
  }
}

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** One forward of the raw bytes and the sender's headers (less hop-by-hop ones) to one route; shared with `listen --remote`. */
export async function forwardOne(
  route: ForwardRoute,
  sent: IncomingHttpHeaders,
  body: Buffer,
  now: () => number,
  stop?: AbortSignal,
): Promise<ForwardResult> {
  const { request } = await import('undici');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(sent)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const started = now();
  try {
    const res = await request(route.url, {
      method: 'POST',
      headers,
      body,
      signal: stop ? AbortSignal.any([stop, AbortSignal.timeout(RESPONSE_DEADLINE_MS)]) : AbortSignal.timeout(RESPONSE_DEADLINE_MS),
      headersTimeout: RESPONSE_DEADLINE_MS,
      bodyTimeout: RESPONSE_DEADLINE_MS,
    });
    let text = '';
    for await (const chunk of res.body) {
      text += Buffer.from(chunk as Uint8Array).toString('utf8');
      if (text.length >= 200) break;
    }
    if (!res.body.destroyed) res.body.destroy();
    return { url: route.url, status: res.statusCode, latency_ms: now() - started, body_start: text.slice(0, 80) };
  } catch (err) {
    const e = err as { code?: string; name?: string; cause?: { code?: string } };
    const why =
      e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT'
        ? `no answer within ${RESPONSE_DEADLINE_MS / 1000} s`
        : (e.code ?? e.cause?.code) === 'ECONNREFUSED'
          ? 'connection refused (is the app running?)'
          : `network error (${e.code ?? e.cause?.code ?? (err as Error).message})`;
    return { url: route.url, status: null, latency_ms: now() - started, body_start: '', error: why };
  }
}

function detailOf(type: string, d: Record<string, unknown>): string | undefined {
  if (type === 'credit.threshold' && typeof d.threshold === 'number') return `${d.threshold} % of quota (${String(d.usage)}/${String(d.quota)}, ${String(d.period)})`;
  if (type === 'verification.failed') {
    const e = d.error as { code?: unknown } | undefined;
    return typeof e?.code === 'string' ? `error ${e.code}` : undefined;
  }
  if (type.startsWith('batch.') && typeof d.total === 'number') return `${String(d.succeeded)}/${d.total} succeeded`;
  return undefined;
}

const RECEIVED = JSON.stringify({ received: true });
/** The common answer's headers, built once: the accepted event's reply allocates nothing for them. */
const RECEIVED_HEADERS = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(RECEIVED) };

/**
 * `new Date(ms).toISOString()` with the date-and-second part made once per second: a listener
 * under load stamps thousands of records a second, and only the milliseconds change between them.
 */
export function isoTimeStamper(): (ms: number) => string {
  let second = NaN;
  let head = '';
  return (ms: number): string => {
    const t = Math.trunc(ms); // as Date does (TimeClip)
    const s = Math.floor(t / 1000);
    if (s !== second) {
      const iso = new Date(s * 1000).toISOString(); // throws for an invalid time, as Date would
      // Years beyond 0000–9999 have a longer, signed form: those are stamped whole every time.
      if (iso.length !== 24) return new Date(t).toISOString();
      second = s;
      head = iso.slice(0, 20);
    }
    const m = t - s * 1000;
    return `${head}${m < 10 ? '00' : m < 100 ? '0' : ''}${m}Z`;
  };
}

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A delivery's record before it is checked: refused (401) until the checks pass, nothing named yet. */
export function refusedRecord(time: string, path: string, headers: IncomingHttpHeaders): ListenRecord {
  return {
    time,
    outcome: 'refused',
    status: 401,
    path,
    type: null,
    event_id: null,
    request_id: null,
    verdict: null,
    trust_score: null,
    attempt: Number(headers[ATTEMPT_HEADER]) || null,
  };
}

/** The event a refused delivery says it carries (headers, not the unverified body), when well-formed. */
export function claimedEvent(headers: IncomingHttpHeaders): Partial<ListenRecord> {
  const id = headerValue(headers[EVENT_ID_HEADER]);
  const type = headerValue(headers[EVENT_TYPE_HEADER]);
  const out: Partial<ListenRecord> = {};
  if (id && EVENT_ID.test(id)) out.event_id = id;
  if (type && (EVENT_TYPES as readonly string[]).includes(type)) out.type = type;
  if (out.event_id || out.type) out.from_headers = true;
  return out;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  // The common answer is precomputed: the listener's hot path is one HMAC and one JSON.parse.
  if (body === RECEIVED) {
    res.writeHead(status, RECEIVED_HEADERS);
    res.end(RECEIVED);
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Why a signed body is not handled: the refusal's status, reason and explanation. */
export interface EventRefusal {
  ok: false;
  status: 400 | 401;
  reason: 'not_json' | 'not_an_event' | 'stale_event' | 'future_event';
  explanation: string;
}

const EVENT_TYPE_SET = new Set<string>(EVENT_TYPES);

/**
 * The checks after the signature, shared by `listen` and `listen --remote`: parse the body, check
 * the envelope (SPEC 6.2) and its age. Fills `base` (type, event id, request id, verdict, score,
 * detail) as soon as they are known, so that a refusal for age still names the event.
 */
const refuseEvent = (status: 400 | 401, reason: EventRefusal['reason'], explanation: string): EventRefusal => ({ ok: false, status, reason, explanation });

export function readEvent(body: Buffer, base: ListenRecord, nowMs: number, maxAge: number): { ok: true; id: string; type: string } | EventRefusal {
  const refuse = refuseEvent;
  let ev: { id?: unknown; type?: unknown; created_at?: unknown; data?: unknown };
  try {
    ev = JSON.parse(body.toString('utf8')) as typeof ev;
  } catch {
    return refuse(400, 'not_json', 'the body is signed correctly but is not JSON');
  }
  const created = typeof ev?.created_at === 'string' ? Date.parse(ev.created_at) : NaN;
  if (
    !ev ||
    typeof ev.id !== 'string' ||
    !EVENT_ID.test(ev.id) ||
    typeof ev.type !== 'string' ||
    !EVENT_TYPE_SET.has(ev.type) ||
    Number.isNaN(created) ||
    typeof ev.data !== 'object' ||
    ev.data === null
  )
    return refuse(400, 'not_an_event', 'the body is not an event envelope (id wh_…, type, created_at, data)');
  const data = ev.data as Record<string, unknown>;
  base.type = ev.type;
  base.event_id = ev.id;
  base.request_id = typeof data.request_id === 'string' ? data.request_id : null;
  base.verdict = typeof data.verdict === 'string' ? data.verdict : null;
  base.trust_score = typeof data.trust_score === 'number' ? data.trust_score : null;
  const detail = detailOf(ev.type, data);
  if (detail) base.detail = detail;

  // Freshness: the signed created_at bounds how old a genuine delivery can be.
  const age = nowMs - created;
  if (age > maxAge)
    return refuse(
      401,
      'stale_event',
      `the event was created ${Math.round(age / 60_000)} min ago, beyond the ${Math.round(maxAge / 60_000)} min retry horizon: refused as a replay (raise --max-age for manual replays)`,
    );
  if (-age > FUTURE_SKEW_MS) return refuse(401, 'future_event', 'the event is dated more than 5 minutes in the future (clock skew or forgery)');
  return { ok: true, id: ev.id, type: ev.type };
}

export async function startListener(o: ListenerOptions): Promise<RunningListener> {
  const now = o.now ?? Date.now;
  const maxAge = o.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const only = o.events?.length ? new Set<string>(o.events) : undefined;
  const seen = new SeenIds();
  const forward = o.forward ?? [];
  const stamp = isoTimeStamper();
  // Per event, the routes that already answered 2xx while another did not: the sender's retry
  // (caused by the other app) is not sent again to an app that took it (bounded, oldest first out).
  const delivered = new Map<string, Set<string>>();
  const remember = (id: string, urls: Set<string>): void => {
    delivered.delete(id);
    delivered.set(id, urls);
    if (delivered.size > PARTIAL_CAPACITY) delivered.delete(delivered.keys().next().value!);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    // One clock reading per delivery: the record's time, the signature's window and the event's age.
    const at = now();
    const headers = req.headers;
    const base = refusedRecord(stamp(at), req.url ?? '/', headers);
    const webhookId = headerValue(headers[WEBHOOK_ID_HEADER]);
    if (webhookId && /^we_[A-Za-z0-9]{1,64}$/.test(webhookId)) base.webhook_id = webhookId;
    const refuse = (status: number, reason: NonNullable<ListenRecord['reason']>, explanation: string): void => {
      reply(res, status, { error: { code: status === 401 ? 'UNAUTHORIZED' : 'INVALID_REQUEST', message: explanation, reason } });
      // Name the event even when the body cannot be trusted: from the sender's headers, marked so.
      const named = base.event_id ? {} : claimedEvent(headers);
      o.onRecord({ ...base, ...named, outcome: 'refused', status, reason, explanation });
    };
    // The record of a handled event is `base` itself, finished in place (a fresh object per
    // delivery, never kept by the listener): no copy per event. Its keys keep their order.
    const finish = (outcome: ListenOutcome, status: number): void => {
      base.outcome = outcome;
      base.status = status;
      o.onRecord(base);
    };

    // 1. The signature, over the raw bytes, before anything is parsed (either scheme, by its headers).
    const check = checkDelivery(o.secrets, body, headers, at);
    if (check.scheme === 'standard') base.signature_scheme = 'standard';
    if (!check.ok) return refuse(401, check.problem, check.explanation);
    base.secret_index = check.secretIndex;

    // 2. Only now parse, and check the envelope (SPEC 6.2); 3. its freshness.
    const ev = readEvent(body, base, at, maxAge);
    if (!ev.ok) return refuse(ev.status, ev.reason, ev.explanation);

    // 4. Dedupe, filter, forward. A replay is a deliberate resend: it goes to the app again.
    const replay = headers[REPLAY_HEADER] === '1';
    if (replay) base.replay = true;
    if (!replay && seen.has(ev.id)) {
      reply(res, 200, { received: true, duplicate: true });
      return finish('duplicate', 200);
    }
    if (only && !only.has(ev.type)) {
      reply(res, 200, { received: true, ignored: true });
      return finish('ignored', 200);
    }
    const id = ev.id;
    const routes = forward.length ? routesFor(forward, ev.type) : forward;
    if (!routes.length) {
      seen.add(id);
      reply(res, 200, RECEIVED);
      return finish('accepted', 200);
    }
    // A replay is a deliberate resend to every route; a retry skips the apps that took it already.
    const done = replay ? new Set<string>() : (delivered.get(id) ?? new Set<string>());
    const skipped: ForwardResult[] = routes
      .filter((r) => done.has(r.url))
      .map((r) => ({ url: r.url, status: 200, latency_ms: 0, body_start: '', already_delivered: true }));
    const pending = routes.filter((r) => !done.has(r.url));
    void Promise.all(pending.map((r) => forwardOne(r, req.headers, body, now))).then((sent) => {
      const forwards = [...skipped, ...sent];
      for (const f of sent) if (f.status !== null && f.status >= 200 && f.status <= 299) done.add(f.url);
      const down = forwards.find((f) => f.status === null);
      const bad = forwards.find((f) => f.status !== null && (f.status < 200 || f.status > 299));
      // The app being down must reach the sender as an error, so the sender retries later.
      const status = down ? 502 : bad ? bad.status! : 200;
      if (status === 200) {
        seen.add(id);
        delivered.delete(id);
        reply(res, 200, RECEIVED);
      } else {
        if (done.size) remember(id, done);
        reply(res, status, {
          error: { code: 'UNAVAILABLE', message: down ? `forwarding to ${down.url} failed: ${down.error}` : `the app answered HTTP ${status}` },
        });
      }
      o.onRecord({ ...base, outcome: status === 200 ? 'accepted' : 'forward_failed', status, forwards });
    });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST') {
      res.writeHead(req.method === 'GET' || req.method === 'HEAD' ? 200 : 405, { 'content-type': 'text/plain', allow: 'POST' });
      res.end('verity listen: POST signed webhook events to any path\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        reply(res, 413, { error: { code: 'PAYLOAD_TOO_LARGE', message: 'the body is larger than 5 MB' } });
        o.onRecord({
          time: stamp(now()), outcome: 'refused', status: 413, path: req.url ?? '/', type: null, event_id: null,
          request_id: null, verdict: null, trust_score: null, attempt: null, reason: 'too_large', explanation: 'the body is larger than 5 MB',
        });
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return;
      try {
        handle(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      } catch (err) {
        o.onProblem?.(`error handling a request: ${(err as Error).message}`);
        if (!res.headersSent) reply(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'listener error' } });
      }
    });
    req.on('error', (err) => o.onProblem?.(`request error: ${err.message}`));
  };

  // Bounds on slow senders (slowloris: headers that never finish hold a socket and memory
  // forever): Node cuts a connection whose headers or whole request take longer, checked every
  // quarter of the headers bound.
  const requestTimeout = o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(o.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  const bounds = { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(headersTimeout / 4))) };
  let server: Server;
  if (o.tls) {
    const https = await import('node:https');
    server = https.createServer({ cert: o.tls.cert, key: o.tls.key, ...bounds }, onRequest);
  } else {
    const http = await import('node:http');
    server = http.createServer(bounds, onRequest);
  }
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    o.onProblem?.(timedOut ? 'a connection did not send its request in time: closed' : `client error: ${err.message}`);
    if (socket.writable) socket.end(timedOut ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n' : 'HTTP/1.1 400 Bad Request\r\n\r\n');
    else socket.destroy();
  });
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? DEFAULT_LISTEN_PORT;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const msg =
        err.code === 'EADDRINUSE'
          ? `Port ${port} on ${host} is already in use; pick another with --port`
          : err.code === 'EACCES'
            ? `Not allowed to listen on ${host}:${port}; use a port above 1023`
            : `Cannot listen on ${host}:${port} (${err.code ?? err.message})`;
      reject(new VerityError('UNAVAILABLE', msg, { origin: 'local', cause: err }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => o.onProblem?.(`server error: ${err.message}`));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `${o.tls ? 'https' : 'http'}://${host}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets of senders would hold the process open; an unanswered request is retried by its sender.
        server.closeAllConnections();
      }),
  };
}
