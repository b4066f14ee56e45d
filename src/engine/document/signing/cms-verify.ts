/**
 * CMS SignedData verification (RFC 5652 §5.4–5.6) for PDF signatures, time-stamp tokens and any
 * detached CMS: pkijs reads the structure; algorithms.ts checks the signature with the algorithm
 * the SignerInfo names. What is checked, in order:
 *  - the signer certificate is the one the SignerInfo's sid names (issuer+serial or key id);
 *  - with signed attributes: messageDigest equals the hash of the content (digestAlgorithm), the
 *    signature covers the DER of the signed attributes, and a signing-certificate(-v2) attribute
 *    (RFC 2634 / RFC 5035) names the signer certificate's hash;
 *  - without them: the signature covers the content itself.
 * Integrity is `valid`, `broken` (a value that does not verify: the bytes or the signature were
 * changed) or `unknown` (an algorithm we cannot run, a structure we cannot read) — never a guess.
 */
import { X509Certificate, createPublicKey } from 'node:crypto';
import * as asn1js from 'asn1js';
import { Certificate, CertificateRevocationList, ContentInfo, SignedData, IssuerAndSerialNumber, type SignerInfo, type Attribute } from 'pkijs';
import { digestName, digestOf, verifySignature } from './algorithms.js';

export type Integrity = 'valid' | 'broken' | 'unknown';

export const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  adbeRevocationInfoArchival: '1.2.840.113583.1.1.8',
  subjectKeyIdentifier: '2.5.29.14',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** At most this many certificates are read from one CMS (chains are short; a bag of thousands is an attack). */
const MAX_CERTS = 64;

export interface CmsVerification {
  integrity: Integrity;
  /** Why integrity is `broken` (each is a failed cryptographic check). */
  problems: string[];
  /** Why integrity is `unknown`, or what is odd but not disproved. */
  notes: string[];
  digestAlgorithm: string | null;
  signatureAlgorithm: string | null;
  /** The signer certificate named by the SignerInfo, when the CMS carries it. */
  signer: X509Certificate | null;
  /** Every certificate the CMS carries (signer first when found). */
  certificates: X509Certificate[];
  /** The signingTime signed attribute (claimed by the signer, not proven). */
  signingTime: string | null;
  signingCertificateAttribute: 'matches' | 'mismatch' | 'absent';
  /** The messageDigest attribute equals the content's hash (null: no signed attributes, or not computable). */
  messageDigestMatches: boolean | null;
  /** The SignerInfo's signature value (what a signature time-stamp's imprint covers). */
  signatureValue: Buffer | null;
  /** The encapsulated content (a TSTInfo for time-stamp tokens; the SHA-1 digest for adbe.pkcs7.sha1). */
  eContentType: string | null;
  eContent: Buffer | null;
  /** Revocation data embedded in the CMS: SignedData.crls and the Adobe revocationInfoArchival attribute. */
  crls: Buffer[];
  ocsps: Buffer[];
  /** DER of each unsigned signature-time-stamp token (id-aa-signatureTimeStampToken). */
  signatureTimestampTokens: Buffer[];
}

const toBuf = (v: ArrayBuffer | ArrayBufferView): Buffer =>
  ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : Buffer.from(v);

function emptyResult(): CmsVerification {
  return {
    integrity: 'unknown',
    problems: [],
    notes: [],
    digestAlgorithm: null,
    signatureAlgorithm: null,
    signer: null,
    certificates: [],
    signingTime: null,
    signingCertificateAttribute: 'absent',
    messageDigestMatches: null,
    signatureValue: null,
    eContentType: null,
    eContent: null,
    crls: [],
    ocsps: [],
    signatureTimestampTokens: [],
  };
}

function octetsOf(v: unknown): Buffer | undefined {
  if (v instanceof asn1js.OctetString) return toBuf(v.valueBlock.valueHexView);
  return undefined;
}

const attr = (list: Attribute[] | undefined, oid: string): Attribute | undefined => list?.find((a) => a.type === oid);

