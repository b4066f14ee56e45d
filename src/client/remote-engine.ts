/**
 * RemoteEngine: the Engine interface over HTTP against `{base_url}/v1` (SPEC 4). Errors come back
 * as the API's error body and are rethrown as the same VerityError the embedded engine throws, so
 * the CLI treats both modes alike.
 *
 * Transport: one keep-alive undici Agent per process; an overall deadline per call; bounded
 * retries on 429, 503 and connection failures that honour Retry-After (a wait longer than
 * `maxRetryWaitMs` is not waited for: the error goes to the caller with its retry time). Every POST
 * carries an Idempotency-Key that stays the same across its retries, so a retry after a lost
 * response is never charged twice.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { ErrorBody, VerityError } from '../api/errors.js';
import type { Engine, VerifyOptions } from '../engine/types.js';
import { withInlineBytes } from '../engine/inputs.js';
import { abortableSleep } from './abortable-sleep.js';

export interface RemoteEngineOptions {
  baseUrl: string;
  apiKey?: string;
  userAgent: string;
  /** Deadline for one call including its retries (default 120 s). */
  timeoutMs?: number;
  /** Attempts in all, the first included (default 3). */
  maxAttempts?: number;
  /** The longest Retry-After worth waiting for inside one call (default 20 s). */
  maxRetryWaitMs?: number;
  /** Injectable for tests; must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Injectable for tests; default the shared keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Idempotency-Key for one logical POST (default a random UUID). */
  idempotencyKey?: () => string;
  /**
   * Told before each wait for a retry, so a person watching learns why nothing is happening
   * (the CLI prints a warning line). Not called for the last failure, which is thrown.
   */
  onRetry?: (r: RetryNotice) => void;
}

/** One retry about to happen: what failed, how long the wait is, which attempt comes next. */
export interface RetryNotice {
  error: VerityError;
  /** The HTTP status the service answered, absent when it could not be reached. */
  status?: number;
  waitMs: number;
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  maxAttempts: number;
  host: string;
}

