/**
 * PDF signature checks (ISO 32000-1 §12.8, ISO 32000-2 §12.8.5, ETSI EN 319 142):
 *  - the `/ByteRange` must start at 0, leave out exactly the `/Contents` hex string, and end on a
 *    revision boundary;
 *  - the CMS is verified cryptographically (signing/cms-verify.ts): the messageDigest against the
 *    hash of the signed bytes, the signature over the signed attributes, the signing-certificate
 *    attribute; `adbe.pkcs7.sha1` compares its encapsulated SHA-1 with the signed bytes;
 *    `ETSI.RFC3161` document time-stamps compare the token's messageImprint with the signed bytes
 *    and verify the token's own signature (signing/timestamp.ts); a signature time-stamp (unsigned
 *    attribute) must stamp the signature value;
 *  - trust is decided apart from integrity (signing/certificate-status.ts): a chain to the
 *    configured anchors, validity at the validation time, revocation from embedded CRL/OCSP/DSS.
 * `problems` lists only what proves the signed bytes or the signature were altered (analyze.ts
 * raises `signature_forgery` for them); an untrusted or self-signed signer, or an algorithm that
 * cannot be checked, is reported in `trust`/`notes` and is never a problem.
 */
import { X509Certificate } from 'node:crypto';
import { digestByName } from '../signing/algorithms.js';
import { evaluateTrust, type TimeSource, type TrustEvaluation, type TrustInput, type TrustStatus } from '../signing/certificate-status.js';
import { verifyCms, type CmsVerification, type Integrity } from '../signing/cms-verify.js';
import { verifyTimestampToken, type TimestampVerification } from '../signing/timestamp.js';
import { NO_ANCHORS, type TrustAnchors } from '../signing/trust-store.js';
import { isDict, isRef, nameOf, refOf, stringOf, decodeTextString, type PdfDict, type PdfValue } from './objects.js';
import { parsePdfDate } from './pdf-date.js';
import { signatureByteRanges } from './signature-dicts.js';
import { decodeStream, resolveRef, resolveValue, type PdfStructure } from './structure.js';

export { parsePdfDate };

export type { Integrity, TrustStatus };

export interface SignatureTimestamp {
  time: string | null;
  integrity: Integrity;
  /** The time-stamping authority's certificate subject. */
  authority: string | null;
  trust: TrustStatus;
}

export interface SignatureCheck {
  objNum: number;
  subFilter: string | null;
  /** `/M` of the signature dictionary, else the CMS signingTime attribute (both are claims). */
  signingTime: string | null;
  byteRange: [number, number, number, number];
  /** The signed ranges reach the last byte of the file. */
  coversWholeFile: boolean;
  /** The one gap is exactly the `/Contents <…>` string. */
  gapIsContents: boolean;
  /** Bytes of the file after the signed range. */
  bytesAfter: number;
  /** Index of the revision whose end the signature covers; null when it ends mid-revision. */
  revisionIndex: number | null;
  /** The hash of the signed bytes equals the one the signature commits to (messageDigest, the
   * SHA-1 content of adbe.pkcs7.sha1, or a document time-stamp's messageImprint); null when not checkable. */
  digestMatches: boolean | null;
  digestAlgorithm: string | null;
  /** Failures that prove alteration: ByteRange outside the rules, a digest or a signature value that does not verify. */
  problems: string[];
  /** `signature` (a signer's CMS) or `document_timestamp` (ETSI.RFC3161, PAdES-LTA). */
  kind: 'signature' | 'document_timestamp';
  /** The field's `/T` (fully qualified with parents' names) when a field points at this signature. */
  field: string | null;
  /** valid: every cryptographic check passed; broken: one failed (also listed in problems); unknown: could not be checked (see notes). */
  integrity: Integrity;
  signatureAlgorithm: string | null;
  /** Signer (or time-stamping authority) certificate subject. */
  signer: string | null;
  trust: TrustStatus;
  /** How trust was decided (chain, validation time, revocation), one sentence. */
  trustDetail: string | null;
  trustEvaluation: TrustEvaluation | null;
  /** A signature time-stamp token (unsigned attribute), when present. */
  timestamp: SignatureTimestamp | null;
  /** Why integrity is unknown, and other remarks that are not proof of alteration. */
  notes: string[];
}

