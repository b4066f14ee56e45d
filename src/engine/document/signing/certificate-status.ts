/**
 * Whether a signer is trusted, reported apart from whether the signature is intact: the chain is
 * built from the signer certificate through the certificates the document carries to a configured
 * anchor (trust-store.ts); every certificate in it must be within its validity period at the
 * validation time; revocation is decided only from revocation data the document embeds (CMS
 * crls, the Adobe revocationInfoArchival attribute, the PDF /DSS) — no network fetch, so
 * "revoked" is reported when known and otherwise the revocation state is "unknown".
 *
 * Not checked (documented in docs/document.md): certificate policies, name constraints, key usage
 * beyond what OpenSSL's issuer check applies, CRL/OCSP freshness, and the time-stamp authority's
 * own revocation.
 */
import { X509Certificate } from 'node:crypto';
import * as asn1js from 'asn1js';
import { BasicOCSPResponse, CertificateRevocationList, OCSPResponse } from 'pkijs';
import { digestOf, verifySignature } from './algorithms.js';
import type { TrustAnchors } from './trust-store.js';

export type TrustStatus = 'trusted' | 'untrusted' | 'expired' | 'revoked' | 'unknown';
export type TimeSource = 'timestamp' | 'signing_time' | 'now';

/** Chains longer than this are not followed (real chains have 2–4 certificates). */
export const MAX_CHAIN = 8;
/** At most this many embedded CRLs/OCSP responses are read per signature. */
const MAX_REVOCATION_ITEMS = 32;

export interface RevocationData {
  crls: Buffer[];
  ocsps: Buffer[];
}

export interface TrustEvaluation {
  trust: TrustStatus;
  /** Subjects from the signer up to the anchor (or as far as the chain could be built). */
  chain: string[];
  anchor: string | null;
  selfSigned: boolean;
  validationTime: string;
  timeSource: TimeSource;
  revocation: 'revoked' | 'good' | 'unknown';
  /** One sentence for the evidence chain. */
  summary: string;
  notes: string[];
}

const subjectOf = (c: X509Certificate): string => c.subject.replace(/\n/g, ', ');

