/**
 * What `verity listen --remote` does with each event of the service's event stream: the local
 * listener's checks and forwarding (listener.ts), fed from a stream message instead of an HTTP
 * request. The signature is checked with the stream's session secret over the exact body BEFORE
 * anything is parsed; the envelope and age checks, the refusal reasons and their explanations are
 * the local listener's (readEvent), so a forged or stale event is refused here as there.
 *
 * Forwards carry the delivery's headers and raw bytes, with one difference: the signature is made
 * again with the forward secret (the local listener secret unless --secret says otherwise). The
 * session secret is new on every connection, so an app could never be configured with it; the
 * forward secret stays the same across reconnects and runs, as Stripe CLI's does.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { EVENT_ID } from '../api/ids.js';
import type { EventType } from '../api/webhooks.js';
import { SIGNATURE_HEADER, sign } from '../domain/signature.js';
import { STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER, STANDARD_TIMESTAMP_HEADER, standardHeaders, standardSecretProblem } from '../domain/standard-webhooks.js';
import {
  claimedEvent,
  DEFAULT_MAX_AGE_MS,
  forwardOne,
  readEvent,
  refusedRecord,
  routesFor,
  SeenIds,
  type ForwardRoute,
  type ForwardResult,
  type ListenRecord,
} from './listener.js';
import { checkDelivery } from './verify-delivery.js';

/** The `session` message that opens every stream. */
export interface StreamSession {
  session_id: string;
  secret: string;
  signature_scheme?: string;
  environment?: string;
  events?: string[];
  retention_seconds?: number;
  resumed_after?: string | null;
}

/** The `missed` message: events after `after` are no longer kept. */
export interface StreamMissed {
  after: string;
  reason: string;
  oldest_retained: string | null;
  replay: string;
}

/** One event message of the stream. */
export interface StreamEvent {
  id: string;
  type: string;
  created_at?: string;
  /** Exactly the headers a webhook delivery of this event carries. */
  headers: Record<string, string>;
  /** Exactly the body a delivery POSTs. */
  body: string;
}

