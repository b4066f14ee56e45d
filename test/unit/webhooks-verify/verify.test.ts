/**
 * The apps' verifier (src/webhooks-verify, published as `verity/webhooks`): both schemes, every
 * error code, the Standard Webhooks specification's own vector, and the independent reference
 * library (`standardwebhooks`, by the specification's authors) in both directions.
 */
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { BatchEventData as ApiBatchEventData } from '../../../src/api/batches.js';
import {
  EVENT_TYPES as API_EVENT_TYPES,
  type CreditThresholdData as ApiCreditThresholdData,
  type EventType as ApiEventType,
  type VerificationCompletedData as ApiCompletedSchema,
  type VerificationFailedData as ApiFailedSchema,
} from '../../../src/api/webhooks.js';
import type { CreditThresholdData as DomainCreditThresholdData, FailedData as DomainFailedData } from '../../../src/domain/events.js';
import { envelope, sampleData } from '../../../src/domain/events.js';
import { sign } from '../../../src/domain/signature.js';
import { generateStandardSecret, standardHeaders } from '../../../src/domain/standard-webhooks.js';
import { DEFAULT_MAX_AGE_MS } from '../../../src/webhooks/listener.js';
import {
  EVENT_TYPES,
  VERITY_TOLERANCE_SECONDS,
  WebhookVerificationError,
  standardSecretKey,
  standardSignature,
  verifyWebhook,
  type BatchEventData,
  type CreditThresholdData,
  type EventType,
  type VerificationCompletedData,
  type VerificationFailedData,
  type WebhookVerificationErrorCode,
} from '../../../src/webhooks-verify/index.js';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const VERITY_SECRET = 'a-webhook-secret-of-at-least-32-characters';
const STANDARD_SECRET = generateStandardSecret();

const event = (type: ApiEventType = 'verification.completed', at = NOW) => envelope(type, sampleData(type, new Date(at)), new Date(at));

function codeOf(f: () => unknown): WebhookVerificationErrorCode | undefined {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect((err as Error).message.length).toBeGreaterThan(10);
    return (err as WebhookVerificationError).code;
  }
  return undefined;
}

describe('the event types are the API contract (copied, kept equal)', () => {
  it('types', () => {
    expectTypeOf<EventType>().toEqualTypeOf<ApiEventType>();
    expectTypeOf<VerificationCompletedData>().toEqualTypeOf<z.infer<typeof ApiCompletedSchema>>();
    expectTypeOf<VerificationFailedData>().toEqualTypeOf<z.infer<typeof ApiFailedSchema>>();
    expectTypeOf<VerificationFailedData>().toEqualTypeOf<DomainFailedData>();
    expectTypeOf<CreditThresholdData>().toEqualTypeOf<z.infer<typeof ApiCreditThresholdData>>();
    expectTypeOf<CreditThresholdData>().toEqualTypeOf<DomainCreditThresholdData>();
    expectTypeOf<BatchEventData>().toEqualTypeOf<ApiBatchEventData>();
  });

  it('values: event types and the verity window equal the service’s', () => {
    expect([...EVENT_TYPES]).toEqual([...API_EVENT_TYPES]);
    expect(VERITY_TOLERANCE_SECONDS * 1000).toBe(DEFAULT_MAX_AGE_MS);
  });
});

