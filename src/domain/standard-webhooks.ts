/**
 * Standard Webhooks (github.com/standard-webhooks/standard-webhooks), the per-endpoint
 * alternative to SPEC 6.3's `X-Service-Signature`: the service's side — secrets in the
 * specification's format, signing at send time, and the previous secret's overlap after a
 * rotation. The verification rules live once, in the dependency-free app module
 * (src/webhooks-verify), which `verity listen` and apps both use.
 *
 * Secrets follow the scheme: a `verity` endpoint's secret is any 32–256 characters and the HMAC
 * key is its text (SPEC 6.3, unchanged); a `standard` endpoint's secret is `whsec_` + base64 of
 * 24–64 random bytes and the key is those bytes, as every Standard Webhooks library reads it.
 */
import { randomBytes } from 'node:crypto';
import {
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  standardSecretKey,
  standardSignature,
  type SignatureScheme,
} from '../webhooks-verify/index.js';

export { checkStandard, schemeOf, standardSecretKey, type SignatureScheme, type StandardProblem } from '../webhooks-verify/index.js';
export { STANDARD_ID_HEADER, STANDARD_SIGNATURE_HEADER, STANDARD_TIMESTAMP_HEADER };

export const SIGNATURE_SCHEMES = ['verity', 'standard'] as const satisfies readonly SignatureScheme[];
export const DEFAULT_SIGNATURE_SCHEME: SignatureScheme = 'verity';

/** Bytes of a generated Standard Webhooks key (256 bits; the specification allows 24–64). */
const GENERATED_KEY_BYTES = 32;

/** `whsec_` + base64 of 32 random bytes (50 characters). */
export function generateStandardSecret(): string {
  return `whsec_${randomBytes(GENERATED_KEY_BYTES).toString('base64')}`;
}

/** Why a given secret cannot sign for a `standard` endpoint, or undefined when it can. */
export function standardSecretProblem(secret: string): string | undefined {
  const k = standardSecretKey(secret);
  return 'problem' in k ? k.problem : undefined;
}

/**
 * After a rotation a `standard` endpoint's deliveries carry a signature by the new secret AND
 * one by the previous secret for this long (the specification's space-separated signatures), so
 * a receiver can switch secrets at any time within the day. The `verity` scheme's single header
 * value has no room for two: there the receiver holds both secrets instead.
 */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60_000;

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` is the event id (the same on every
 * retry, so receivers deduplicate on it), `webhook-timestamp` the attempt's time in seconds.
 * `secrets` are the current one first, then the previous one during its overlap.
 */
export function standardHeaders(secrets: readonly string[], eventId: string, nowMs: number, body: string): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const signatures = secrets.map((s) => {
    const k = standardSecretKey(s);
    // Registration and rotation refuse such secrets; a row edited by hand is reported, never signed with garbage.
    if ('problem' in k) throw Object.assign(new Error(`the webhook secret cannot sign Standard Webhooks: ${k.problem}`), { name: 'SigningError' });
    return standardSignature(k.key, eventId, timestamp, body);
  });
  return {
    [STANDARD_ID_HEADER]: eventId,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: signatures.join(' '),
  };
}