/**
 * The certificates' original bytes, in SignedData order: the children of the `[0] IMPLICIT
 * CertificateSet` of the parsed SignedData (re-encoding them with pkijs would cost far more).
 */
function rawCertificates(signedData: unknown): Buffer[] {
  const seq = signedData as asn1js.Sequence;
  const set = seq.valueBlock?.value?.find((v) => v.idBlock.tagClass === 3 && v.idBlock.tagNumber === 0) as asn1js.Constructed | undefined;
  return (set?.valueBlock?.value ?? []).map((v) => toBuf(v.valueBeforeDecodeView));
}

/** The DER's own length (a PDF /Contents is zero-padded after the CMS). */
function trimDer(der: Buffer): Buffer {
  if (der.length < 2 || der[0] !== 0x30) return der;
  const l = der[1]!;
  if (l < 0x80) return der.subarray(0, 2 + l);
  const n = l & 0x7f;
  if (n === 0 || n > 4 || der.length < 2 + n) return der;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + der[2 + i]!;
  return der.subarray(0, Math.min(der.length, 2 + n + len));
}

function matchesSid(c: Certificate, si: SignerInfo): boolean {
  if (si.sid instanceof IssuerAndSerialNumber) return c.issuer.isEqual(si.sid.issuer) && c.serialNumber.isEqual(si.sid.serialNumber);
  // SubjectKeyIdentifier sid: [0] IMPLICIT OCTET STRING, read by pkijs as a context-tagged primitive.
  const sid = si.sid as { valueBlock?: { valueHexView?: Uint8Array } };
  const ski = octetsOf(si.sid) ?? (sid.valueBlock?.valueHexView ? toBuf(sid.valueBlock.valueHexView) : undefined);
  if (!ski || ski.length === 0) return false;
  const ext = c.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
  const v = ext ? octetsOf(ext.parsedValue) : undefined;
  return !!v && v.equals(ski);
}

/** RFC 2634 SigningCertificate / RFC 5035 SigningCertificateV2: the first ESSCertID's hash names the signer. */
function checkSigningCertificate(a: Attribute, v2: boolean, signerDer: Buffer): { ok: boolean; note?: string } {
  const value = a.values[0];
  const certs = value instanceof asn1js.Sequence ? value.valueBlock.value[0] : undefined;
  const first = certs instanceof asn1js.Sequence ? certs.valueBlock.value[0] : undefined;
  if (!(first instanceof asn1js.Sequence)) return { ok: false, note: 'the signing-certificate attribute cannot be read' };
  const parts = first.valueBlock.value;
  let hashOid: string = v2 ? OID.sha256 : OID.sha1;
  let i = 0;
  if (v2 && parts[0] instanceof asn1js.Sequence) {
    const oid = parts[0].valueBlock.value[0];
    if (oid instanceof asn1js.ObjectIdentifier) hashOid = oid.valueBlock.toString();
    i = 1;
  }
  const want = octetsOf(parts[i]);
  const got = digestOf(hashOid, [signerDer]);
  if (!want) return { ok: false, note: 'the signing-certificate attribute has no certificate hash' };
  if (!got) return { ok: true, note: `the signing-certificate attribute uses ${digestName(hashOid)}, which is not supported; not checked` };
  return { ok: got.equals(want) };
}

function readRevocationArchival(a: Attribute, out: CmsVerification): void {
  // RevocationInfoArchival ::= SEQUENCE { crl [0] EXPLICIT SEQUENCE OF CRL, ocsp [1] EXPLICIT SEQUENCE OF OCSPResponse, ... }
  const seq = a.values[0];
  if (!(seq instanceof asn1js.Sequence)) return;
  for (const tagged of seq.valueBlock.value) {
    const tag = tagged.idBlock.tagNumber;
    const inner = (tagged as asn1js.Constructed).valueBlock?.value?.[0];
    if (!(inner instanceof asn1js.Sequence)) continue;
    for (const item of inner.valueBlock.value.slice(0, MAX_CERTS)) {
      const der = toBuf(item.toBER(false));
      if (tag === 0) out.crls.push(der);
      else if (tag === 1) out.ocsps.push(der);
    }
  }
}

