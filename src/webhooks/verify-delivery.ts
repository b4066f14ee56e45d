/**
 * The signature check `verity listen` runs on a delivery, for either scheme (issue 29): the
 * headers say which — `webhook-signature` is Standard Webhooks, otherwise SPEC 6.3's
 * `X-Service-Signature`. Both answer in the same shape (ok + which secret, or a problem code and
 * an explanation), so the listener refuses both alike.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADER, verifySignature, type SignatureProblem } from '../domain/signature.js';
import { checkStandard, STANDARD_SIGNATURE_HEADER, type SignatureScheme, type StandardProblem } from '../domain/standard-webhooks.js';

export type DeliveryProblem = SignatureProblem | StandardProblem;
/** `scheme` is set for Standard Webhooks only: the verity path returns verifySignature's answer as is (no copy per request). */
export type DeliveryCheck =
  | { ok: true; secretIndex: number; scheme?: SignatureScheme }
  | { ok: false; problem: DeliveryProblem; explanation: string; scheme?: SignatureScheme };

/** Standard Webhooks' replay window on `webhook-timestamp` (the specification's recommendation). */
export const STANDARD_TOLERANCE_S = 5 * 60;

export function checkDelivery(secrets: readonly string[], body: Buffer, headers: IncomingHttpHeaders, nowMs: number): DeliveryCheck {
  // Node lowercases header names: one property read, no copy of the headers on the hot path.
  if (headers[STANDARD_SIGNATURE_HEADER] === undefined) return verifySignature(secrets, body, headers[SIGNATURE_HEADER]);
  const header = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const r = checkStandard(secrets, body, header, Math.floor(nowMs / 1000), STANDARD_TOLERANCE_S);
  return r.ok ? { ok: true, secretIndex: r.secretIndex, scheme: 'standard' } : { ...r, scheme: 'standard' };
}
