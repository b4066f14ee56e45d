/**
 * `verity/webhooks`: verifies verity's webhook deliveries inside an app. Dependency-free on
 * purpose — it imports nothing but node:crypto, so an app can use it without the rest of the
 * package (and the build bundles it alone: dist/webhooks.js / dist/webhooks.cjs).
 *
 * Two signature schemes, chosen per endpoint when the webhook is registered (docs/webhooks.md):
 * - `verity` (SPEC 6.3): `X-Service-Signature: sha256=<lowercase hex HMAC-SHA256 of the raw body>`,
 *   keyed with the secret string as given. The SPEC defines no timestamp header, so freshness is
 *   the signed envelope's `created_at`: at most `toleranceSeconds` old (default: the retry
 *   horizon + 15 min, as `verity listen`), at most 5 min in the future.
 * - `standard` (Standard Webhooks, github.com/standard-webhooks/standard-webhooks): `webhook-id`,
 *   `webhook-timestamp` (seconds), `webhook-signature: v1,<base64 HMAC-SHA256 of
 *   "id.timestamp.body">` (several space-separated during a rotation), keyed with the bytes of
 *   the secret `whsec_<base64>`; the timestamp within ±`toleranceSeconds` (default 300).
 * The scheme is read from the headers. Digests are compared with crypto.timingSafeEqual, and
 * every secret is tried (several during a rotation) whatever matched first.
 *
 * Functions here are also used by the service itself (src/domain/standard-webhooks.ts), so the
 * rules exist once. The event types are copies of src/api's (kept equal by a test), so this file
 * needs no schema library.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureScheme = 'verity' | 'standard';

export const VERITY_SIGNATURE_HEADER = 'x-service-signature';
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
export const STANDARD_SECRET_PREFIX = 'whsec_';

/** Standard Webhooks' recommended window (and its reference libraries' default). */
export const STANDARD_TOLERANCE_SECONDS = 5 * 60;
/** verity: the last retry is 7 h 11 min 10 s after the first attempt; + 15 min for leases and pacing. */
export const VERITY_TOLERANCE_SECONDS = 25_870 + 15 * 60;
/** Clock skew tolerated for an envelope dated in the future (verity scheme). */
export const VERITY_FUTURE_SKEW_SECONDS = 5 * 60;
/** The Standard Webhooks secret's key: 24 to 64 bytes (the specification's bounds). */
export const STANDARD_KEY_MIN_BYTES = 24;
export const STANDARD_KEY_MAX_BYTES = 64;

// ---- event types (copies of src/api/webhooks.ts and src/api/batches.ts; test/unit/webhooks-verify keeps them equal)

