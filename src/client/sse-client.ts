/**
 * A Server-Sent Events client for `verity listen --remote` (docs/webhooks.md, the stream contract
 * in issue 29): connects out to the service, parses the stream with eventsource-parser, reconnects
 * with exponential backoff and jitter, and resumes with `Last-Event-ID`.
 *
 * Not the browser's EventSource: we need the Authorization header, the error body of a refused
 * open (a 401 must stop, not retry forever), bounds on what an untrusted stream can make us hold
 * (one event, one unterminated line), and back-pressure: the next message is not read until the
 * previous one is handled, so a slow app slows the stream instead of filling our memory.
 */
import type { Dispatcher } from 'undici';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ErrorBody, VerityError } from '../api/errors.js';
import { abortableSleep } from './abortable-sleep.js';

export type SseMessage = EventSourceMessage;

export interface SseReconnect {
  /** Why the last connection ended, for a person. */
  reason: string;
  waitMs: number;
  /** Failed connections in a row, this one included. */
  failures: number;
  /** What the service said when it refused the open, if it did. */
  error?: VerityError;
  /** The Last-Event-ID the next connection sends. */
  resumeFrom?: string;
}

export interface SseClientOptions {
  url: string;
  /** Authorization, user-agent…; `accept` and `last-event-id` are added. */
  headers: Record<string, string>;
  /** Resume after this id on the first connection. */
  lastEventId?: string;
  /** Ends the client: runSse resolves. */
  signal: AbortSignal;
  /** Each message, in order; the stream is not read further until it settles. */
  onMessage: (m: SseMessage) => Promise<void> | void;
  /** A connection was accepted (HTTP 200, event stream); `resumeFrom` is the Last-Event-ID sent. */
  onOpen?: (info: { resumeFrom?: string }) => void;
  /** A connection ended or could not be made; the next try follows after `waitMs`. */
  onReconnect?: (info: SseReconnect) => void;
  /** The largest event (its data lines together) or unterminated line, in characters; larger cuts the connection. Default 8 Mi. */
  maxEventChars?: number;
  /** Nothing received for this long (the service pings every 15 s) means a dead connection. Default 45 s. */
  idleMs?: number;
  /** First backoff step; the service's `retry:` replaces it. Default 1 s. */
  initialDelayMs?: number;
  /** Longest backoff wait (a Retry-After can ask for more). Default 30 s. */
  maxDelayMs?: number;
  /** Failed connections in a row after which runSse throws the last error; default: never gives up. */
  maxFailures?: number;
  /** The same bound until a first connection has delivered (a wrong URL or a service that is not up fails fast). */
  maxFailuresBeforeFirst?: number;
  /** Injectable for tests: jitter in [0, 1). */
  random?: () => number;
  /** Injectable for tests; must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Injectable for tests: the idle timer (runs `fn` after `ms`; the result cancels it). */
  setTimer?: (fn: () => void, ms: number) => () => void;
  dispatcher?: Dispatcher;
}

const DEFAULT_MAX_EVENT_CHARS = 8 * 1024 * 1024;
const MAX_ERROR_BODY = 64 * 1024;
/** An open that no retry can fix: bad parameters, a bad key, a plan without the feature, no such route. */
const FATAL_STATUS = new Set([400, 401, 402, 403, 404, 405, 410, 422]);

const defaultSleep = abortableSleep;

interface Ended {
  reason: string;
  /** At least one message arrived: the connection worked, the backoff starts again. */
  received: boolean;
  retryAfterMs?: number;
  error?: VerityError;
}

function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Drops a body we stop reading; undici reports the early end as an 'error' that nobody needs. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  if (!body.destroyed) body.destroy();
}

async function boundedText(body: Dispatcher.ResponseData['body']): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += Buffer.from(chunk as Uint8Array).toString('utf8');
    if (text.length > MAX_ERROR_BODY) break;
  }
  discard(body);
  return text.slice(0, MAX_ERROR_BODY);
}

function refusal(status: number, text: string, host: string): VerityError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ErrorBody.safeParse(json);
  if (parsed.success) {
    const e = parsed.data.error;
    return new VerityError(e.code, e.message, { docs: e.docs, details: e.details, retryAfter: e.retry_after, requiredPlan: e.required_plan, origin: 'service' });
  }
  return new VerityError(status >= 500 ? 'UNAVAILABLE' : 'INTERNAL_ERROR', `The service at ${host} answered HTTP ${status} to the event stream`, { origin: 'transport' });
}

