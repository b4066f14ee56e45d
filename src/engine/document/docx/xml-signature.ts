/**
 * OPC package signatures (ECMA-376 Part 2 §13, XML-DSig 1.0 with XAdES): each
 * `_xmlsignatures/*.xml` part is one `<Signature>`. xml-crypto verifies the SignatureValue over
 * the canonicalised SignedInfo and the digests of the SignedInfo references (the package Object
 * with its Manifest, the Office Object, the XAdES SignedProperties). The Manifest's references
 * point at package parts; they are checked here: the part's bytes, or for relationship parts the
 * OPC RelationshipTransform (select the named relationships, keep Id/Target/TargetMode/Type, add
 * TargetMode="Internal", sort by Id) followed by C14N (xml-crypto's canonicaliser).
 *
 * A SignatureValue or any digest that does not verify → integrity `broken`; an algorithm we
 * cannot run or a structure we cannot read → `unknown`. Who signed is decided apart from that
 * (certificate-status.ts), exactly as for PDF.
 */
import { X509Certificate, createHash, verify as cryptoVerify } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { C14nCanonicalization, SignedXml } from 'xml-crypto';
import { evaluateTrust, type TrustStatus, type TrustEvaluation } from '../signing/certificate-status.js';
import type { Integrity } from '../signing/cms-verify.js';
import { NO_ANCHORS, type TrustAnchors } from '../signing/trust-store.js';
import { signaturePartPaths } from './signature-parts.js';
import { XML_LIMITS, xmlProblem } from '../xml-budget.js';
import { corruptPartError } from './zip-parts.js';

type Zip = import('jszip');

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const REL_TRANSFORM = 'http://schemas.openxmlformats.org/package/2006/RelationshipTransform';
const RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
/** Signature parts are a few kB; deeper or larger ones are not read (no stack or memory exhaustion). */
const MAX_SIGNATURE_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;
const MAX_SIGNATURES = 16;
const MAX_MANIFEST_REFERENCES = 2000;
const MAX_PART_BYTES = 64 * 1024 * 1024;
/** All parts re-hashed for one signature together: a manifest cannot make us inflate more than this. */
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
/** Parts that go through the DOM (relationship transform, C14N) must not nest deeper than this. */
const MAX_PART_DEPTH = 256;

const DIGESTS: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  'http://www.w3.org/2001/04/xmldsig-more#sha224': 'sha224',
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#sha384': 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
  'http://www.w3.org/2007/05/xmldsig-more#sha3-256': 'sha3-256',
  'http://www.w3.org/2007/05/xmldsig-more#sha3-384': 'sha3-384',
  'http://www.w3.org/2007/05/xmldsig-more#sha3-512': 'sha3-512',
};

/** Signature methods xml-crypto lacks (RFC 6931 / RFC 4051), run by OpenSSL; ECDSA values are r‖s. */
const EXTRA_SIGNATURES: Record<string, { hash: string; ecdsa: boolean }> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384': { hash: 'sha384', ecdsa: false },
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha224': { hash: 'sha224', ecdsa: false },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1': { hash: 'sha1', ecdsa: true },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256': { hash: 'sha256', ecdsa: true },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384': { hash: 'sha384', ecdsa: true },
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512': { hash: 'sha512', ecdsa: true },
};

export interface XmlSignatureCheck {
  part: string;
  integrity: Integrity;
  problems: string[];
  notes: string[];
  signer: string | null;
  signedAt: string | null;
  algorithm: string | null;
  digestAlgorithm: string | null;
  /** Package parts whose digest the Manifest holds and that still match. */
  partsChecked: number;
  /** Parts in the package that no signature reference covers (changes there do not break it). */
  unsignedParts: string[];
  trust: TrustStatus;
  trustDetail: string | null;
  trustEvaluation: TrustEvaluation | null;
}

/** Signature parts: the XML budget (xml-budget.ts) with the signature's own depth, before the DOM and C14N recurse. */
const SIGNATURE_LIMITS = { maxDepth: MAX_DEPTH, maxElements: 100_000 };
/** Parts re-hashed through a transform (the DOM, C14N). */
const PART_LIMITS = { ...XML_LIMITS, maxDepth: MAX_PART_DEPTH };

const children = (n: Element, local: string): Element[] => {
  const out: Element[] = [];
  for (let c = n.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && (c as Element).localName === local) out.push(c as Element);
  return out;
};
const descendants = (n: Element | Document, local: string, ns = DSIG): Element[] => Array.from(n.getElementsByTagNameNS(ns, local) as unknown as ArrayLike<Element>);
const text = (n: Element | undefined): string => (n?.textContent ?? '').trim();