export const EVENT_TYPES = ['verification.completed', 'verification.failed', 'batch.completed', 'batch.partial', 'credit.threshold'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export type RequestType = 'claim' | 'business' | 'media' | 'document';

export interface VerificationCompletedData {
  request_id: string;
  request_type: RequestType;
  trust_score: number;
  verdict: string;
  evidence: Array<{ source: string; url: string; supports_claim: boolean; authority_score: number }>;
  latency_ms: number;
}
export interface VerificationFailedData {
  request_id: string | null;
  request_type: RequestType;
  error: { code: string; message: string };
}
export interface CreditThresholdData {
  threshold: 75 | 90 | 100;
  usage: number;
  quota: number;
  percent: number;
  period: string;
}
export interface BatchEventData {
  batch_id: string;
  status: 'completed' | 'partial' | 'cancelled';
  request_type: RequestType;
  total: number;
  succeeded: number;
  failed: number;
  cancelled: number;
  credits_used: number;
  created_at: string;
  completed_at: string;
  metadata: Record<string, string> | null;
  results_url: string;
}
/** Extra fields of a batch item's verification events. */
export interface BatchItemEventFields {
  batch_id: string;
  custom_id: string;
}

interface Envelope<T extends EventType, D> {
  id: string;
  type: T;
  created_at: string;
  data: D;
}
/** A verified event; switch on `type` to get its `data`. Sample events add `data.sample: true`. */
export type WebhookEvent =
  | Envelope<'verification.completed', VerificationCompletedData & Partial<BatchItemEventFields>>
  | Envelope<'verification.failed', VerificationFailedData & Partial<BatchItemEventFields>>
  | Envelope<'credit.threshold', CreditThresholdData>
  | Envelope<'batch.completed', BatchEventData>
  | Envelope<'batch.partial', BatchEventData>;

// ---- errors

export type WebhookVerificationErrorCode =
  /** No signature header of either scheme. */
  | 'missing_signature'
  /** A Standard Webhooks delivery without `webhook-id` or `webhook-timestamp`. */
  | 'missing_header'
  /** The signature header is not in its scheme's format (`sha256=<64 hex>`, `v1,<base64>`). */
  | 'malformed_signature'
  /** `webhook-timestamp` is not an integer number of seconds. */
  | 'malformed_timestamp'
  /** Too old or too far in the future (`webhook-timestamp`, or the verity envelope's `created_at`). */
  | 'timestamp_out_of_window'
  /** No secret given, or (standard) not `whsec_` + base64 of 24–64 bytes. */
  | 'invalid_secret'
  /** The raw body was not passed: an object (a JSON body parser ran before this). */
  | 'body_not_raw'
  /** The signature matches a re-serialised form of the body: verify the raw bytes as received. */
  | 'body_reencoded'
  /** A secret matches only without its surrounding whitespace (a newline read from a file). */
  | 'secret_whitespace'
  /** No secret produced the signature: wrong secret, or the body was modified. */
  | 'bad_signature'
  /** Signed correctly, but not JSON / not an event envelope. */
  | 'not_json'
  | 'not_an_event';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
    /** The scheme the headers named, when they named one. */
    readonly scheme?: SignatureScheme,
  ) {
    super(message);
  }
}

// ---- headers

/** Node's IncomingHttpHeaders, a plain object, or a fetch `Headers`. */
export type HeadersLike = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function headerReader(headers: HeadersLike): (name: string) => string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const h = headers as { get(name: string): string | null };
    return (name) => h.get(name) ?? undefined;
  }
  const lower = new Map<string, string | string[] | undefined>();
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) lower.set(k.toLowerCase(), v);
  return (name) => {
    const v = lower.get(name);
    return Array.isArray(v) ? v[0] : v;
  };
}

/** The scheme a delivery's headers use: `webhook-signature` → standard, else verity. */
export function schemeOf(headers: HeadersLike): SignatureScheme {
  return headerReader(headers)(STANDARD_SIGNATURE_HEADER) !== undefined ? 'standard' : 'verity';
}

// ---- Standard Webhooks primitives

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The key bytes of a `whsec_<base64>` secret, or a reason it is not one. */
export function standardSecretKey(secret: string): { key: Uint8Array } | { problem: string } {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return { problem: 'a Standard Webhooks secret starts with "whsec_"' };
  const b64 = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!BASE64.test(b64) || b64.length % 4 === 1) return { problem: 'after "whsec_" a Standard Webhooks secret is base64 (A–Z, a–z, 0–9, +, /, = padding)' };
  const key = Buffer.from(b64, 'base64');
  if (key.length < STANDARD_KEY_MIN_BYTES || key.length > STANDARD_KEY_MAX_BYTES)
    return { problem: `a Standard Webhooks secret holds ${STANDARD_KEY_MIN_BYTES}–${STANDARD_KEY_MAX_BYTES} bytes; this one holds ${key.length}` };
  return { key };
}