/** Runs until `signal` aborts (resolves) or the service refuses the stream for good (throws a VerityError). */
export async function runSse(o: SseClientOptions): Promise<void> {
  const { request } = await import('undici');
  const host = new URL(o.url).host;
  const maxChars = o.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
  const idleMs = o.idleMs ?? 45_000;
  const maxDelay = o.maxDelayMs ?? 30_000;
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? defaultSleep;
  const setTimer =
    o.setTimer ??
    ((fn: () => void, ms: number) => {
      const t = setTimeout(fn, ms);
      t.unref();
      return () => clearTimeout(t);
    });
  let baseDelay = o.initialDelayMs ?? 1000;
  let lastId = o.lastEventId;

  const connectOnce = async (): Promise<Ended | undefined> => {
    const cut = new AbortController();
    const signal = AbortSignal.any([o.signal, cut.signal]);
    const headers: Record<string, string> = { ...o.headers, accept: 'text/event-stream', 'cache-control': 'no-store' };
    if (lastId) headers['last-event-id'] = lastId;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(o.url, { method: 'GET', headers, signal, dispatcher: o.dispatcher, headersTimeout: 30_000, bodyTimeout: 0 });
    } catch (err) {
      if (o.signal.aborted) return undefined;
      const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      return { reason: `cannot reach ${host} (${code ?? 'network error'})`, received: false };
    }
    if (res.statusCode !== 200) {
      const error = refusal(res.statusCode, await boundedText(res.body).catch(() => ''), host);
      if (FATAL_STATUS.has(res.statusCode)) throw error;
      const wait = retryAfterMs(res.headers['retry-after']) ?? (error.retryAfter !== undefined ? error.retryAfter * 1000 : undefined);
      return { reason: `HTTP ${res.statusCode}: ${error.message}`, received: false, retryAfterMs: wait, error };
    }
    const type = String(res.headers['content-type'] ?? '');
    if (!/^text\/event-stream\b/i.test(type)) {
      discard(res.body);
      throw new VerityError('UNAVAILABLE', `${host} answered ${type || 'no content type'} where an event stream was expected: is ${o.url} a verity service?`, {
        origin: 'transport',
      });
    }
    o.onOpen?.({ resumeFrom: lastId });

    const queue: SseMessage[] = [];
    let overflow = false;
    const parser = createParser({
      maxBufferSize: maxChars,
      onEvent: (m) => queue.push(m),
      onRetry: (ms) => {
        baseDelay = Math.min(maxDelay, Math.max(100, ms));
      },
      onError: (e) => {
        if (e.type === 'max-buffer-size-exceeded') overflow = true;
      },
    });
    const decoder = new TextDecoder();
    let received = false;
    let cancelIdle = (): void => {};
    let idleCut = false;
    let handlerFailed = false;
    const arm = (): void => {
      cancelIdle();
      cancelIdle = setTimer(() => {
        idleCut = true;
        cut.abort();
      }, idleMs);
    };
    try {
      arm();
      for await (const chunk of res.body) {
        arm();
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
        if (overflow) return { reason: `an event or line longer than ${maxChars} characters: connection cut`, received };
        // Handling a message may take the app's time: the idle clock does not run meanwhile.
        if (queue.length) cancelIdle();
        while (queue.length) {
          const m = queue.shift()!;
          if (m.id) lastId = m.id;
          received = true;
          try {
            await o.onMessage(m);
          } catch (err) {
            handlerFailed = true; // the caller's own failure: never mistaken for a broken connection
            throw err;
          }
          if (o.signal.aborted) return undefined;
        }
        arm();
      }
      return { reason: 'the service closed the stream', received };
    } catch (err) {
      if (o.signal.aborted) return undefined;
      if (handlerFailed || err instanceof VerityError) throw err;
      if (idleCut) return { reason: `nothing received for ${Math.round(idleMs / 1000)} s`, received };
      const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      return { reason: `the connection broke (${code ?? (err as Error).message})`, received };
    } finally {
      cancelIdle();
      discard(res.body);
    }
  };

  let failures = 0;
  let delivered = false;
  while (!o.signal.aborted) {
    const ended = await connectOnce();
    if (!ended) return;
    delivered ||= ended.received;
    failures = ended.received ? 1 : failures + 1;
    const bound = delivered ? o.maxFailures : (o.maxFailuresBeforeFirst ?? o.maxFailures);
    if (bound && failures >= bound)
      throw ended.error ?? new VerityError('UNAVAILABLE', `The event stream of ${host} failed ${failures} times in a row: ${ended.reason}`, { origin: 'transport' });
    // Exponential steps with "equal jitter": never less than half the step, so a fleet of
    // listeners cut by one restart does not come back at once, and never a hot loop.
    const step = Math.min(maxDelay, baseDelay * 2 ** (failures - 1));
    const waitMs = ended.retryAfterMs ?? Math.round(step / 2 + (step / 2) * random());
    o.onReconnect?.({ reason: ended.reason, waitMs, failures, error: ended.error, resumeFrom: lastId });
    try {
      await sleep(waitMs, o.signal);
    } catch {
      return;
    }
  }
}
