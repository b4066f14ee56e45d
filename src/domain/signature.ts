/**
 * Webhook signatures (SPEC 6.3, DESIGN.md): `X-Service-Signature: sha256=<lowercase hex
 * HMAC-SHA256 of the raw body>`, keyed with the webhook secret. Pure functions: no I/O, no clock.
 *
 * Verification compares in constant time (crypto.timingSafeEqual over equal-length digests) and,
 * when nothing matches, says why — the usual causes are a missing header, a wrong prefix, the
 * wrong secret, or a body that was parsed and re-serialised before checking.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
// The re-encodings a diagnosis tries are the apps' verifier's (one list for listen and apps).
import { reencodedVariants } from '../webhooks-verify/index.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_ID_HEADER = 'x-service-event-id';
export const EVENT_TYPE_HEADER = 'x-service-event-type';
export const ATTEMPT_HEADER = 'x-service-attempt';
/** Which registered webhook (we_…) a delivery is for: lets a receiver say which one failed. */
export const WEBHOOK_ID_HEADER = 'x-service-webhook-id';
/**
 * `1` on deliveries of a replay (`verity webhooks replay`, POST /v1/events/{id}/replay), so a
 * receiver that deduplicates by event id can still hand a deliberate resend to its app. It is not
 * covered by the signature (the body is the original, byte for byte): it can only make a
 * receiver re-process a genuine, fresh, signed event, never accept a forged one.
 */
export const REPLAY_HEADER = 'x-service-replay';
const PREFIX = 'sha256=';

export function hmacHex(secret: string, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** The header value for a body: `sha256=` + lowercase hex. */
export function sign(secret: string, body: Uint8Array | string): string {
  return PREFIX + hmacHex(secret, body);
}

export type SignatureProblem =
  | 'missing_header'
  | 'wrong_prefix'
  | 'malformed_digest'
  | 'no_secret'
  | 'body_reencoded'
  | 'secret_whitespace'
  | 'no_secret_matched';

export type SignatureCheck =
  | { ok: true; secretIndex: number }
  | { ok: false; problem: SignatureProblem; explanation: string };

const LOWER_HEX_DIGEST = /^[0-9a-f]{64}$/;
const digestOf = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** Constant-time: every secret is tried, and each comparison is over 32-byte digests. */
function matchIndex(secrets: readonly string[], body: Uint8Array | string, expected: Buffer): number {
  let found = -1;
  for (let i = 0; i < secrets.length; i++) {
    const ok = timingSafeEqual(createHmac('sha256', secrets[i]!).update(body).digest(), expected);
    if (ok && found < 0) found = i;
  }
  return found;
}

/**
 * Checks a signature header over the raw body against one or more secrets (several during a
 * rotation). `header` is the raw header value or undefined when absent.
 */
export function verifySignature(secrets: readonly string[], body: Buffer, header: string | string[] | undefined): SignatureCheck {
  if (secrets.length === 0) return { ok: false, problem: 'no_secret', explanation: 'no secret is configured to check signatures with' };
  if (Array.isArray(header)) header = header[0];
  if (header === undefined || header === '')
    return { ok: false, problem: 'missing_header', explanation: 'the request has no X-Service-Signature header' };
  const value = header.trim();
  if (!value.startsWith(PREFIX)) {
    const prefix = value.includes('=') ? `"${value.slice(0, value.indexOf('=') + 1)}"` : 'no "algorithm=" prefix';
    return {
      ok: false,
      problem: 'wrong_prefix',
      explanation: `the signature must start with "sha256=", got ${prefix}`,
    };
  }
  const hex = value.slice(PREFIX.length);
  // One test for the well-formed digest; the two explanations are worked out only when it fails.
  if (!LOWER_HEX_DIGEST.test(hex)) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex))
      return {
        ok: false,
        problem: 'malformed_digest',
        explanation: `the digest must be 64 hex characters, got ${hex.length} characters${/[^0-9a-fA-F]/.test(hex) ? ' with non-hex ones' : ''}`,
      };
    return { ok: false, problem: 'malformed_digest', explanation: 'the digest must be lowercase hex (SPEC 6.3); it has uppercase letters' };
  }
  const expected = digestOf(hex);
  const i = matchIndex(secrets, body, expected);
  if (i >= 0) return { ok: true, secretIndex: i };

  // Diagnosis only runs on failures, so its cost never slows an accepted event.
  for (const variant of reencodedVariants(body))
    if (matchIndex(secrets, variant, expected) >= 0)
      return {
        ok: false,
        problem: 'body_reencoded',
        explanation:
          'the body was re-encoded after signing (whitespace or formatting changed); verify the signature over the raw bytes as received',
      };
  const trimmed = secrets.map((s) => s.trim()).filter((s, k) => s !== secrets[k]);
  if (trimmed.length && matchIndex(trimmed, body, expected) >= 0)
    return {
      ok: false,
      problem: 'secret_whitespace',
      explanation: 'a configured secret has leading or trailing whitespace (e.g. a newline from a file); the sender signed without it',
    };
  return {
    ok: false,
    problem: 'no_secret_matched',
    explanation: `no configured secret (${secrets.length}) produced this signature: wrong secret, or the body was modified`,
  };
}

/** A secret for display: first 6 and last 4 characters only (DESIGN.md: secrets never in full). */
export function secretHint(secret: string): string {
  return secret.length <= 12 ? '…' : `${secret.slice(0, 6)}…${secret.slice(-4)}`;
}