export interface SignatureCheckOptions {
  /** `document.trust_anchors` (trust-store.ts); none → trust `unknown`. */
  anchors?: TrustAnchors;
  /** Validation time when neither a time-stamp nor a claimed signing time exists (the engine clock). */
  now?: Date;
}

export function checkSignatures(bytes: Buffer, s: PdfStructure, options: SignatureCheckOptions = {}): SignatureCheck[] {
  const out: SignatureCheck[] = [];
  const seen = new Set<string>();
  let context: PdfContext | undefined;
  for (const { num, dict: d, range } of signatureByteRanges(s)) {
    const key = range.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    context ??= readContext(bytes, s);
    // Past the cap a signature is still checked for its ByteRange, not cryptographically (bounded work).
    out.push(checkOne(bytes, s, num, d, range, context, options, out.length < MAX_VERIFIED_SIGNATURES));
  }
  out.sort((a, b) => a.byteRange[2] + a.byteRange[3] - (b.byteRange[2] + b.byteRange[3]));
  applyDocumentTimestamps(out);
  return out;
}

/** What evaluateTrust needs to run again for a signature (kept off the exported result). */
const trustInputs = new WeakMap<SignatureCheck, Omit<TrustInput, 'time'>>();

/**
 * PAdES-LTA (ETSI EN 319 142-1 §5.5): a valid document time-stamp proves that every signature it
 * covers existed at its time. A signature without its own time-stamp is therefore validated at
 * the earliest covering document time-stamp, a proven time, instead of the time it claims.
 */
function applyDocumentTimestamps(sigs: SignatureCheck[]): void {
  const stamps = sigs.filter((x) => x.kind === 'document_timestamp' && x.integrity === 'valid' && x.signingTime);
  if (!stamps.length) return;
  const end = (x: SignatureCheck): number => x.byteRange[2] + x.byteRange[3];
  for (const sig of sigs) {
    const input = trustInputs.get(sig);
    if (!input || sig.trustEvaluation?.timeSource === 'timestamp') continue;
    const covering = stamps.filter((t) => t !== sig && end(t) > end(sig)).sort((a, b) => Date.parse(a.signingTime!) - Date.parse(b.signingTime!))[0];
    if (!covering) continue;
    const t = evaluateTrust({ ...input, time: { at: new Date(covering.signingTime!), source: 'timestamp' } });
    sig.trust = t.trust;
    sig.trustDetail = `${t.summary} (the time of document time-stamp ${covering.objNum} 0 obj, which covers this signature)`;
    sig.trustEvaluation = t;
    sig.notes.push(...t.notes);
  }
}

/** What every signature of the file shares: the /DSS certificates and revocation data, and field names. */
interface PdfContext {
  dssCerts: X509Certificate[];
  dssCrls: Buffer[];
  dssOcsps: Buffer[];
  /** signature dictionary object number → field name */
  fields: Map<number, string>;
}

/** Bounds on what is read from /DSS (ETSI EN 319 142-1 §5.4.2): enough for any real LTV file. */
const MAX_DSS_ITEMS = 64;
const MAX_FIELD_DEPTH = 16;
/** Signatures verified cryptographically per file (a real file has a handful; each costs a CMS parse). */
export const MAX_VERIFIED_SIGNATURES = 50;

function dssStreams(bytes: Buffer, s: PdfStructure, dss: PdfDict, key: string): Buffer[] {
  const out: Buffer[] = [];
  const arr = resolveValue(s, dss.entries.get(key));
  if (!Array.isArray(arr)) return out;
  for (const v of arr.slice(0, MAX_DSS_ITEMS)) {
    const obj = isRef(v) ? resolveRef(s, v) : undefined;
    const data = obj ? decodeStream(bytes, obj) : undefined;
    if (data) out.push(data);
  }
  return out;
}

function fieldName(s: PdfStructure, d: PdfDict): string | null {
  const parts: string[] = [];
  let cur: PdfDict | undefined = d;
  for (let i = 0; cur && i < MAX_FIELD_DEPTH; i++) {
    const t = decodeTextString(stringOf(cur, 'T'));
    if (t) parts.unshift(t);
    const parent: PdfValue | undefined = resolveValue(s, cur.entries.get('Parent'));
    cur = isDict(parent) ? parent : undefined;
  }
  return parts.length ? parts.join('.') : null;
}