/** Joins the base URL and a /v1 path whether or not the base already ends in /v1. */
export function endpoint(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1${path}`;
}

let sharedAgent: Dispatcher | undefined;
async function defaultDispatcher(): Promise<Dispatcher> {
  if (!sharedAgent) {
    const { Agent } = await import('undici');
    // Keep-alive well under the server's 72 s so we never reuse a socket the server is closing.
    sharedAgent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 30_000, connections: 16, connect: { timeout: 10_000 } });
  }
  return sharedAgent;
}

const defaultSleep = abortableSleep;

/** Connection-level failures where the request may not have reached the service: safe to retry. */
const RETRYABLE_NET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v); // the HTTP-date form
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

interface Attempt<T> {
  ok?: T;
  error: VerityError;
  /** Seconds the server asked us to wait (or a backoff) when this failure may be retried. */
  retryIn?: number;
  status?: number;
}

/**
 * A request body sent as it is made rather than held whole (a streamed batch, issue 31): `open()`
 * is called for each attempt, so a retry sends it again from the start.
 */
export interface StreamedBody {
  contentType: string;
  open(): AsyncIterable<string | Uint8Array>;
}
const isStreamed = (b: unknown): b is StreamedBody => typeof (b as StreamedBody | undefined)?.open === 'function';

export async function callRemote<T>(
  o: RemoteEngineOptions,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
  idempotencyKey?: string,
): Promise<T> {
  const { request } = await import('undici');
  const url = endpoint(o.baseUrl, path);
  const host = new URL(url).host;
  const timeoutMs = o.timeoutMs ?? 120_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const dispatcher = o.dispatcher ?? (await defaultDispatcher());
  const sleep = o.sleep ?? defaultSleep;
  const maxAttempts = Math.max(1, o.maxAttempts ?? 3);
  const maxWait = o.maxRetryWaitMs ?? 20_000;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': o.userAgent };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  const streamed = isStreamed(body);
  if (body !== undefined) headers['content-type'] = streamed ? body.contentType : 'application/json';
  // Same key on every attempt: the service answers a retry with the first response, charged once.
  if (method === 'POST') headers['idempotency-key'] = idempotencyKey ?? (o.idempotencyKey ?? randomUUID)();
  const payload = body === undefined || streamed ? undefined : JSON.stringify(body);
  const { Readable } = streamed ? await import('node:stream') : { Readable: undefined };

  const once = async (): Promise<Attempt<T>> => {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, { method, headers, body: streamed ? Readable!.from(body.open()) : payload, signal: both, dispatcher });
    } catch (err) {
      if (signal?.aborted) throw err;
      if (deadline.aborted)
        return { error: new VerityError('UNAVAILABLE', `The service at ${host} did not answer within ${Math.round(timeoutMs / 1000)} s`, { origin: 'transport' }) };
      const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
      const error = new VerityError('UNAVAILABLE', `Cannot reach the service at ${host} (${code ?? 'network error'})`, { cause: err, origin: 'transport' });
      return { error, retryIn: code && RETRYABLE_NET.has(code) ? undefined : Number.NaN };
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw err;
      return { error: new VerityError('UNAVAILABLE', `The connection to ${host} broke while reading the answer`, { cause: err, origin: 'transport' }) };
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      return { error: new VerityError('UNAVAILABLE', `The service at ${host} answered HTTP ${res.statusCode} with a body that is not JSON`, { origin: 'transport' }), retryIn: Number.NaN, status: res.statusCode };
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: json as T, error: undefined as never };
    const retryAfter = parseRetryAfter(res.headers['retry-after'], Date.now());
    const parsed = ErrorBody.safeParse(json);
    let error: VerityError;
    if (parsed.success) {
      const e = parsed.data.error;
      error = new VerityError(e.code, e.message, {
        docs: e.docs,
        requiredPlan: e.required_plan,
        details: e.details,
        retryAfter: e.retry_after ?? retryAfter,
        origin: 'service',
      });
    } else {
      error = new VerityError(res.statusCode >= 500 ? 'UNAVAILABLE' : 'INTERNAL_ERROR', `The service at ${host} answered HTTP ${res.statusCode}`, { origin: 'transport' });
    }
    const retryable = res.statusCode === 429 || res.statusCode === 503;
    return { error, retryIn: retryable ? (retryAfter ?? error.retryAfter) : Number.NaN, status: res.statusCode };
  };

  for (let attempt = 1; ; attempt++) {
    const r = await once();
    if (r.ok !== undefined || r.error === undefined) return r.ok as T;
    // NaN marks "not retryable"; undefined means "retryable, no hint": exponential backoff.
    if (r.retryIn !== undefined && Number.isNaN(r.retryIn)) throw r.error;
    if (attempt >= maxAttempts) throw r.error;
    const waitMs = r.retryIn !== undefined ? r.retryIn * 1000 : 250 * 2 ** (attempt - 1);
    if (waitMs > maxWait) throw r.error;
    o.onRetry?.({ error: r.error, status: r.status, waitMs, attempt: attempt + 1, maxAttempts, host });
    try {
      await sleep(waitMs, both);
    } catch (err) {
      if (signal?.aborted) throw err;
      throw r.error; // the deadline came first: report what the service said
    }
  }
}

export function createRemoteEngine(o: RemoteEngineOptions): Engine {
  const post = <T>(path: string, body: unknown, opts?: VerifyOptions) => callRemote<T>(o, 'POST', path, body, opts?.signal, opts?.idempotencyKey);
  return {
    verifyClaim: (req, opts) => post('/verify/claim', req, opts),
    verifyBusiness: (req, opts) => post('/verify/business', req, opts),
    // Bytes handed over as `inputBytes` travel as base64 in the request, as the API takes them.
    verifyMedia: (req, opts) => post('/verify/media', opts?.inputBytes ? withInlineBytes('media', req, opts.inputBytes) : req, opts),
    verifyDocument: (req, opts) => post('/verify/document', opts?.inputBytes ? withInlineBytes('document', req, opts.inputBytes) : req, opts),
  };
}
