/**
 * RemoteEngine: the Engine interface over HTTP against `{base_url}/v1` (SPEC 4). Errors come back
 * as the API's error body and are rethrown as the same VerityError the embedded engine throws, so
 * the CLI treats both modes alike.
 */
import { ErrorBody, VerityError } from '../api/errors.js';
import type { Engine, VerifyOptions } from '../engine/types.js';

export interface RemoteEngineOptions {
  baseUrl: string;
  apiKey?: string;
  userAgent: string;
  timeoutMs?: number;
}

/** Joins the base URL and a /v1 path whether or not the base already ends in /v1. */
export function endpoint(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base}/v1${path}`;
}

export async function callRemote<T>(
  o: RemoteEngineOptions,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const { request } = await import('undici');
  const url = endpoint(o.baseUrl, path);
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 120_000);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': o.userAgent };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    const host = new URL(url).host;
    if (timeout.aborted) throw new VerityError('UNAVAILABLE', `The service at ${host} did not answer in time`);
    throw new VerityError('UNAVAILABLE', `Cannot reach the service at ${host} (${(err as { code?: string }).code ?? 'network error'})`);
  }
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    throw new VerityError('UNAVAILABLE', `The service answered HTTP ${res.statusCode} with a body that is not JSON`);
  }
  if (res.statusCode >= 200 && res.statusCode < 300) return json as T;
  const err = ErrorBody.safeParse(json);
  if (err.success) {
    const e = VerityError.fromBody(err.data);
    const retry = res.headers['retry-after'];
    if (e.retryAfter === undefined && retry !== undefined && /^\d+$/.test(String(retry)))
      return Promise.reject(new VerityError(e.code, e.message, { docs: e.docs, requiredPlan: e.requiredPlan, details: e.details, retryAfter: Number(retry) }));
    throw e;
  }
  throw new VerityError(res.statusCode >= 500 ? 'UNAVAILABLE' : 'INTERNAL_ERROR', `The service answered HTTP ${res.statusCode}`);
}

export function createRemoteEngine(o: RemoteEngineOptions): Engine {
  const post = <T>(path: string, body: unknown, opts?: VerifyOptions) => callRemote<T>(o, 'POST', path, body, opts?.signal);
  return {
    verifyClaim: (req, opts) => post('/verify/claim', req, opts),
    verifyBusiness: (req, opts) => post('/verify/business', req, opts),
    verifyMedia: (req, opts) => post('/verify/media', req, opts),
    verifyDocument: (req, opts) => post('/verify/document', req, opts),
  };
}