function issuedBy(child: X509Certificate, parent: X509Certificate): boolean {
  try {
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/** Self-signed: issuer equals subject and its own key verifies it (OpenSSL's issuer check would also demand keyCertSign, which end-entity self-signed certificates lack). */
function isSelfSigned(c: X509Certificate): boolean {
  try {
    return c.subject === c.issuer && c.verify(c.publicKey);
  } catch {
    return false;
  }
}

const normSerial = (hex: string): string => hex.toLowerCase().replace(/^0+/, '') || '0';

function buildChain(signer: X509Certificate, pool: readonly X509Certificate[], anchors: readonly X509Certificate[]): { chain: X509Certificate[]; anchor: X509Certificate | null } {
  const chain = [signer];
  let cur = signer;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const same = anchors.find((a) => a.fingerprint256 === cur.fingerprint256);
    if (same) return { chain, anchor: same };
    const byAnchor = anchors.find((a) => issuedBy(cur, a));
    if (byAnchor) {
      chain.push(byAnchor);
      return { chain, anchor: byAnchor };
    }
    if (isSelfSigned(cur)) break;
    // Only CA certificates may issue: a leaf that "issues" another leaf is not a chain.
    const next = pool.find((c) => c.ca && !chain.some((x) => x.fingerprint256 === c.fingerprint256) && issuedBy(cur, c));
    if (!next) break;
    chain.push(next);
    cur = next;
  }
  return { chain, anchor: null };
}

/** Parsed CRLs/OCSP responses by buffer: a file's /DSS data is shared by all its signatures and chain links. */
const parsedCrls = new WeakMap<Buffer, CertificateRevocationList | null>();
const parsedOcsps = new WeakMap<Buffer, BasicOCSPResponse | null>();

function parseCrl(der: Buffer): CertificateRevocationList | null {
  let v = parsedCrls.get(der);
  if (v === undefined) {
    try {
      v = CertificateRevocationList.fromBER(new Uint8Array(der));
    } catch {
      v = null;
    }
    parsedCrls.set(der, v);
  }
  return v;
}

function parseOcsp(der: Buffer): BasicOCSPResponse | null {
  let v = parsedOcsps.get(der);
  if (v === undefined) {
    try {
      const resp = OCSPResponse.fromBER(new Uint8Array(der));
      v = resp.responseBytes ? BasicOCSPResponse.fromBER(new Uint8Array(resp.responseBytes.response.valueBlock.valueHexView)) : null;
    } catch {
      v = null;
    }
    parsedOcsps.set(der, v);
  }
  return v;
}

interface RevocationFinding {
  revokedAt?: string;
  good?: boolean;
}

/** Is `cert` (issued by `issuer`) listed as revoked in an embedded CRL signed by that issuer? */
function checkCrls(cert: X509Certificate, issuer: X509Certificate, crls: readonly Buffer[], notes: string[]): RevocationFinding {
  const out: RevocationFinding = {};
  const serial = normSerial(cert.serialNumber);
  for (const der of crls.slice(0, MAX_REVOCATION_ITEMS)) {
    const crl = parseCrl(der);
    if (!crl) continue;
    const tbs = crl.tbsView;
    const check = verifySignature({
      algorithmOid: crl.signatureAlgorithm.algorithmId,
      algorithmParams: crl.signatureAlgorithm.algorithmParams as asn1js.AsnType | undefined,
      key: issuer.publicKey,
      data: tbs,
      signature: Buffer.from(crl.signatureValue.valueBlock.valueHexView),
    });
    if (check.outcome !== 'valid') continue; // another issuer's CRL, or not verifiable
    out.good = true;
    for (const rc of crl.revokedCertificates ?? []) {
      if (normSerial(Buffer.from(rc.userCertificate.valueBlock.valueHexView).toString('hex')) === serial) {
        out.revokedAt = rc.revocationDate.value.toISOString();
        out.good = false;
      }
    }
  }
  if (out.revokedAt) notes.push(`an embedded CRL from ${subjectOf(issuer)} lists the certificate as revoked on ${out.revokedAt}`);
  return out;
}

/** Embedded OCSP responses (RFC 6960) for `cert`, signed by its issuer or a responder the issuer certified. */
function checkOcsps(cert: X509Certificate, issuer: X509Certificate, ocsps: readonly Buffer[], notes: string[]): RevocationFinding {
  const out: RevocationFinding = {};
  const serial = normSerial(cert.serialNumber);
  for (const der of ocsps.slice(0, MAX_REVOCATION_ITEMS)) {
    const basic = parseOcsp(der);
    if (!basic) continue;
    const responders = [issuer];
    for (const c of basic.certs ?? []) {
      try {
        const x = new X509Certificate(Buffer.from(c.toSchema(false).toBER(false)));
        if (issuedBy(x, issuer)) responders.push(x);
      } catch {
        /* unreadable responder certificate */
      }
    }
    const data = basic.tbsResponseData.tbsView;
    const signed = responders.some(
      (r) =>
        verifySignature({
          algorithmOid: basic.signatureAlgorithm.algorithmId,
          algorithmParams: basic.signatureAlgorithm.algorithmParams as asn1js.AsnType | undefined,
          key: r.publicKey,
          data,
          signature: Buffer.from(basic.signature.valueBlock.valueHexView),
        }).outcome === 'valid',
    );
    if (!signed) continue;
    for (const sr of basic.tbsResponseData.responses) {
      if (normSerial(Buffer.from(sr.certID.serialNumber.valueBlock.valueHexView).toString('hex')) !== serial) continue;
      const nameHash = digestOf(sr.certID.hashAlgorithm.algorithmId, [issuerNameDer(cert)]);
      if (nameHash && !nameHash.equals(Buffer.from(sr.certID.issuerNameHash.valueBlock.valueHexView))) continue;
      const tag = (sr.certStatus as asn1js.BaseBlock).idBlock?.tagNumber;
      if (tag === 0) out.good = true;
      else if (tag === 1) {
        const t = (sr.certStatus as asn1js.Constructed).valueBlock?.value?.[0];
        out.revokedAt = t instanceof asn1js.GeneralizedTime ? t.toDate().toISOString() : sr.thisUpdate.toISOString();
        out.good = false;
      }
    }
  }
  if (out.revokedAt) notes.push(`an embedded OCSP response says the certificate was revoked on ${out.revokedAt}`);
  return out;
}

/** DER of the issuer Name inside a certificate (the OCSP CertID hashes it). */
function issuerNameDer(cert: X509Certificate): Buffer {
  const a = asn1js.fromBER(cert.raw);
  const tbs = (a.result as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
  const fields = tbs.valueBlock.value;
  const offset = fields[0]!.idBlock.tagClass === 3 ? 1 : 0; // [0] version present
  return Buffer.from(fields[offset + 2]!.toBER(false));
}

export interface TrustInput {
  signer: X509Certificate;
  /** Certificates the document carries (CMS certificates, PDF /DSS /Certs). */
  pool: readonly X509Certificate[];
  anchors: TrustAnchors;
  revocation: RevocationData;
  /** A verified time-stamp's genTime, else the signer's claimed signing time, else now. */
  time: { at: Date; source: TimeSource };
}

export function evaluateTrust(i: TrustInput): TrustEvaluation {
  const notes: string[] = [];
  const { chain, anchor } = buildChain(i.signer, i.pool, i.anchors.certs);
  const selfSigned = isSelfSigned(i.signer);
  const at = i.time.at.getTime();
  const timeLabel = i.time.source === 'timestamp' ? 'the time-stamp time' : i.time.source === 'signing_time' ? 'the claimed signing time' : 'the current time';

  // Validity at the validation time; the anchor itself is the user's choice and is not dated.
  const outOfDate = chain.filter((c) => c !== anchor).find((c) => !(Date.parse(c.validFrom) <= at && at <= Date.parse(c.validTo)));
  if (outOfDate) notes.push(`${subjectOf(outOfDate)} is valid ${new Date(Date.parse(outOfDate.validFrom)).toISOString()} to ${new Date(Date.parse(outOfDate.validTo)).toISOString()}, not at ${timeLabel} ${i.time.at.toISOString()}`);

  // Revocation, only from embedded data, for every certificate whose issuer is known.
  let revocation: TrustEvaluation['revocation'] = 'unknown';
  let anyRevoked = false;
  let allGood = chain.length > 1;
  for (let k = 0; k + 1 < chain.length; k++) {
    const cert = chain[k]!;
    const issuer = chain[k + 1]!;
    const c = checkCrls(cert, issuer, i.revocation.crls, notes);
    const o = checkOcsps(cert, issuer, i.revocation.ocsps, notes);
    const revokedAt = c.revokedAt ?? o.revokedAt;
    if (revokedAt && Date.parse(revokedAt) <= at) anyRevoked = true;
    else if (revokedAt) notes.push(`the revocation (${revokedAt}) is after ${timeLabel}`);
    if (!(c.good || o.good || (revokedAt && Date.parse(revokedAt) > at))) allGood = false;
  }
  if (anyRevoked) revocation = 'revoked';
  else if (allGood) revocation = 'good';

  let trust: TrustStatus;
  if (anyRevoked) trust = 'revoked';
  else if (outOfDate) trust = 'expired';
  else if (anchor) trust = 'trusted';
  else if (i.anchors.configured) trust = 'untrusted';
  else trust = 'unknown';

  const subjects = chain.map(subjectOf);
  const what =
    trust === 'trusted'
      ? `the signer's certificate chains to the trust anchor ${subjectOf(anchor!)}`
      : trust === 'revoked'
        ? 'the signer\'s certificate chain includes a revoked certificate'
        : trust === 'expired'
          ? 'a certificate in the chain is outside its validity period'
          : !i.anchors.configured
            ? `no document.trust_anchors are configured, so the signer (${selfSigned ? 'self-signed' : `issued by ${subjectOf(chain[chain.length - 1]!).slice(0, 80)}`}) cannot be called trusted`
            : `the signer's certificate does not chain to a configured trust anchor${selfSigned ? ' (it is self-signed)' : ''}`;
  return {
    trust,
    chain: subjects,
    anchor: anchor ? subjectOf(anchor) : null,
    selfSigned,
    validationTime: i.time.at.toISOString(),
    timeSource: i.time.source,
    revocation,
    summary: `${what}; validated at ${timeLabel} ${i.time.at.toISOString()}; revocation ${revocation === 'unknown' ? 'unknown (no embedded CRL/OCSP for the chain)' : revocation}`,
    notes,
  };
}
