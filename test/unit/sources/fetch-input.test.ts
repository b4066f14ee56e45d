/**
 * Redirects must not lead a server-side download to loopback. Every address on this machine is
 * refused by the real guard, so the first hop needs an allowed address: the tests narrow the
 * guard to refuse 127.0.0.1 only and serve the first hop from 127.0.0.2 (also loopback on Linux).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { isForbiddenAddress } from '../../../src/sources/address-guard.js';
import { createInputFetcher } from '../../../src/sources/fetch-input.js';

let target: Server;
let front: Server;
let targetHits = 0;
let targetPort = 0;
let frontUrl = '';

const listen = (s: Server, host: string): Promise<number> =>
  new Promise((resolve) => s.listen(0, host, () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  target = createServer((_req, res) => {
    targetHits++;
    res.end('secret metadata');
  });
  targetPort = await listen(target, '127.0.0.1');
  front = createServer((req, res) => {
    const to: Record<string, string> = {
      '/to-loopback': `http://127.0.0.1:${targetPort}/latest/meta-data`,
      '/to-name': `http://internal.test:${targetPort}/`,
      '/to-metadata': 'http://169.254.169.254/latest/meta-data',
    };
    if (req.url && to[req.url]) {
      res.writeHead(302, { location: to[req.url] });
      res.end();
    } else res.end('public image bytes');
  });
  frontUrl = `http://127.0.0.2:${await listen(front, '127.0.0.2')}`;
});
afterAll(() => {
  target.close();
  front.close();
});

const fetcher = createInputFetcher({
  ssrfGuard: true,
  userAgent: 'verity-test',
  // The real policy, except that 127.0.0.2 plays a public host.
  isForbidden: (a) => a !== '127.0.0.2' && isForbiddenAddress(a),
  lookup: (host, _o, cb) =>
    cb(null, host === 'internal.test' ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '127.0.0.2', family: 4 }]),
});

async function refusal(url: string): Promise<VerityError> {
  const err = await fetcher(url).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VerityError);
  return err as VerityError;
}

describe('SSRF guard across redirects', () => {
  it('the allowed first hop itself downloads (the test policy is not refusing everything)', async () => {
    const r = await fetcher(`${frontUrl}/image.jpg`);
    expect(r.bytes.toString()).toBe('public image bytes');
  });

  it('refuses a redirect to a loopback address, without connecting to it', async () => {
    const e = await refusal(`${frontUrl}/to-loopback`);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details?.[0]?.field).toBe('url');
    expect(targetHits).toBe(0);
  });

  it('refuses a redirect to a host name that resolves to loopback', async () => {
    const e = await refusal(`${frontUrl}/to-name`);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(targetHits).toBe(0);
  });

  it('refuses a redirect to the cloud metadata address', async () => {
    expect((await refusal(`${frontUrl}/to-metadata`)).code).toBe('VALIDATION_FAILED');
  });
});
