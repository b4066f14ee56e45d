/**
 * The one HTTP layer every outside source uses (DESIGN.md): undici with a timeout per request,
 * bounded retries with backoff on 429/5xx and network errors honouring Retry-After, a descriptive
 * User-Agent, per-host rate limits, and an on-disk response cache with a TTL.
 *
 * Time is injected (`now`, `sleep`) so retry and rate-limit behaviour is tested without waiting.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-request deadline in ms (default 10 s). */
  timeoutMs?: number;
  /** Extra attempts after the first on 429/5xx/network errors (default 2). */
  retries?: number;
  /** Cache 2xx GET answers for this long (ms); 0 or absent: no cache. */
  cacheTtlMs?: number;
  /** Largest body accepted, in bytes (default 20 MB). */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  fromCache: boolean;
  text(): string;
  json<T = unknown>(): T;
}

export type UpstreamFailure = 'timeout' | 'network' | 'http' | 'too_large' | 'rate_limited' | 'bad_body';

/** A source could not be reached or answered with an error; sources turn it into a warning. */
export class UpstreamError extends Error {
  constructor(
    readonly host: string,
    readonly kind: UpstreamFailure,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface RateLimit {
  /** Requests allowed per window. */
  requests: number;
  windowMs: number;
}

export interface HttpClientOptions {
  /** e.g. "verity/0.1.0 (+mailto:ops@example.com)"; Wikipedia, GDELT and SEC require one. */
  userAgent: string;
  /** Folder for the on-disk cache; absent: no cache. */
  cacheDir?: string;
  /** Per-host limits, keyed by host name (e.g. "data.sec.gov"). */
  rateLimits?: Record<string, RateLimit>;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  dispatcher?: Dispatcher;
  /** Longest Retry-After honoured before giving up (default 30 s). */
  maxRetryWaitMs?: number;
}

export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
  /** GET that expects 2xx JSON; anything else throws UpstreamError. */
  getJson<T = unknown>(url: string, opts?: Omit<HttpRequest, 'url' | 'method'>): Promise<T>;
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function makeResponse(status: number, headers: Record<string, string>, body: Buffer, fromCache: boolean, host: string): HttpResponse {
  return {
    status,
    headers,
    body,
    fromCache,
    text: () => body.toString('utf8'),
    json: <T>() => {
      try {
        return JSON.parse(body.toString('utf8')) as T;
      } catch {
        throw new UpstreamError(host, 'bad_body', `${host} answered with a body that is not JSON`, status);
      }
    },
  };
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function createHttpClient(opts: HttpClientOptions): HttpClient {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const maxRetryWait = opts.maxRetryWaitMs ?? 30_000;
  // Sliding-window log per host: timestamps of recent request starts.
  const starts = new Map<string, number[]>();

  async function throttle(host: string, signal?: AbortSignal): Promise<void> {
    const limit = opts.rateLimits?.[host];
    if (!limit) return;
    for (;;) {
      const t = now();
      const log = (starts.get(host) ?? []).filter((s) => t - s < limit.windowMs);
      if (log.length < limit.requests) {
        log.push(t);
        starts.set(host, log);
        return;
      }
      starts.set(host, log);
      await sleep(limit.windowMs - (t - log[0]!), signal);
    }
  }

  const cacheKey = (req: HttpRequest): string => {
    const h = createHash('sha256').update(`${req.method ?? 'GET'} ${req.url}\n`);
    // Different credentials may see different data; key on a digest, never store the value.
    const auth = req.headers?.authorization ?? req.headers?.Authorization ?? req.headers?.['x-api-key'];
    if (auth) h.update(createHash('sha256').update(auth).digest('hex'));
    return h.digest('hex');
  };

  async function readCache(req: HttpRequest, host: string): Promise<HttpResponse | undefined> {
    if (!opts.cacheDir || !req.cacheTtlMs || (req.method ?? 'GET') !== 'GET') return undefined;
    try {
      const raw = JSON.parse(await readFile(join(opts.cacheDir, `${cacheKey(req)}.json`), 'utf8')) as {
        stored: number;
        status: number;
        headers: Record<string, string>;
        body: string;
      };
      if (now() - raw.stored > req.cacheTtlMs) return undefined;
      return makeResponse(raw.status, raw.headers, Buffer.from(raw.body, 'base64'), true, host);
    } catch {
      return undefined;
    }
  }

  async function writeCache(req: HttpRequest, res: HttpResponse): Promise<void> {
    if (!opts.cacheDir || !req.cacheTtlMs || (req.method ?? 'GET') !== 'GET') return;
    if (res.status < 200 || res.status >= 300) return;
    try {
      await mkdir(opts.cacheDir, { recursive: true, mode: 0o700 });
      const file = join(opts.cacheDir, `${cacheKey(req)}.json`);
      const tmp = `${file}.${process.pid}.tmp`;
      const { 'set-cookie': _drop, ...headers } = res.headers;
      await writeFile(tmp, JSON.stringify({ stored: now(), status: res.status, headers, body: res.body.toString('base64') }), { mode: 0o600 });
      await rename(tmp, file);
    } catch {
      // A cache that cannot be written is only a slower run, never a failure.
    }
  }

  async function once(req: HttpRequest, host: string): Promise<HttpResponse> {
    const timeoutMs = req.timeoutMs ?? 10_000;
    const maxBytes = req.maxBytes ?? 20 * 1024 * 1024;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    // undici loads on the first outside request, not with the ports: a local file never needs it
    // (~60 ms of start-up). Outside the try: a missing module is a bug, not a network failure.
    const { request: undiciRequest } = await import('undici');
    try {
      const res = await undiciRequest(req.url, {
        method: req.method ?? 'GET',
        headers: { 'user-agent': opts.userAgent, accept: 'application/json', ...req.headers },
        body: req.body,
        signal,
        dispatcher: opts.dispatcher,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.body.destroy();
          throw new UpstreamError(host, 'too_large', `${host} sent more than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return makeResponse(res.statusCode, flattenHeaders(res.headers), Buffer.concat(chunks), false, host);
    } catch (err) {
      if (err instanceof UpstreamError) throw err;
      if (req.signal?.aborted) throw err;
      if (timeout.aborted) throw new UpstreamError(host, 'timeout', `${host} did not answer within ${timeoutMs} ms`);
      const code = (err as { code?: string }).code;
      throw new UpstreamError(host, 'network', `${host} could not be reached${code ? ` (${code})` : ''}`);
    }
  }

  async function request(req: HttpRequest): Promise<HttpResponse> {
    const host = new URL(req.url).host;
    const cached = await readCache(req, host);
    if (cached) return cached;
    const retries = req.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      await throttle(host, req.signal);
      let res: HttpResponse | undefined;
      let failure: UpstreamError | undefined;
      try {
        res = await once(req, host);
      } catch (err) {
        if (!(err instanceof UpstreamError) || err.kind === 'too_large') throw err;
        failure = err;
      }
      const retryable = failure !== undefined || res!.status === 429 || res!.status >= 500;
      if (!retryable) {
        await writeCache(req, res!);
        return res!;
      }
      const hinted = res ? parseRetryAfter(res.headers['retry-after'], now()) : undefined;
      const backoff = hinted ?? Math.min(8_000, 500 * 2 ** attempt);
      if (attempt >= retries || backoff > maxRetryWait) {
        if (failure) throw failure;
        return res!; // the caller sees the final 429/5xx and decides
      }
      await sleep(backoff, req.signal);
    }
  }

  return {
    request,
    async getJson<T>(url: string, o: Omit<HttpRequest, 'url' | 'method'> = {}): Promise<T> {
      const res = await request({ ...o, url });
      const host = new URL(url).host;
      if (res.status === 429)
        throw new UpstreamError(host, 'rate_limited', `${host} is rate limiting us (429)`, 429, parseRetryAfter(res.headers['retry-after'], now()));
      if (res.status < 200 || res.status >= 300)
        throw new UpstreamError(host, 'http', `${host} answered HTTP ${res.status}`, res.status);
      return res.json<T>();
    },
  };
}