/**
 * Verifies a DER CMS ContentInfo(SignedData). `detached` is the signed content for a detached
 * signature (the PDF ByteRange chunks); without it the encapsulated content is used.
 */
export function verifyCms(der: Buffer, detached?: readonly Buffer[]): CmsVerification {
  const r = emptyResult();
  let sd: SignedData;
  let raws: Buffer[];
  try {
    const ci = ContentInfo.fromBER(new Uint8Array(trimDer(der)));
    if (ci.contentType !== OID.signedData) {
      r.notes.push(`the signature is a CMS ${ci.contentType}, not SignedData`);
      return r;
    }
    sd = new SignedData({ schema: ci.content });
    raws = rawCertificates(ci.content);
  } catch (err) {
    r.notes.push(`the CMS signature cannot be parsed (${(err as Error).message.slice(0, 100)})`);
    return r;
  }
  r.eContentType = sd.encapContentInfo.eContentType;
  const eContent = sd.encapContentInfo.eContent;
  if (eContent) {
    // A constructed OCTET STRING (BER) is read as the concatenation of its parts.
    const parts = eContent.idBlock.isConstructed ? eContent.valueBlock.value.map((p) => octetsOf(p) ?? Buffer.alloc(0)) : [toBuf(eContent.valueBlock.valueHexView)];
    r.eContent = Buffer.concat(parts);
  }
  const pkCerts: { c: Certificate; raw: Buffer }[] = [];
  (sd.certificates ?? []).forEach((c, i) => {
    if (c instanceof Certificate && raws[i] && pkCerts.length < MAX_CERTS) pkCerts.push({ c, raw: raws[i]! });
  });
  for (const c of (sd.crls ?? []).slice(0, MAX_CERTS)) {
    if (!(c instanceof CertificateRevocationList)) continue;
    try {
      r.crls.push(toBuf(c.toSchema(false).toBER(false)));
    } catch {
      /* an unreadable CRL is left out: revocation stays unknown */
    }
  }
  if (sd.signerInfos.length === 0) {
    r.notes.push('the SignedData has no SignerInfo');
    return r;
  }
  if (sd.signerInfos.length > 1) r.notes.push(`the SignedData has ${sd.signerInfos.length} SignerInfos; the first was checked`);
  const si = sd.signerInfos[0]!;
  r.signatureValue = toBuf(si.signature.valueBlock.valueHexView);
  const digestOid = si.digestAlgorithm.algorithmId;
  r.digestAlgorithm = digestName(digestOid);
  const signed = si.signedAttrs?.attributes;
  const unsigned = si.unsignedAttrs?.attributes ?? [];
  for (const a of unsigned) if (a.type === OID.signatureTimeStampToken) for (const v of a.values.slice(0, 4)) r.signatureTimestampTokens.push(toBuf(v.toBER(false)));
  const archival = attr(signed, OID.adbeRevocationInfoArchival);
  if (archival) readRevocationArchival(archival, r);

  let signerCert: Certificate | undefined;
  for (const { c, raw } of pkCerts) {
    try {
      const x = new X509Certificate(raw);
      if (!signerCert && matchesSid(c, si)) {
        signerCert = c;
        r.signer = x;
        r.certificates.unshift(x);
      } else r.certificates.push(x);
    } catch {
      r.notes.push('a certificate in the CMS cannot be read');
    }
  }
  const st = attr(signed, OID.signingTime)?.values[0];
  if (st instanceof asn1js.UTCTime || st instanceof asn1js.GeneralizedTime) r.signingTime = st.toDate().toISOString();

  const content: readonly Buffer[] | undefined = r.eContent ? [r.eContent] : detached;
  if (!content) {
    r.notes.push('the CMS has no content and none was given');
    return r;
  }
  if (!signerCert || !r.signer) {
    r.notes.push('the CMS does not carry the signer certificate its SignerInfo names; the signature cannot be checked');
    return r;
  }

  let data: Buffer;
  if (signed) {
    const md = octetsOf(attr(signed, OID.messageDigest)?.values[0]);
    if (!md) {
      r.problems.push('the signed attributes have no messageDigest');
      r.integrity = 'broken';
      return r;
    }
    const actual = digestOf(digestOid, content);
    if (!actual) {
      r.notes.push(`digest algorithm ${digestOid} is not supported; the signature could not be checked`);
      return r;
    }
    r.messageDigestMatches = actual.equals(md);
    if (!r.messageDigestMatches) r.problems.push(`the ${r.digestAlgorithm} digest of the signed content does not match the signature's messageDigest: the signed bytes were altered`);
    const ct = attr(signed, OID.contentType)?.values[0];
    if (ct instanceof asn1js.ObjectIdentifier && ct.valueBlock.toString() !== r.eContentType)
      r.problems.push(`the contentType attribute (${ct.valueBlock.toString()}) differs from the encapsulated content type (${r.eContentType})`);
    const signerDer = r.signer.raw;
    const v1 = attr(signed, OID.signingCertificate);
    const v2 = attr(signed, OID.signingCertificateV2);
    const sc = v2 ? checkSigningCertificate(v2, true, signerDer) : v1 ? checkSigningCertificate(v1, false, signerDer) : undefined;
    if (sc) {
      r.signingCertificateAttribute = sc.ok ? 'matches' : 'mismatch';
      if (sc.note) r.notes.push(sc.note);
      if (!sc.ok) r.problems.push("the signing-certificate attribute names a different certificate than the one that signed: the signer's certificate was substituted");
    }
    data = toBuf(si.signedAttrs!.encodedValue);
  } else data = content.length === 1 ? content[0]! : Buffer.concat(content);

  let key;
  try {
    key = r.signer.publicKey ?? createPublicKey({ key: r.signer.raw, format: 'der', type: 'spki' });
  } catch (err) {
    r.notes.push(`the signer's public key cannot be used (${(err as Error).message.slice(0, 80)})`);
    return r;
  }
  const input = {
    algorithmOid: si.signatureAlgorithm.algorithmId,
    algorithmParams: si.signatureAlgorithm.algorithmParams as asn1js.AsnType | undefined,
    digestOid,
    key,
    data,
    signature: r.signatureValue,
  };
  let check = verifySignature(input);
  if (check.outcome === 'invalid' && signed) {
    // RFC 5652 §5.4: the signature covers the DER of the signed attributes. A signer that wrote
    // them in BER (indefinite lengths) signed the DER form, which differs from the bytes in the file.
    // DER sorts a SET OF by its elements' encodings; both orders are tried.
    const parts = signed.map((a) => toBuf(a.toSchema().toBER(false)));
    const sorted = [...parts].sort(Buffer.compare);
    for (const order of [parts, sorted]) {
      const der = toBuf(new asn1js.Set({ value: order.map((p) => asn1js.fromBER(new Uint8Array(p)).result) }).toBER(false));
      if (der.equals(data)) continue;
      const again = verifySignature({ ...input, data: der });
      if (again.outcome === 'valid') {
        check = again;
        r.notes.push('the signed attributes are not DER-encoded in the file; the signature verifies over their DER form');
        break;
      }
    }
  }
  r.signatureAlgorithm = check.algorithm;
  // RFC 8419 §3: Ed25519 goes with SHA-512 and Ed448 with SHAKE256 for the messageDigest; other
  // pairings verify but are outside the profile (a remark, not a failure).
  if ((check.algorithm === 'Ed25519' && r.digestAlgorithm !== 'sha512') || (check.algorithm === 'Ed448' && r.digestAlgorithm !== 'shake256'))
    r.notes.push(`${check.algorithm} with digest ${r.digestAlgorithm} is outside RFC 8419 (which pairs Ed25519 with SHA-512 and Ed448 with SHAKE256)`);
  if (check.outcome === 'invalid') r.problems.push(`the ${check.algorithm} signature value does not verify with the signer's public key`);
  if (r.problems.length) r.integrity = 'broken';
  else if (check.outcome === 'unsupported') r.notes.push(`${check.reason}; integrity unknown`);
  else r.integrity = 'valid';
  return r;
}