function readContext(bytes: Buffer, s: PdfStructure): PdfContext {
  const ctx: PdfContext = { dssCerts: [], dssCrls: [], dssOcsps: [], fields: new Map() };
  const root = resolveRef(s, refOf(s.trailer, 'Root'))?.value;
  const dss = isDict(root) ? resolveValue(s, root.entries.get('DSS')) : undefined;
  if (isDict(dss) && !s.encrypted) {
    for (const der of dssStreams(bytes, s, dss, 'Certs')) {
      try {
        ctx.dssCerts.push(new X509Certificate(der));
      } catch {
        /* an unreadable certificate in the DSS does not help any chain */
      }
    }
    ctx.dssCrls = dssStreams(bytes, s, dss, 'CRLs');
    ctx.dssOcsps = dssStreams(bytes, s, dss, 'OCSPs');
  }
  // Signature fields (and merged field/widget dictionaries) whose /V points at a signature dictionary.
  for (const list of s.versions.values()) {
    const d = list[list.length - 1]!.value;
    if (!isDict(d)) continue;
    const v = d.entries.get('V');
    if (isRef(v) && (nameOf(d, 'FT') === 'Sig' || d.entries.has('T'))) {
      const name = fieldName(s, d);
      if (name && !ctx.fields.has(v.num)) ctx.fields.set(v.num, name);
    }
  }
  return ctx;
}

const subjectOf = (c: X509Certificate | null): string | null => (c ? c.subject.replace(/\n/g, ', ') : null);