/** What the app answered, as POST /v1/events/stream/sessions/{id}/results takes it. */
export interface StreamResult {
  event_id: string;
  route: string | null;
  status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface StreamHandlerOptions {
  /** Only these types are handled; others are reported as `ignored`. */
  events?: EventType[];
  maxAgeMs?: number;
  forward?: ForwardRoute[];
  /** Signs what is forwarded to the app (see the file comment). */
  forwardSecret: string;
  now?: () => number;
  /** Ends forwards in flight (Ctrl-C). */
  signal?: AbortSignal;
}

export const STREAM_PATH = '/v1/events/stream';
/** Longest session secret, body and header value taken from a stream message. */
const MAX_SECRET = 1024;

/** Reads a `session` message's data; undefined when it is not one. */
export function parseSession(data: string): StreamSession | undefined {
  try {
    const s = JSON.parse(data) as Partial<StreamSession>;
    if (typeof s?.session_id !== 'string' || typeof s.secret !== 'string' || !s.secret || s.secret.length > MAX_SECRET) return undefined;
    return s as StreamSession;
  } catch {
    return undefined;
  }
}

export function parseMissed(data: string): StreamMissed | undefined {
  try {
    const m = JSON.parse(data) as Partial<StreamMissed>;
    if (typeof m?.after !== 'string' || typeof m.replay !== 'string') return undefined;
    return { after: m.after, reason: String(m.reason ?? 'expired'), oldest_retained: typeof m.oldest_retained === 'string' ? m.oldest_retained : null, replay: m.replay };
  } catch {
    return undefined;
  }
}

/** An event message's data; undefined when its shape is wrong (headers of strings, a string body). */
export function parseStreamEvent(data: string): StreamEvent | undefined {
  try {
    const e = JSON.parse(data) as Partial<StreamEvent>;
    if (typeof e?.body !== 'string' || typeof e.headers !== 'object' || e.headers === null || Array.isArray(e.headers)) return undefined;
    if (!Object.values(e.headers).every((v) => typeof v === 'string')) return undefined;
    return { id: String(e.id ?? ''), type: String(e.type ?? ''), created_at: e.created_at, headers: e.headers, body: e.body };
  } catch {
    return undefined;
  }
}

/** The lines the service stores for one handled event: one per route the app was sent to, or the refusal. */
export function resultsOf(r: ListenRecord): StreamResult[] {
  const id = r.event_id;
  if (!id || !EVENT_ID.test(id) || r.outcome === 'duplicate' || r.outcome === 'ignored') return [];
  if (r.outcome === 'refused') return [{ event_id: id, route: null, status: null, latency_ms: 0, error: `refused by listen: ${r.reason ?? 'refused'}` }];
  // Nothing was sent to an app (no --forward-to): nothing to report, and no request spent on it.
  if (!r.forwards?.length) return [];
  return r.forwards.map((f) => ({ event_id: id, route: routeName(f.url), status: f.status, latency_ms: f.latency_ms, error: f.error ?? null }));
}

/** A route as the service shows it: its path (the app's host and port stay on this machine). */
const routeName = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

export interface StreamHandler {
  /** Checks and forwards one event with the secret of the session that carried it. */
  handle(ev: StreamEvent, sessionSecret: string): Promise<ListenRecord>;
}

export function createStreamHandler(o: StreamHandlerOptions): StreamHandler {
  const now = o.now ?? Date.now;
  const maxAge = o.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const only = o.events?.length ? new Set<string>(o.events) : undefined;
  // A resume after a cut may send again what the last connection already carried.
  const seen = new SeenIds();

  return {
    async handle(ev, sessionSecret) {
      const headers: IncomingHttpHeaders = {};
      for (const [k, v] of Object.entries(ev.headers)) headers[k.toLowerCase()] = v;
      const base = refusedRecord(new Date(now()).toISOString(), STREAM_PATH, headers);
      const refuse = (status: number, reason: NonNullable<ListenRecord['reason']>, explanation: string): ListenRecord => {
        const named = base.event_id ? {} : claimedEvent(headers);
        return { ...base, ...named, outcome: 'refused', status, reason, explanation };
      };
      const body = Buffer.from(ev.body, 'utf8');

      // 1. The signature, over the exact bytes, before anything is parsed: either scheme, by the
      // headers the event carries (as the local listener checks a delivery).
      const check = checkDelivery([sessionSecret], body, headers, now());
      if (check.scheme === 'standard') base.signature_scheme = 'standard';
      if (!check.ok) return refuse(401, check.problem, check.explanation);

      // 2. The envelope and 3. its age: the local listener's checks.
      const read = readEvent(body, base, now(), maxAge);
      if (!read.ok) return refuse(read.status, read.reason, read.explanation);

      // 4. Dedupe, filter, forward.
      if (seen.has(read.id)) return { ...base, outcome: 'duplicate', status: 200 };
      if (only && !only.has(read.type)) return { ...base, outcome: 'ignored', status: 200 };
      const routes = routesFor(o.forward ?? [], read.type);
      if (!routes.length) {
        seen.add(read.id);
        return { ...base, outcome: 'accepted', status: 200 };
      }
      const forwarded = forwardHeaders(headers, body, o.forwardSecret, check.scheme === 'standard', now());
      const forwards: ForwardResult[] = await Promise.all(routes.map((r) => forwardOne(r, forwarded, body, now, o.signal)));
      const down = forwards.find((f) => f.status === null);
      const bad = forwards.find((f) => f.status !== null && (f.status < 200 || f.status > 299));
      const status = down ? 502 : bad ? bad.status! : 200;
      if (status === 200) seen.add(read.id);
      return { ...base, outcome: status === 200 ? 'accepted' : 'forward_failed', status, forwards };
    },
  };
}

/**
 * The headers forwarded to the app: the event's, signed again with the forward secret (the session
 * secret's signature would be useless to the app). A Standard Webhooks event is signed again in
 * that scheme when the forward secret is a `whsec_` key; otherwise (a verity-style listener
 * secret) its `webhook-signature` is dropped and the app verifies `X-Service-Signature`, which
 * every forward carries.
 */
export function forwardHeaders(headers: IncomingHttpHeaders, body: Buffer, forwardSecret: string, standard: boolean, nowMs: number): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = { ...headers, [SIGNATURE_HEADER]: sign(forwardSecret, body) };
  if (!standard) return out;
  const id = headers[STANDARD_ID_HEADER];
  if (typeof id === 'string' && standardSecretProblem(forwardSecret) === undefined) return { ...out, ...standardHeaders([forwardSecret], id, nowMs, body.toString('utf8')) };
  delete out[STANDARD_SIGNATURE_HEADER];
  delete out[STANDARD_TIMESTAMP_HEADER];
  return out;
}
