/**
 * `verity listen` (startListener) receiving Standard Webhooks deliveries: signatures made by the
 * specification authors' reference library (`standardwebhooks`) are accepted; forged, stale and
 * malformed ones are refused with a reason, as verity-signed ones are.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../../src/domain/signature.js';
import { generateStandardSecret } from '../../../src/domain/standard-webhooks.js';
import { startListener, type ListenRecord, type RunningListener } from '../../../src/webhooks/listener.js';

const STANDARD = generateStandardSecret();
const VERITY = 'listener-unit-secret-0123456789-abcdefgh';
const T0 = Date.parse('2026-05-01T10:00:00Z');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const ev = (id = `wh_${Math.random().toString(36).slice(2)}X`) =>
  JSON.stringify({ id, type: 'verification.completed', created_at: new Date(T0).toISOString(), data: { request_id: 'vrf_clm_U1', trust_score: 0.4, verdict: 'false' } });
const idOf = (body: string): string => (JSON.parse(body) as { id: string }).id;

/** Headers as the reference library signs them, at `at` (ms). */
function referenceHeaders(secret: string, body: string, at = T0, id = idOf(body)): Record<string, string> {
  const ts = new Date(at);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': new ReferenceWebhook(secret).sign(id, ts, body) };
}

async function start(secrets: string[], extra: Partial<Parameters<typeof startListener>[0]> = {}) {
  const records: ListenRecord[] = [];
  let now = T0;
  const l: RunningListener = await startListener({ secrets, port: 0, now: () => now, onRecord: (r) => records.push(r), ...extra });
  cleanups.push(() => l.close());
  return { l, records, setNow: (t: number) => void (now = t) };
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

describe('listen: Standard Webhooks deliveries', () => {
  it('accepts what the reference library signs, next to verity-signed deliveries on the same listener', async () => {
    const { l, records } = await start([VERITY, STANDARD]);
    const body = ev();
    expect(await post(l.url, body, referenceHeaders(STANDARD, body))).toEqual({ status: 200, json: { received: true } });
    expect(records[0]).toMatchObject({ outcome: 'accepted', event_id: idOf(body), signature_scheme: 'standard', secret_index: 1 });
    const plain = ev();
    expect((await post(l.url, plain, { 'x-service-signature': sign(VERITY, plain) })).status).toBe(200);
    expect(records[1]).toMatchObject({ outcome: 'accepted', secret_index: 0 });
    expect(records[1]!.signature_scheme).toBeUndefined();
    // The id deduplicates as for verity deliveries.
    expect((await post(l.url, body, referenceHeaders(STANDARD, body))).json).toEqual({ received: true, duplicate: true });
  });

  it('refuses forged, stale, future, re-encoded and malformed deliveries with a reason', async () => {
    const { l, records, setNow } = await start([STANDARD]);
    const reason = async (body: string, headers: Record<string, string>) => {
      const r = await post(l.url, body, headers);
      expect(r.status).toBe(401);
      return r.json.error.reason as string;
    };
    const body = ev();
    expect(await reason(body, referenceHeaders(generateStandardSecret(), body))).toBe('no_secret_matched');
    expect(await reason(body.replace('0.4', '0.9'), referenceHeaders(STANDARD, body))).toBe('no_secret_matched');
    expect(await reason(JSON.stringify(JSON.parse(body), null, 2), referenceHeaders(STANDARD, body))).toBe('body_reencoded');
    expect(await reason(body, referenceHeaders(STANDARD, body, T0 - 6 * 60_000))).toBe('stale_timestamp');
    expect(await reason(body, referenceHeaders(STANDARD, body, T0 + 6 * 60_000))).toBe('future_timestamp');
    const { 'webhook-id': _id, ...noId } = referenceHeaders(STANDARD, body);
    expect(await reason(body, noId)).toBe('missing_header');
    expect(await reason(body, { ...referenceHeaders(STANDARD, body), 'webhook-signature': 'v1' })).toBe('malformed_signature');
    // A refusal line names the event by its id header, marked as unverified.
    expect(records.at(-1)).toMatchObject({ outcome: 'refused', signature_scheme: 'standard' });
    // The window follows the listener's clock: the same delivery is fine at its own time.
    setNow(T0 + 6 * 60_000);
    expect((await post(l.url, body, referenceHeaders(STANDARD, body, T0 + 6 * 60_000))).status).toBe(200);
  });

  it('explains a listener started with only verity-style secrets that cannot be Standard Webhooks keys', async () => {
    const { l } = await start(['not base64 at all, but long enough to be a secret']);
    const body = ev();
    const r = await post(l.url, body, referenceHeaders(STANDARD, body));
    expect(r.json.error).toMatchObject({ reason: 'no_secret', message: expect.stringContaining('whsec_') });
  });

  it('forwards the Standard Webhooks headers unchanged, so the app can verify them itself', async () => {
    const got: IncomingHttpHeaders[] = [];
    const app = createServer((req, res) => {
      got.push(req.headers);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => app.close(() => r())));
    const { l } = await start([STANDARD], { forward: [{ url: `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook` }] });
    const body = ev();
    const h = referenceHeaders(STANDARD, body);
    expect((await post(l.url, body, h)).status).toBe(200);
    expect(got[0]).toMatchObject(h);
  });
});