/** The raw 32-byte HMAC-SHA256 over `id.timestamp.body`. */
function standardDigest(key: Uint8Array, id: string, timestamp: string, body: Uint8Array | string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** One `v1,<base64>` signature of a message (`timestamp` in whole seconds). */
export function standardSignature(key: Uint8Array, id: string, timestamp: number | string, body: Uint8Array | string): string {
  return `v1,${standardDigest(key, id, String(timestamp), body).toString('base64')}`;
}

/** The v1 digests of a `webhook-signature` header; other versions are skipped (the specification says so). */
function v1Digests(header: string): Buffer[] | undefined {
  const out: Buffer[] = [];
  let malformed = false;
  for (const part of header.trim().split(/\s+/)) {
    const comma = part.indexOf(',');
    if (comma <= 0) {
      malformed = true;
      continue;
    }
    if (part.slice(0, comma) !== 'v1') continue;
    const b64 = part.slice(comma + 1);
    const d = Buffer.from(b64, 'base64');
    if (!BASE64.test(b64) || d.length !== 32) malformed = true;
    else out.push(d);
  }
  return out.length || !malformed ? out : undefined;
}

// ---- matching, shared by both schemes

/** Constant time per comparison, and every key is tried whatever matched first. */
function firstMatch(keys: readonly (string | Uint8Array)[], digestOf: (key: string | Uint8Array) => Buffer, expected: readonly Buffer[]): number {
  let found = -1;
  keys.forEach((k, i) => {
    const d = digestOf(k);
    let ok = false;
    for (const e of expected) if (timingSafeEqual(d, e)) ok = true;
    if (ok && found < 0) found = i;
  });
  return found;
}

/** Bodies a framework or a proxy commonly makes from the original by parsing and re-encoding it. */
export function reencodedVariants(body: Uint8Array): Uint8Array[] {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const variants = new Set<string>();
  try {
    const parsed: unknown = JSON.parse(text);
    variants.add(JSON.stringify(parsed));
    variants.add(JSON.stringify(parsed, null, 2));
    variants.add(`${JSON.stringify(parsed)}\n`);
    variants.add(`${JSON.stringify(parsed, null, 2)}\n`);
  } catch {
    // not JSON: only the whitespace variants below apply
  }
  variants.add(text.trimEnd());
  variants.add(`${text}\n`);
  variants.add(text.replace(/\r\n/g, '\n'));
  variants.add(text.replace(/\n/g, '\r\n'));
  variants.delete(text);
  return [...variants].map((v) => Buffer.from(v, 'utf8'));
}

export type StandardProblem =
  | 'missing_header'
  | 'malformed_signature'
  | 'malformed_timestamp'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'no_secret'
  | 'body_reencoded'
  | 'secret_whitespace'
  | 'no_secret_matched';

export type StandardCheck =
  | { ok: true; secretIndex: number; id: string; timestamp: number }
  | { ok: false; problem: StandardProblem; explanation: string };

/**
 * Checks a Standard Webhooks delivery: the headers, the timestamp window, then the signature over
 * `id.timestamp.body` against every secret (those that are not `whsec_` base64 are skipped).
 * `nowSeconds` is the receiver's clock.
 */
export function checkStandard(
  secrets: readonly string[],
  body: Uint8Array,
  header: (name: string) => string | undefined,
  nowSeconds: number,
  toleranceSeconds = STANDARD_TOLERANCE_SECONDS,
): StandardCheck {
  const id = header(STANDARD_ID_HEADER);
  const ts = header(STANDARD_TIMESTAMP_HEADER);
  const sig = header(STANDARD_SIGNATURE_HEADER);
  const missing = [!id && STANDARD_ID_HEADER, !ts && STANDARD_TIMESTAMP_HEADER, !sig && STANDARD_SIGNATURE_HEADER].filter(Boolean);
  if (missing.length) return { ok: false, problem: 'missing_header', explanation: `the Standard Webhooks delivery has no ${missing.join(', ')} header` };
  if (!/^\d{1,12}$/.test(ts!.trim()))
    return { ok: false, problem: 'malformed_timestamp', explanation: 'webhook-timestamp must be whole seconds since the epoch' };
  const timestamp = Number(ts!.trim());
  if (nowSeconds - timestamp > toleranceSeconds)
    return {
      ok: false,
      problem: 'stale_timestamp',
      explanation: `webhook-timestamp is ${nowSeconds - timestamp} s old, beyond the ${toleranceSeconds} s window: refused as a replay (or the clocks differ)`,
    };
  if (timestamp - nowSeconds > toleranceSeconds)
    return { ok: false, problem: 'future_timestamp', explanation: `webhook-timestamp is ${timestamp - nowSeconds} s in the future, beyond the ${toleranceSeconds} s window` };
  const expected = v1Digests(sig!);
  if (!expected?.length)
    return {
      ok: false,
      problem: 'malformed_signature',
      explanation: expected ? 'webhook-signature has no v1 signature' : 'webhook-signature must be space-separated "v1,<base64 of 32 bytes>" values',
    };
  const keys = secrets.map((s) => standardSecretKey(s)).flatMap((k, i) => ('key' in k ? [[k.key, i] as const] : []));
  const tsText = ts!.trim();
  const match = (b: Uint8Array, ks: readonly Uint8Array[]): number => firstMatch(ks, (k) => standardDigest(k as Uint8Array, id!, tsText, b), expected);
  const trimmed = secrets.filter((s) => s.trim() !== s).map((s) => standardSecretKey(s.trim())).flatMap((k) => ('key' in k ? [k.key] : []));
  const whitespace = (): boolean => trimmed.length > 0 && match(body, trimmed) >= 0;
  const whitespaceProblem = {
    ok: false,
    problem: 'secret_whitespace',
    explanation: 'a configured secret has leading or trailing whitespace (e.g. a newline from a file); the sender signed without it',
  } as const;
  if (!keys.length) {
    if (whitespace()) return whitespaceProblem;
    return {
      ok: false,
      problem: 'no_secret',
      explanation: secrets.length ? 'no configured secret is a Standard Webhooks secret (whsec_ + base64 of 24–64 bytes)' : 'no secret is configured to check signatures with',
    };
  }
  const i = match(body, keys.map(([k]) => k));
  if (i >= 0) return { ok: true, secretIndex: keys[i]![1], id: id!, timestamp };
  // Diagnosis only runs on failures, so its cost never slows an accepted event.
  for (const variant of reencodedVariants(body))
    if (match(variant, keys.map(([k]) => k)) >= 0)
      return {
        ok: false,
        problem: 'body_reencoded',
        explanation: 'the body was re-encoded after signing (whitespace or formatting changed); verify the signature over the raw bytes as received',
      };
  if (whitespace()) return whitespaceProblem;
  return { ok: false, problem: 'no_secret_matched', explanation: `no configured secret (${secrets.length}) produced this signature: wrong secret, or the body was modified` };
}

// ---- verity scheme

const VERITY_PREFIX = 'sha256=';

type VerityCheck = { ok: true } | { ok: false; code: WebhookVerificationErrorCode; message: string };

function checkVerity(secrets: readonly string[], body: Uint8Array, header: string): VerityCheck {
  const value = header.trim();
  if (!value.startsWith(VERITY_PREFIX) || !/^[0-9a-f]{64}$/.test(value.slice(VERITY_PREFIX.length)))
    return { ok: false, code: 'malformed_signature', message: 'X-Service-Signature must be "sha256=" followed by 64 lowercase hex characters' };
  const expected = [Buffer.from(value.slice(VERITY_PREFIX.length), 'hex')];
  const match = (b: Uint8Array, ss: readonly string[]): number => firstMatch(ss, (s) => createHmac('sha256', s).update(b).digest(), expected);
  if (match(body, secrets) >= 0) return { ok: true };
  for (const variant of reencodedVariants(body))
    if (match(variant, secrets) >= 0)
      return { ok: false, code: 'body_reencoded', message: 'the body was re-encoded after signing; verify the signature over the raw bytes as received' };
  const trimmed = secrets.filter((s) => s.trim() !== s).map((s) => s.trim());
  if (trimmed.length && match(body, trimmed) >= 0)
    return { ok: false, code: 'secret_whitespace', message: 'the secret has leading or trailing whitespace (e.g. a newline from a file)' };
  return { ok: false, code: 'bad_signature', message: 'the signature does not match: wrong secret, or the body was modified' };
}

// ---- the app-facing function

export interface VerifyOptions {
  /**
   * The accepted age in seconds. Standard: |now − webhook-timestamp| (default 300). verity: how
   * old the envelope's `created_at` may be (default 26,770 s, the retry horizon + 15 min: a
   * retry re-sends the original body).
   */
  toleranceSeconds?: number;
  /** The receiver's clock (tests): a Date or milliseconds since the epoch. */
  now?: Date | number;
}

const STANDARD_CODES: Record<StandardProblem, WebhookVerificationErrorCode> = {
  missing_header: 'missing_header',
  malformed_signature: 'malformed_signature',
  malformed_timestamp: 'malformed_timestamp',
  stale_timestamp: 'timestamp_out_of_window',
  future_timestamp: 'timestamp_out_of_window',
  no_secret: 'invalid_secret',
  body_reencoded: 'body_reencoded',
  secret_whitespace: 'secret_whitespace',
  no_secret_matched: 'bad_signature',
};

function rawBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new WebhookVerificationError(
    'body_not_raw',
    `the body must be the raw request bytes (a Buffer or string), got ${rawBody === null ? 'null' : typeof rawBody}: read it before any JSON body parser (e.g. express.raw({ type: "application/json" }))`,
  );
}