describe('Standard Webhooks scheme', () => {
  it("matches the specification's published vector (secret, id, timestamp, payload → v1 signature)", () => {
    const k = standardSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    if (!('key' in k)) throw new Error(k.problem);
    expect(standardSignature(k.key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('our signature verifies with the reference library, and the reference library’s with ours', () => {
    const ev = event('credit.threshold', Date.now());
    const body = JSON.stringify(ev);
    // Ours → theirs (their verify reads the real clock, so the headers are made now).
    const ours = standardHeaders([STANDARD_SECRET], ev.id, Date.now(), body);
    expect(new ReferenceWebhook(STANDARD_SECRET).verify(body, ours)).toEqual(ev);
    // Theirs → ours.
    const ts = new Date(NOW);
    const theirs = { 'webhook-id': ev.id, 'webhook-timestamp': String(NOW / 1000), 'webhook-signature': new ReferenceWebhook(STANDARD_SECRET).sign(ev.id, ts, body) };
    expect(verifyWebhook(body, theirs, STANDARD_SECRET, { now: NOW })).toEqual(ev);
  });

  it('accepts any of several signatures (rotation), any of several secrets, and fetch Headers', () => {
    const ev = event();
    const body = JSON.stringify(ev);
    const old = generateStandardSecret();
    const h = standardHeaders([STANDARD_SECRET, old], ev.id, NOW, body);
    expect(h['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook(body, h, old, { now: NOW }).id).toBe(ev.id);
    expect(verifyWebhook(Buffer.from(body), new Headers(h), STANDARD_SECRET, { now: NOW }).type).toBe('verification.completed');
    const single = standardHeaders([old], ev.id, NOW, body);
    expect(verifyWebhook(body, single, [generateStandardSecret(), old], { now: NOW }).id).toBe(ev.id);
    // A signature of an unknown version is skipped, as the specification says.
    expect(verifyWebhook(body, { ...single, 'webhook-signature': `v2,abc ${single['webhook-signature']}` }, old, { now: NOW }).id).toBe(ev.id);
  });

  it('refuses with a code for each fault', () => {
    const ev = event();
    const body = JSON.stringify(ev);
    const h = standardHeaders([STANDARD_SECRET], ev.id, NOW, body);
    const v = (b: string | Buffer, headers: Record<string, string>, opts: { now?: number; toleranceSeconds?: number } = { now: NOW }, secret: string | string[] = STANDARD_SECRET) => codeOf(() => verifyWebhook(b, headers, secret, opts));
    expect(v(body, h)).toBeUndefined();
    expect(v(body, { 'webhook-signature': h['webhook-signature']!, 'webhook-id': ev.id })).toBe('missing_header');
    expect(v(body, { ...h, 'webhook-timestamp': 'yesterday' })).toBe('malformed_timestamp');
    expect(v(body, h, { now: NOW + 301_000 })).toBe('timestamp_out_of_window');
    expect(v(body, h, { now: NOW - 301_000 })).toBe('timestamp_out_of_window');
    expect(v(body, h, { now: NOW + 3_600_000, toleranceSeconds: 3_601 })).toBeUndefined();
    expect(v(body, { ...h, 'webhook-signature': 'v1,notbase64!!' })).toBe('malformed_signature');
    expect(v(body, { ...h, 'webhook-signature': 'v2,abc' })).toBe('malformed_signature');
    // The id and the timestamp are signed: changing either breaks the signature.
    expect(v(body, { ...h, 'webhook-id': 'wh_other' })).toBe('bad_signature');
    expect(v(body, { ...h, 'webhook-timestamp': String(NOW / 1000 + 1) })).toBe('bad_signature');
    expect(v(body.replace('0.91', '0.19'), h)).toBe('bad_signature');
    expect(v(JSON.stringify(ev, null, 2), h)).toBe('body_reencoded');
    expect(v(body, h, { now: NOW }, `${STANDARD_SECRET}\n`)).toBe('secret_whitespace');
    expect(v(body, h, { now: NOW }, generateStandardSecret())).toBe('bad_signature');
    expect(v(body, h, { now: NOW }, 'not-a-standard-secret-but-long-enough')).toBe('invalid_secret');
    expect(v(body, h, { now: NOW }, [])).toBe('invalid_secret');
  });
});

describe('verity scheme (SPEC 6.3)', () => {
  const at = (ev: ReturnType<typeof event>) => ({ body: JSON.stringify(ev), headers: { 'X-Service-Signature': sign(VERITY_SECRET, JSON.stringify(ev)) } });

  it('accepts a signed event and returns it typed', () => {
    const { body, headers } = at(event('verification.completed'));
    const ev = verifyWebhook(body, headers, VERITY_SECRET, { now: NOW + 60_000 });
    if (ev.type !== 'verification.completed') throw new Error('narrowing');
    expectTypeOf(ev.data.trust_score).toEqualTypeOf<number>();
    expect(ev.data.trust_score).toBe(0.91);
  });

  it('refuses with a code for each fault; freshness is the signed created_at', () => {
    const { body, headers } = at(event());
    const v = (b: unknown, h: Record<string, string>, now = NOW, secret: string | string[] = VERITY_SECRET, tol?: number) =>
      codeOf(() => verifyWebhook(b as string, h, secret, { now, ...(tol === undefined ? {} : { toleranceSeconds: tol }) }));
    expect(v(body, {})).toBe('missing_signature');
    expect(v(body, { 'x-service-signature': headers['X-Service-Signature'].replace('sha256=', 'sha1=') })).toBe('malformed_signature');
    expect(v(body, headers, NOW, 'another-secret-of-at-least-32-characters')).toBe('bad_signature');
    expect(v(body, headers, NOW, [])).toBe('invalid_secret');
    expect(v(JSON.parse(body), headers)).toBe('body_not_raw');
    expect(v(JSON.stringify(JSON.parse(body), null, 2), headers)).toBe('body_reencoded');
    expect(v(body, headers, NOW, `${VERITY_SECRET}\n`)).toBe('secret_whitespace');
    expect(v(body, headers, NOW + VERITY_TOLERANCE_SECONDS * 1000 - 1000)).toBeUndefined();
    expect(v(body, headers, NOW + VERITY_TOLERANCE_SECONDS * 1000 + 1000)).toBe('timestamp_out_of_window');
    expect(v(body, headers, NOW + 120_000, VERITY_SECRET, 60)).toBe('timestamp_out_of_window');
    expect(v(body, headers, NOW - 6 * 60_000)).toBe('timestamp_out_of_window');
    const notEvent = '{"hello":"world"}';
    expect(v(notEvent, { 'x-service-signature': sign(VERITY_SECRET, notEvent) })).toBe('not_an_event');
    expect(v('hello', { 'x-service-signature': sign(VERITY_SECRET, 'hello') })).toBe('not_json');
  });
});