/** OPC part name from a Manifest reference URI (`/word/document.xml?ContentType=…`). */
function partOf(uri: string): string {
  return decodeURIComponent(uri.replace(/\?.*$/, '').replace(/^\//, ''));
}

/** ECMA-376 Part 2 §13.2.4.24: the relationship transform, then C14N (xml-crypto). */
function relationshipTransform(relsXml: string, transform: Element): string {
  const ids = new Set<string>();
  const types = new Set<string>();
  for (let c = transform.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== 1) continue;
    const e = c as Element;
    if (e.localName === 'RelationshipReference') ids.add(e.getAttribute('SourceId') ?? '');
    else if (e.localName === 'RelationshipsGroupReference') types.add(e.getAttribute('SourceType') ?? '');
  }
  const doc = new DOMParser().parseFromString(relsXml, 'text/xml');
  const rels = descendants(doc, 'Relationship', RELS_NS)
    .filter((r) => ids.has(r.getAttribute('Id') ?? '') || types.has(r.getAttribute('Type') ?? ''))
    .map((r) => ({ Id: r.getAttribute('Id') ?? '', Target: r.getAttribute('Target') ?? '', TargetMode: r.getAttribute('TargetMode') || 'Internal', Type: r.getAttribute('Type') ?? '' }))
    .sort((a, b) => (a.Id < b.Id ? -1 : a.Id > b.Id ? 1 : 0));
  const out = new DOMParser().parseFromString(`<Relationships xmlns="${RELS_NS}"/>`, 'text/xml');
  const root = out.documentElement!;
  for (const r of rels) {
    const e = out.createElementNS(RELS_NS, 'Relationship');
    e.setAttribute('Id', r.Id);
    e.setAttribute('Target', r.Target);
    e.setAttribute('TargetMode', r.TargetMode);
    e.setAttribute('Type', r.Type);
    root.appendChild(e);
  }
  return new C14nCanonicalization().process(root as unknown as Node, {}) as string;
}

async function readBytes(zip: Zip, path: string): Promise<Buffer | undefined> {
  const f = zip.file(path);
  if (!f) return undefined;
  const size = (f as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0;
  if (size > MAX_PART_BYTES) return undefined;
  try {
    return await f.async('nodebuffer');
  } catch (err) {
    // A corrupt stream or a size other than declared: the package is unreadable (422), as in analyze.ts.
    throw corruptPartError(path, err);
  }
}

/** Registers the signature methods xml-crypto does not ship with. */
function withExtraAlgorithms(sx: SignedXml): void {
  for (const [uri, a] of Object.entries(EXTRA_SIGNATURES)) {
    (sx.SignatureAlgorithms as Record<string, unknown>)[uri] = class {
      getSignature(): never {
        throw new Error('verification only');
      }
      verifySignature(material: string, key: string, signatureValue: string): boolean {
        return cryptoVerify(a.hash, Buffer.from(material), a.ecdsa ? { key, dsaEncoding: 'ieee-p1363' } : key, Buffer.from(signatureValue, 'base64'));
      }
      getAlgorithmName(): string {
        return uri;
      }
    };
  }
  for (const [uri, name] of Object.entries(DIGESTS)) {
    if ((sx.HashAlgorithms as Record<string, unknown>)[uri]) continue;
    (sx.HashAlgorithms as Record<string, unknown>)[uri] = class {
      getHash(xml: string): string {
        return createHash(name).update(xml, 'utf8').digest('base64');
      }
      getAlgorithmName(): string {
        return uri;
      }
    };
  }
}

async function checkOne(zip: Zip, part: string, xml: string, anchors: TrustAnchors, now: Date): Promise<XmlSignatureCheck> {
  const out: XmlSignatureCheck = { part, integrity: 'unknown', problems: [], notes: [], signer: null, signedAt: null, algorithm: null, digestAlgorithm: null, partsChecked: 0, unsignedParts: [], trust: 'unknown', trustDetail: null, trustEvaluation: null };
  // A DTD (which a signature never needs), nesting past 64, malformed XML: the signature is
  // reported unknown with the cause; the rest of the document is still analysed.
  const problem = xmlProblem(xml, SIGNATURE_LIMITS);
  if (problem) {
    out.notes.push(`the signature part was not read: ${problem}`);
    return out;
  }
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const sigEl = descendants(doc, 'Signature')[0];
  if (!sigEl) {
    out.notes.push('the part holds no XML-DSig Signature element');
    return out;
  }
  const signedInfo = children(sigEl, 'SignedInfo')[0];
  out.algorithm = children(signedInfo ?? sigEl, 'SignatureMethod')[0]?.getAttribute('Algorithm')?.replace(/^.*#/, '') ?? null;

  // The signer's certificate: the first X509Certificate in KeyInfo.
  const certB64 = text(descendants(children(sigEl, 'KeyInfo')[0] ?? sigEl, 'X509Certificate')[0]).replace(/\s+/g, '');
  let cert: X509Certificate | null = null;
  const pool: X509Certificate[] = [];
  for (const el of descendants(sigEl, 'X509Certificate').slice(0, 32)) {
    try {
      const c = new X509Certificate(Buffer.from(text(el).replace(/\s+/g, ''), 'base64'));
      pool.push(c);
      if (!cert && text(el).replace(/\s+/g, '') === certB64) cert = c;
    } catch {
      out.notes.push('a certificate in KeyInfo cannot be read');
    }
  }
  if (!cert) {
    out.notes.push('the signature carries no readable signer certificate; it cannot be checked');
    return out;
  }
  out.signer = cert.subject.replace(/\n/g, ', ');
  const signingTime = descendants(doc, 'SigningTime', 'http://uri.etsi.org/01903/v1.3.2#')[0] ?? descendants(doc, 'Value', 'http://schemas.openxmlformats.org/package/2006/digital-signature')[0];
  const t = Date.parse(text(signingTime));
  if (!Number.isNaN(t)) out.signedAt = new Date(t).toISOString();

  // SignedInfo: SignatureValue and the references inside the signature part (xml-crypto).
  const sx = new SignedXml({ publicCert: cert.toString(), getCertFromKeyInfo: () => null });
  withExtraAlgorithms(sx);
  let signedInfoOk: boolean | 'unknown' = 'unknown';
  try {
    sx.loadSignature(sigEl as unknown as Node);
    const ok = sx.checkSignature(xml);
    if (ok) signedInfoOk = true;
    else {
      signedInfoOk = false;
      out.problems.push('a digest of the signature\'s own references (the package manifest, the Office object or the signed properties) does not match: what was signed was changed');
    }
  } catch (err) {
    const msg = (err as Error).message;
    if (/invalid signature: the signature value/.test(msg)) {
      signedInfoOk = false;
      out.problems.push("the SignatureValue does not verify with the signer's certificate: the signature or what it signs was altered");
    } else if (/invalid signature: for uri/.test(msg)) {
      signedInfoOk = false;
      out.problems.push(`a reference digest does not match (${msg.replace(/ calculated digest.*$/, '').slice(0, 120)})`);
    } else out.notes.push(`the signature could not be checked (${msg.slice(0, 120)})`);
  }

  // XAdES (ETSI EN 319 132) SigningCertificate(V2), when the signed properties are signed: the
  // CertDigest must be the digest of the certificate that verified the signature.
  const xadesNs = ['http://uri.etsi.org/01903/v1.3.2#', 'http://uri.etsi.org/01903/v1.4.1#'];
  const props = xadesNs.flatMap((ns) => descendants(doc, 'SignedProperties', ns))[0];
  const propsId = props?.getAttribute('Id');
  const propsSigned = !!propsId && !!signedInfo && children(signedInfo, 'Reference').some((r) => r.getAttribute('URI') === `#${propsId}`);
  if (props && propsSigned) {
    const certDigest = xadesNs.flatMap((ns) => descendants(props, 'CertDigest', ns))[0];
    const alg = DIGESTS[children(certDigest ?? props, 'DigestMethod')[0]?.getAttribute('Algorithm') ?? ''];
    const want = text(children(certDigest ?? props, 'DigestValue')[0]);
    if (certDigest && alg && want) {
      if (createHash(alg).update(cert.raw).digest('base64') !== want.replace(/\s+/g, '')) {
        out.problems.push("the XAdES signing-certificate digest names a different certificate than the one that signed: the signer's certificate was substituted");
      }
    } else if (certDigest) out.notes.push('the XAdES signing-certificate digest uses an unsupported algorithm; not checked');
  }

  // The Manifest's references to package parts (covered by the SignedInfo's #idPackageObject digest).
  const covered = new Set<string>([part]);
  const manifestRefs = descendants(sigEl, 'Manifest').flatMap((m) => children(m, 'Reference')).slice(0, MAX_MANIFEST_REFERENCES);
  let manifestUnknown = false;
  let totalBytes = 0;
  for (const ref of manifestRefs) {
    const uri = ref.getAttribute('URI') ?? '';
    const p = partOf(uri);
    covered.add(p);
    const alg = DIGESTS[children(ref, 'DigestMethod')[0]?.getAttribute('Algorithm') ?? ''];
    out.digestAlgorithm ??= alg ?? null;
    const want = text(children(ref, 'DigestValue')[0]);
    if (!alg) {
      manifestUnknown = true;
      out.notes.push(`the digest method of ${p} is not supported`);
      continue;
    }
    const data = await readBytes(zip, p);
    if (!data) {
      out.problems.push(`the signed part ${p} is missing from the package (or larger than ${MAX_PART_BYTES / 1048576} MB)`);
      continue;
    }
    totalBytes += data.length;
    if (totalBytes > MAX_TOTAL_BYTES) {
      manifestUnknown = true;
      out.notes.push(`the signed parts add up to more than ${MAX_TOTAL_BYTES / 1048576} MB; the rest were not re-hashed`);
      break;
    }
    const transforms = descendants(ref, 'Transform');
    const partProblem = transforms.length ? xmlProblem(data.toString('utf8'), PART_LIMITS) : undefined;
    if (partProblem) {
      manifestUnknown = true;
      out.notes.push(`${p} was not transformed (${partProblem}); its digest was not computed`);
      continue;
    }
    let input: Buffer | string = data;
    let unsupported = false;
    for (const tr of transforms) {
      const a = tr.getAttribute('Algorithm');
      if (a === REL_TRANSFORM) input = relationshipTransform(data.toString('utf8'), tr);
      else if (a === C14N || a === `${C14N}#WithComments`) {
        if (typeof input !== 'string') {
          const d = new DOMParser().parseFromString(input.toString('utf8'), 'text/xml');
          input = new C14nCanonicalization().process(d.documentElement as unknown as Node, {}) as string;
        }
      } else unsupported = true;
    }
    if (unsupported) {
      manifestUnknown = true;
      out.notes.push(`a transform on ${p} is not supported`);
      continue;
    }
    const got = createHash(alg).update(input).digest('base64');
    if (got !== want) out.problems.push(`the signed part ${p} no longer matches its digest: it changed after signing`);
    else out.partsChecked++;
  }
  out.unsignedParts = Object.keys(zip.files).filter((p) => !zip.files[p]!.dir && !covered.has(p) && !p.startsWith('_xmlsignatures/') && p !== '[Content_Types].xml');

  if (out.problems.length) out.integrity = 'broken';
  else if (signedInfoOk === true && !manifestUnknown) out.integrity = manifestRefs.length ? 'valid' : 'unknown';
  if (out.integrity === 'unknown' && signedInfoOk === true && manifestRefs.length === 0) out.notes.push('the signature has no package manifest: it signs no document part');

  const at = out.signedAt ? { at: new Date(out.signedAt), source: 'signing_time' as const } : { at: now, source: 'now' as const };
  const te = evaluateTrust({ signer: cert, pool, anchors, revocation: { crls: [], ocsps: [] }, time: at });
  out.trust = te.trust;
  out.trustDetail = te.summary;
  out.trustEvaluation = te;
  out.notes.push(...te.notes);
  return out;
}

/** Every package signature of a DOCX, verified. Bounded: at most 16 signature parts of at most 1 MB. */
export async function verifyPackageSignatures(zip: Zip, options: { anchors?: TrustAnchors; now: Date }): Promise<XmlSignatureCheck[]> {
  const parts = signaturePartPaths(Object.keys(zip.files));
  const out: XmlSignatureCheck[] = [];
  for (const p of parts.slice(0, MAX_SIGNATURES)) {
    const bytes = await readBytes(zip, p);
    if (!bytes || bytes.length > MAX_SIGNATURE_BYTES) {
      out.push({ part: p, integrity: 'unknown', problems: [], notes: [`the signature part is larger than ${MAX_SIGNATURE_BYTES / 1024} kB; not read`], signer: null, signedAt: null, algorithm: null, digestAlgorithm: null, partsChecked: 0, unsignedParts: [], trust: 'unknown', trustDetail: null, trustEvaluation: null });
      continue;
    }
    out.push(await checkOne(zip, p, bytes.toString('utf8'), options.anchors ?? NO_ANCHORS, options.now));
  }
  return out;
}