function parseEvent(bytes: Uint8Array, scheme: SignatureScheme): WebhookEvent {
  let ev: Partial<Record<'id' | 'type' | 'created_at' | 'data', unknown>>;
  try {
    ev = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as typeof ev;
  } catch {
    throw new WebhookVerificationError('not_json', 'the body is signed correctly but is not JSON', scheme);
  }
  if (
    typeof ev !== 'object' || ev === null ||
    typeof ev.id !== 'string' || !/^wh_[0-9A-Za-z]+$/.test(ev.id) ||
    typeof ev.type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(ev.type) ||
    typeof ev.created_at !== 'string' || Number.isNaN(Date.parse(ev.created_at)) ||
    typeof ev.data !== 'object' || ev.data === null
  )
    throw new WebhookVerificationError('not_an_event', 'the body is not an event envelope (id wh_…, type, created_at, data)', scheme);
  return ev as WebhookEvent;
}

/**
 * Verifies one delivery and returns its event. `rawBody` is the exact bytes received; `secret` is
 * the endpoint's signing secret (an array during a rotation: any may match). Throws a
 * WebhookVerificationError with a `code` (see WebhookVerificationErrorCode) when it does not verify.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeadersLike, secret: string | readonly string[], options: VerifyOptions = {}): WebhookEvent {
  const bytes = rawBytes(rawBody);
  const secrets = (typeof secret === 'string' ? [secret] : [...(secret ?? [])]).filter((s) => typeof s === 'string' && s !== '');
  const header = headerReader(headers ?? {});
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === 'number' ? options.now : options.now.getTime();
  if (header(STANDARD_SIGNATURE_HEADER) !== undefined) {
    if (!secrets.length) throw new WebhookVerificationError('invalid_secret', 'no secret was given to verify with', 'standard');
    const r = checkStandard(secrets, bytes, header, Math.floor(nowMs / 1000), options.toleranceSeconds ?? STANDARD_TOLERANCE_SECONDS);
    if (!r.ok) throw new WebhookVerificationError(STANDARD_CODES[r.problem], r.explanation, 'standard');
    return parseEvent(bytes, 'standard');
  }
  const sig = header(VERITY_SIGNATURE_HEADER);
  if (sig === undefined || sig === '')
    throw new WebhookVerificationError('missing_signature', 'the request has neither an X-Service-Signature nor a webhook-signature header');
  if (!secrets.length) throw new WebhookVerificationError('invalid_secret', 'no secret was given to verify with', 'verity');
  const r = checkVerity(secrets, bytes, sig);
  if (!r.ok) throw new WebhookVerificationError(r.code, r.message, 'verity');
  const ev = parseEvent(bytes, 'verity');
  const ageSeconds = (nowMs - Date.parse(ev.created_at)) / 1000;
  const tolerance = options.toleranceSeconds ?? VERITY_TOLERANCE_SECONDS;
  if (ageSeconds > tolerance)
    throw new WebhookVerificationError('timestamp_out_of_window', `the event was created ${Math.round(ageSeconds)} s ago, beyond the ${tolerance} s window: refused as a replay`, 'verity');
  if (-ageSeconds > VERITY_FUTURE_SKEW_SECONDS)
    throw new WebhookVerificationError('timestamp_out_of_window', 'the event is dated more than 5 minutes in the future (clock skew or forgery)', 'verity');
  return ev;
}
