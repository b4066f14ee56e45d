/**
 * Bounded download of a media/document `url` input: http(s) only, a size cap, a deadline, at most
 * five redirects, and (in server mode) the SSRF guard applied to every hop and to every address a
 * host name resolves to — at connect time, so DNS rebinding between check and use cannot slip by.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { VerityError } from '../api/errors.js';
import { LIMITS } from '../api/requests.js';
import type { FetchedInput, InputFetcher } from './types.js';
import { isForbiddenAddress } from './address-guard.js';

type LookupFn = (
  hostname: string,
  options: { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface InputFetcherOptions {
  /** Refuse loopback/private/link-local/metadata targets (server mode). */
  ssrfGuard: boolean;
  userAgent: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** DNS resolution, injectable for tests (e.g. a name that resolves to 10.0.0.1). */
  lookup?: LookupFn;
  /** Which addresses the guard refuses (default: isForbiddenAddress); tests narrow it. */
  isForbidden?: (address: string) => boolean;
}

const MAX_REDIRECTS = 5;

function refuse(url: string): VerityError {
  return new VerityError('VALIDATION_FAILED', `url points to a private or loopback address, which is not allowed: ${url}`, {
    details: [{ field: 'url', issue: 'resolves to a private, loopback, link-local or metadata address' }],
  });
}

export function createInputFetcher(opts: InputFetcherOptions): InputFetcher {
  const maxBytes = opts.maxBytes ?? LIMITS.fileBytes;
  const timeoutMs = opts.timeoutMs ?? LIMITS.urlTimeoutMs;
  const resolve: LookupFn = opts.lookup ?? ((h, o, cb) => dnsLookup(h, o, cb));
  const forbidden = opts.isForbidden ?? isForbiddenAddress;

  // undici and the connection pool are made on the first download, not with the ports: a local
  // file never needs the HTTP stack (~60 ms of start-up).
  let undici: Promise<{ request: typeof import('undici').request; dispatcher: Dispatcher }> | undefined;
  const load = () =>
    (undici ??= import('undici').then(({ Agent, request }) => ({ request, dispatcher: newAgent(Agent) })));
  const newAgent = (Agent: typeof import('undici').Agent): Dispatcher => new Agent({
    connect: {
      // Called for every new connection to a host name; refusing here covers redirects too.
      lookup(hostname, options, cb) {
        resolve(hostname, { all: true }, (err, addresses) => {
          if (err) return cb(err, '', 4);
          if (opts.ssrfGuard && (addresses.length === 0 || addresses.some((a) => forbidden(a.address)))) {
            const e = new Error(`forbidden address for ${hostname}`) as NodeJS.ErrnoException;
            e.code = 'E_FORBIDDEN_ADDRESS';
            return cb(e, '', 4);
          }
          const all = (options as { all?: boolean }).all;
          if (all) return (cb as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
          const first = addresses[0]!;
          cb(null, first.address, first.family);
        });
      },
    },
  });

  return async function fetchInput(url: string, o: { signal?: AbortSignal } = {}): Promise<FetchedInput> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
    let current = url;
    const { request, dispatcher } = await load();
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const u = new URL(current);
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new VerityError('VALIDATION_FAILED', `url must be http(s): ${current}`, { details: [{ field: 'url', issue: 'must be an http(s) URL' }] });
      const literal = u.hostname.replace(/^\[|\]$/g, '');
      if (opts.ssrfGuard && isIP(literal) && forbidden(literal)) throw refuse(current);
      let res;
      try {
        res = await request(current, {
          method: 'GET',
          headers: { 'user-agent': opts.userAgent, accept: '*/*' },
          signal,
          dispatcher,
        });
      } catch (err) {
        if ((err as { code?: string }).code === 'E_FORBIDDEN_ADDRESS' || (err as { cause?: { code?: string } }).cause?.code === 'E_FORBIDDEN_ADDRESS')
          throw refuse(current);
        if (deadline.aborted) throw new VerityError('UNAVAILABLE', `Downloading ${u.host} took longer than ${timeoutMs / 1000} s`);
        if (o.signal?.aborted) throw err;
        throw new VerityError('UNAVAILABLE', `Could not download ${u.host}: ${(err as { code?: string }).code ?? 'network error'}`);
      }
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        res.body.resume();
        current = new URL(String(res.headers.location), current).toString();
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        res.body.resume();
        throw new VerityError('UNPROCESSABLE_CONTENT', `Downloading ${u.host} failed: HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > maxBytes) {
        res.body.destroy();
        throw new VerityError('PAYLOAD_TOO_LARGE', `The file at ${u.host} is larger than ${maxBytes / 1024 / 1024} MB`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > maxBytes) {
            res.body.destroy();
            throw new VerityError('PAYLOAD_TOO_LARGE', `The file at ${u.host} is larger than ${maxBytes / 1024 / 1024} MB`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        if (err instanceof VerityError) throw err;
        throw new VerityError('UNAVAILABLE', `Downloading ${u.host} was interrupted or took longer than ${timeoutMs / 1000} s`);
      }
      const ct = res.headers['content-type'];
      return { bytes: Buffer.concat(chunks), contentType: ct ? String(ct) : null, finalUrl: current };
    }
    throw new VerityError('UNPROCESSABLE_CONTENT', `Too many redirects (more than ${MAX_REDIRECTS}) from ${url}`);
  };
}