function checkOne(bytes: Buffer, s: PdfStructure, objNum: number, d: PdfDict, br: [number, number, number, number], ctx: PdfContext, options: SignatureCheckOptions, verify: boolean): SignatureCheck {
  const [a, b, c, len2] = br;
  const problems: string[] = [];
  const notes: string[] = [];
  const size = bytes.length;
  const end = c + len2;
  if (a !== 0) problems.push(`the signed range starts at byte ${a}, not at the start of the file`);
  if (end > size) problems.push(`the signed range ends at byte ${end}, past the end of the ${size}-byte file`);
  const gap = bytes.subarray(a + b, Math.min(c, size)).toString('latin1');
  const gapIsContents = c > a + b && /^<[0-9A-Fa-f\s]*>$/.test(gap);
  if (!gapIsContents) problems.push('the unsigned gap is not exactly the signature /Contents string: bytes outside the signature are unsigned');
  const revisionIndex = s.revisions.find((r) => r.end === end || (r.end > end && r.end - end <= 2 && /^[\r\n]*$/.test(bytes.subarray(end, r.end).toString('latin1'))))?.index ?? null;
  if (revisionIndex === null && end <= size) problems.push(`the signed range ends at byte ${end}, which is not the end of any revision`);

  const subFilter = nameOf(d, 'SubFilter') ?? null;
  const isDocTimestamp = subFilter === 'ETSI.RFC3161' || nameOf(d, 'Type') === 'DocTimeStamp';
  const out: SignatureCheck = {
    objNum,
    subFilter,
    signingTime: parsePdfDate(decodeTextString(stringOf(d, 'M')) ?? null),
    byteRange: br,
    coversWholeFile: end === size || (end < size && /^[\s\0]*$/.test(bytes.subarray(end).toString('latin1'))),
    gapIsContents,
    bytesAfter: Math.max(0, size - end),
    revisionIndex,
    digestMatches: null,
    digestAlgorithm: null,
    problems,
    kind: isDocTimestamp ? 'document_timestamp' : 'signature',
    field: ctx.fields.get(objNum) ?? null,
    integrity: 'unknown',
    signatureAlgorithm: null,
    signer: null,
    trust: 'unknown',
    trustDetail: null,
    trustEvaluation: null,
    timestamp: null,
    notes,
  };

  const contents = stringOf(d, 'Contents');
  if (!verify) {
    notes.push(`more than ${MAX_VERIFIED_SIGNATURES} signatures: this one was not verified cryptographically`);
    return finish(out);
  }
  if (subFilter === 'adbe.x509.rsa_sha1') {
    notes.push('SubFilter adbe.x509.rsa_sha1 (a bare PKCS#1 signature, deprecated in PDF 2.0) is not verified');
    return finish(out);
  }
  if (!contents || end > size || a !== 0 || a + b > size || c > size) {
    notes.push(contents ? 'the signed ranges lie outside the file: the signature was not checked' : 'the signature dictionary has no /Contents');
    return finish(out);
  }
  const der = Buffer.from(contents.bytes, 'latin1');
  const signedBytes = [bytes.subarray(a, a + b), bytes.subarray(c, end)];
  let cms: CmsVerification;
  let docStamp: TimestampVerification | undefined;
  if (isDocTimestamp) {
    docStamp = verifyTimestampToken(der, signedBytes);
    cms = docStamp.cms;
    out.digestAlgorithm = docStamp.imprintAlgorithm;
    if (docStamp.imprintAlgorithm) out.digestMatches = !docStamp.problems.some((p) => p.includes('messageImprint'));
    problems.push(...docStamp.problems);
    notes.push(...docStamp.notes);
    out.integrity = docStamp.integrity;
    if (docStamp.time) out.signingTime = docStamp.time;
  } else if (subFilter === 'adbe.pkcs7.sha1') {
    // The CMS encapsulates the SHA-1 of the signed bytes and signs that (ISO 32000-1 §12.8.3.3.1).
    cms = verifyCms(der);
    problems.push(...cms.problems);
    notes.push(...cms.notes);
    out.integrity = cms.integrity;
    out.digestAlgorithm = 'sha1';
    if (cms.eContent) {
      out.digestMatches = digestByName('sha1', signedBytes)!.equals(cms.eContent);
      if (!out.digestMatches) {
        problems.push('the SHA-1 digest the signature encapsulates does not match the signed bytes: the signed bytes were altered');
        out.integrity = 'broken';
      }
    } else if (out.integrity === 'valid') {
      out.integrity = 'unknown';
      notes.push('the adbe.pkcs7.sha1 signature encapsulates no digest');
    }
  } else {
    if (subFilter && !['adbe.pkcs7.detached', 'ETSI.CAdES.detached'].includes(subFilter)) notes.push(`SubFilter ${subFilter} is not one ISO 32000 defines for CMS; checked as a detached CMS`);
    cms = verifyCms(der, signedBytes);
    problems.push(...cms.problems);
    notes.push(...cms.notes);
    out.integrity = cms.integrity;
    out.digestAlgorithm = cms.digestAlgorithm;
    // With signed attributes the messageDigest says it; without, only a verified signature does.
    out.digestMatches = cms.messageDigestMatches ?? (cms.integrity === 'valid' ? true : cms.integrity === 'broken' ? false : null);
  }
  out.signatureAlgorithm = cms.signatureAlgorithm;
  out.signer = subjectOf(cms.signer);
  out.signingTime ??= cms.signingTime;

  // A signature time-stamp (unsigned attribute) must stamp this signature's value.
  let tsVerified: TimestampVerification | undefined;
  if (cms.signatureValue && cms.signatureTimestampTokens[0]) {
    tsVerified = verifyTimestampToken(cms.signatureTimestampTokens[0], [cms.signatureValue]);
    out.timestamp = { time: tsVerified.time, integrity: tsVerified.integrity, authority: subjectOf(tsVerified.tsa), trust: 'unknown' };
    if (tsVerified.integrity === 'broken') {
      problems.push(...tsVerified.problems.map((p) => `signature time-stamp: ${p}`));
      out.integrity = 'broken';
    } else if (tsVerified.integrity === 'unknown') notes.push(...tsVerified.notes.map((n) => `signature time-stamp: ${n}`));
  }

  // ---- trust, apart from integrity
  const anchors = options.anchors ?? NO_ANCHORS;
  const pool = [...cms.certificates, ...ctx.dssCerts, ...(tsVerified?.cms.certificates ?? [])];
  const revocation = { crls: [...cms.crls, ...ctx.dssCrls], ocsps: [...cms.ocsps, ...ctx.dssOcsps] };
  const time = validationTime(out, tsVerified, docStamp, options.now);
  if (cms.signer) {
    trustInputs.set(out, { signer: cms.signer, pool, anchors, revocation });
    const t = evaluateTrust({ signer: cms.signer, pool, anchors, revocation, time });
    out.trust = t.trust;
    out.trustDetail = t.summary;
    out.trustEvaluation = t;
    notes.push(...t.notes);
  } else out.trustDetail = 'the signer certificate is not in the signature: trust cannot be decided';
  if (tsVerified?.tsa && out.timestamp) {
    const tsaTime = { at: tsVerified.time ? new Date(tsVerified.time) : (options.now ?? new Date()), source: 'timestamp' as TimeSource };
    out.timestamp.trust = evaluateTrust({ signer: tsVerified.tsa, pool, anchors, revocation, time: tsaTime }).trust;
  }
  return finish(out);
}

