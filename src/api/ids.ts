import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from the CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type VerificationKind = 'claim' | 'business' | 'media' | 'document';
export const KIND_TAG: Record<VerificationKind, string> = {
  claim: 'clm',
  business: 'biz',
  media: 'med',
  document: 'doc',
};

export const verificationId = (kind: VerificationKind): string => `vrf_${KIND_TAG[kind]}_${randomBase62(20)}`;
export const eventId = (): string => `wh_${randomBase62(24)}`;
export const webhookId = (): string => `we_${randomBase62(16)}`;

export const VERIFICATION_ID = /^vrf_(clm|biz|med|doc)_[0-9A-Za-z]+$/;
export const EVENT_ID = /^wh_[0-9A-Za-z]+$/;
export const WEBHOOK_ID = /^we_[0-9A-Za-z]+$/;

export function kindOfId(id: string): VerificationKind | undefined {
  const m = VERIFICATION_ID.exec(id);
  if (!m) return undefined;
  return (Object.keys(KIND_TAG) as VerificationKind[]).find((k) => KIND_TAG[k] === m[1]);
}
