/**
 * RFC 3161 time-stamp tokens: a CMS SignedData whose encapsulated content is a TSTInfo. The token
 * is valid when its own CMS signature verifies (cms-verify.ts) and its messageImprint is the hash
 * of the data it stamps — the document's ByteRange for a PDF document time-stamp (ETSI.RFC3161),
 * the signature value for a signature time-stamp (unsigned attribute id-aa-signatureTimeStampToken).
 */
import type { X509Certificate } from 'node:crypto';
import { TSTInfo } from 'pkijs';
import { digestName, digestOf } from './algorithms.js';
import { OID, verifyCms, type CmsVerification, type Integrity } from './cms-verify.js';

export interface TimestampVerification {
  integrity: Integrity;
  problems: string[];
  notes: string[];
  /** genTime from the TSTInfo (ISO 8601), when readable. */
  time: string | null;
  imprintAlgorithm: string | null;
  /** The time-stamping authority's certificate. */
  tsa: X509Certificate | null;
  cms: CmsVerification;
}

export function verifyTimestampToken(der: Buffer, stamped: readonly Buffer[]): TimestampVerification {
  const cms = verifyCms(der);
  const out: TimestampVerification = { integrity: cms.integrity, problems: [...cms.problems], notes: [...cms.notes], time: null, imprintAlgorithm: null, tsa: cms.signer, cms };
  if (cms.eContentType !== OID.tstInfo || !cms.eContent) {
    out.notes.push(`the token does not encapsulate a TSTInfo (content type ${cms.eContentType ?? 'none'})`);
    if (out.integrity === 'valid') out.integrity = 'unknown';
    return out;
  }
  let tst: TSTInfo;
  try {
    tst = TSTInfo.fromBER(new Uint8Array(cms.eContent));
  } catch {
    out.notes.push('the TSTInfo cannot be parsed');
    if (out.integrity === 'valid') out.integrity = 'unknown';
    return out;
  }
  out.time = tst.genTime.toISOString();
  const hashOid = tst.messageImprint.hashAlgorithm.algorithmId;
  out.imprintAlgorithm = digestName(hashOid);
  const expected = digestOf(hashOid, stamped);
  const claimed = Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView);
  if (!expected) {
    out.notes.push(`the time-stamp imprint uses ${hashOid}, which is not supported`);
    if (out.integrity === 'valid') out.integrity = 'unknown';
  } else if (!expected.equals(claimed)) {
    out.problems.push(`the time-stamp's ${out.imprintAlgorithm} messageImprint does not match the stamped data: the bytes changed after they were time-stamped`);
    out.integrity = 'broken';
  }
  return out;
}