/** The time a certificate must be valid at: a verified time-stamp, else the claimed signing time, else now. */
function validationTime(sig: SignatureCheck, ts: TimestampVerification | undefined, doc: TimestampVerification | undefined, now: Date | undefined): { at: Date; source: TimeSource } {
  if (doc?.time && doc.integrity === 'valid') return { at: new Date(doc.time), source: 'timestamp' };
  if (ts?.time && ts.integrity === 'valid') return { at: new Date(ts.time), source: 'timestamp' };
  if (sig.signingTime) return { at: new Date(sig.signingTime), source: 'signing_time' };
  return { at: now ?? new Date(), source: 'now' };
}

function finish(sig: SignatureCheck): SignatureCheck {
  if (sig.problems.length) sig.integrity = 'broken';
  return sig;
}

/** The signature summary of the document result (src/api/results.ts `signatures`). */
export interface SignatureSummaryItem {
  field: string | null;
  kind: 'signature' | 'document_timestamp';
  signer: string | null;
  signed_at: string | null;
  integrity: Integrity;
  trust: TrustStatus;
  algorithm: string | null;
  digest_algorithm: string | null;
  timestamp: SignatureTimestamp | null;
  covers_whole_document: boolean;
  problems: string[];
  notes: string[];
}

export function signatureSummary(sig: SignatureCheck): SignatureSummaryItem {
  return {
    field: sig.field,
    kind: sig.kind,
    signer: sig.signer,
    signed_at: sig.signingTime,
    integrity: sig.integrity,
    trust: sig.trust,
    algorithm: sig.signatureAlgorithm,
    digest_algorithm: sig.digestAlgorithm,
    timestamp: sig.timestamp,
    covers_whole_document: sig.coversWholeFile,
    problems: sig.problems.slice(0, 5),
    notes: sig.notes.slice(0, 5),
  };
}

/**
 * The evidence line about integrity and trust for one signature. It never carries a flag: an
 * untrusted signer is reported, not treated as forgery (a broken signature is in `problems`, which
 * analyze.ts flags). Severity is small and only for signers that are positively not trustworthy.
 */
export function signatureTrustFinding(sig: SignatureCheck): { source: string; finding: string; authority: number; severity: number } {
  const who = sig.signer ? `signer "${sig.signer.slice(0, 120)}"` : 'signer unknown';
  const what = sig.kind === 'document_timestamp' ? 'document time-stamp' : 'signature';
  const integrity =
    sig.integrity === 'valid'
      ? `the ${sig.signatureAlgorithm ? `${sig.signatureAlgorithm} ` : ''}${what} verifies cryptographically`
      : sig.integrity === 'broken'
        ? `the ${what} does not verify`
        : `the ${what} could not be verified cryptographically (${sig.notes[0] ?? 'unknown reason'})`;
  const ts = sig.timestamp
    ? `; signature time-stamp ${sig.timestamp.time ?? '(no time)'} ${sig.timestamp.integrity === 'valid' ? 'verifies' : sig.timestamp.integrity === 'broken' ? 'does not verify' : 'could not be verified'} (TSA trust ${sig.timestamp.trust})`
    : '';
  return {
    source: 'pdf_signature_trust',
    finding: `signature ${sig.objNum} 0 obj${sig.field ? ` (field ${sig.field})` : ''}, ${who}: ${integrity}; trust ${sig.trust}: ${sig.trustDetail ?? 'not evaluated'}${ts}`,
    authority: 0.9,
    severity: sig.trust === 'revoked' ? 0.3 : sig.trust === 'expired' ? 0.1 : 0,
  };
}

/**
 * Provenance strength of intact signatures (the `source_authority` dimension): a signer that
 * chains to a configured anchor counts most; a signature whose cryptography could not be checked
 * counts little, because nothing was proven.
 */
export function signatureProvenance(sigs: readonly SignatureCheck[]): number {
  if (sigs.some((x) => x.integrity === 'valid' && x.trust === 'trusted' && x.kind === 'signature')) return 0.95;
  if (sigs.some((x) => x.integrity === 'valid')) return sigs.some((x) => x.trust === 'revoked') ? 0.5 : 0.85;
  return 0.6;
}
