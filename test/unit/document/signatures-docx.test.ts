/**
 * DOCX package signatures built by hand (ECMA-376 Part 2 §13): the XML is written directly in
 * canonical form and digested/signed with node:crypto, so the verifier (xml-crypto + the OPC
 * relationship transform) is checked against an independent computation, not against itself.
 */
import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { b64, buildDocx, testPorts } from './build.js';
import { ROOT_PEM_PATH, makeSigner, type TestSigner } from './signatures-build.js';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const MDSSI = 'http://schemas.openxmlformats.org/package/2006/digital-signature';
const sha256 = (d: Buffer | string): string => createHash('sha256').update(d).digest('base64');
const OFFICE_DOC = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';

/** What the relationship transform + C14N must produce for rId1 of buildDocx's _rels/.rels (written out by hand). */
const RELS_CANONICAL = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="word/document.xml" TargetMode="Internal" Type="${OFFICE_DOC}"></Relationship></Relationships>`;

function reference(uri: string, digest: string, transforms = ''): string {
  return `<Reference URI="${uri}">${transforms}<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>${digest}</DigestValue></Reference>`;
}

async function signDocx(docx: Buffer, signer: TestSigner, o: { xadesCertDigestOf?: string } = {}): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  const doc = await zip.file('word/document.xml')!.async('nodebuffer');
  const core = await zip.file('docProps/core.xml')!.async('nodebuffer');
  const relTransform = `<Transforms><Transform Algorithm="http://schemas.openxmlformats.org/package/2006/RelationshipTransform"><mdssi:RelationshipReference xmlns:mdssi="${MDSSI}" SourceId="rId1"></mdssi:RelationshipReference></Transform><Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform></Transforms>`;
  const manifest =
    reference('/_rels/.rels?ContentType=application/vnd.openxmlformats-package.relationships+xml', sha256(RELS_CANONICAL), relTransform) +
    reference('/word/document.xml?ContentType=application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml', sha256(doc)) +
    reference('/docProps/core.xml?ContentType=application/vnd.openxmlformats-package.core-properties+xml', sha256(core));
  const objectBody = `<Manifest>${manifest}</Manifest><SignatureProperties><SignatureProperty Id="idSignatureTime" Target="#idPackageSignature"><mdssi:SignatureTime xmlns:mdssi="${MDSSI}"><mdssi:Format>YYYY-MM-DDThh:mm:ssTZD</mdssi:Format><mdssi:Value>2025-01-01T12:00:00Z</mdssi:Value></mdssi:SignatureTime></SignatureProperty></SignatureProperties>`;
  // Inclusive C14N of the Object subtree renders the inherited default namespace on it.
  const objectCanonical = `<Object xmlns="${DSIG}" Id="idPackageObject">${objectBody}</Object>`;
  // XAdES signed properties with the signing certificate's digest (ETSI EN 319 132-1 §5.2.2).
  const XD = 'http://uri.etsi.org/01903/v1.3.2#';
  const derOf = (pem: string): Buffer => Buffer.from(readFileSync(pem, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const propsBody = o.xadesCertDigestOf
    ? `<xd:SignedSignatureProperties><xd:SigningTime>2025-01-01T12:00:00Z</xd:SigningTime><xd:SigningCertificate><xd:Cert><xd:CertDigest><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>${sha256(derOf(o.xadesCertDigestOf))}</DigestValue></xd:CertDigest></xd:Cert></xd:SigningCertificate></xd:SignedSignatureProperties>`
    : '';
  const propsCanonical = `<xd:SignedProperties xmlns="${DSIG}" xmlns:xd="${XD}" Id="idSignedProperties">${propsBody}</xd:SignedProperties>`;
  const propsRef = o.xadesCertDigestOf
    ? `<Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#idSignedProperties"><Transforms><Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></Transform></Transforms><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>${sha256(propsCanonical)}</DigestValue></Reference>`
    : '';
  const xadesObject = o.xadesCertDigestOf ? `<Object><xd:QualifyingProperties xmlns:xd="${XD}" Target="#idPackageSignature"><xd:SignedProperties Id="idSignedProperties">${propsBody}</xd:SignedProperties></xd:QualifyingProperties></Object>` : '';
  const ecdsa = signer.kind === 'p256';
  const method = ecdsa ? 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256' : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
  const signedInfoBody = `<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"></CanonicalizationMethod><SignatureMethod Algorithm="${method}"></SignatureMethod><Reference Type="http://www.w3.org/2000/09/xmldsig#Object" URI="#idPackageObject"><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></DigestMethod><DigestValue>${sha256(objectCanonical)}</DigestValue></Reference>${propsRef}`;
  const signedInfoCanonical = `<SignedInfo xmlns="${DSIG}">${signedInfoBody}</SignedInfo>`;
  const key = createPrivateKey(readFileSync(signer.key));
  const value = cryptoSign('sha256', Buffer.from(signedInfoCanonical), ecdsa ? { key, dsaEncoding: 'ieee-p1363' } : key).toString('base64');
  const certB64 = readFileSync(signer.cert, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Signature xmlns="${DSIG}" Id="idPackageSignature"><SignedInfo>${signedInfoBody}</SignedInfo><SignatureValue>${value}</SignatureValue><KeyInfo><X509Data><X509Certificate>${certB64}</X509Certificate></X509Data></KeyInfo><Object Id="idPackageObject">${objectBody}</Object>${xadesObject}</Signature>`;
  zip.file('_xmlsignatures/sig1.xml', xml);
  zip.file('_xmlsignatures/origin.sigs', '');
  zip.file('_xmlsignatures/_rels/origin.sigs.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/package/2006/relationships/digital-signature/signature" Target="sig1.xml"/></Relationships>');
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

async function edit(docx: Buffer, path: string, f: (s: string) => string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  zip.file(path, f(await zip.file(path)!.async('string')));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const withAnchors = createEngine(testPorts({ config: { document: { trust_anchors: ROOT_PEM_PATH } } }));
const verify = (docx: Buffer) => withAnchors.verifyDocument({ source: 'upload', content: b64(docx), mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });

describe('DOCX XML signatures', () => {
  const caSigner = makeSigner('rsa', { cn: 'verity docx signer' });

  it('a signed package verifies (SignatureValue, Object digest, manifest part digests incl. the relationship transform) and chains to the anchor', async () => {
    const r = await verify(await signDocx(await buildDocx(), caSigner));
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.signatures).toEqual([expect.objectContaining({ field: '_xmlsignatures/sig1.xml', integrity: 'valid', trust: 'trusted', signer: 'CN=verity docx signer', signed_at: '2025-01-01T12:00:00.000Z' })]);
    const ev = r.evidence.find((e) => e.source === 'docx_signature')!;
    expect(ev.finding).toMatch(/verifies: SignatureValue and 3 signed part digest\(s\) match; 1 part\(s\) are outside the signature \(docProps\/app\.xml\)/);
    expect(r.dimensions.source_authority).toBeGreaterThanOrEqual(0.9);
  });

  it('an ECDSA (P-256) self-signed package signature is valid but untrusted, not forged', async () => {
    const r = await verify(await signDocx(await buildDocx(), makeSigner('p256', { selfSigned: true })));
    expect(r.signatures?.[0]).toMatchObject({ integrity: 'valid', trust: 'untrusted', algorithm: 'ecdsa-sha256' });
    expect(r.manipulation_flags).not.toContain('signature_forgery');
  });

  it('XAdES signing certificate: the digest of the signer certificate verifies; another certificate\'s digest is broken', async () => {
    const good = await verify(await signDocx(await buildDocx(), caSigner, { xadesCertDigestOf: caSigner.cert }));
    expect(good.signatures?.[0]).toMatchObject({ integrity: 'valid', trust: 'trusted' });
    const other = makeSigner('rsa');
    const swapped = await verify(await signDocx(await buildDocx(), caSigner, { xadesCertDigestOf: other.cert }));
    expect(swapped.signatures?.[0]?.integrity).toBe('broken');
    expect(swapped.signatures?.[0]?.problems.join(' ')).toMatch(/XAdES signing-certificate digest names a different certificate/);
  });

  it('a signed part changed after signing is broken → signature_forgery', async () => {
    const signed = await signDocx(await buildDocx(), caSigner);
    const r = await verify(await edit(signed, 'word/document.xml', (s) => s.replace('00417', '99417')));
    expect(r.signatures?.[0]?.integrity).toBe('broken');
    expect(r.manipulation_flags).toContain('signature_forgery');
    expect(r.evidence.find((e) => e.source === 'docx_signature')?.finding).toMatch(/word\/document\.xml no longer matches its digest/);
  });

  it('a relationship retargeted after signing is broken (relationship transform)', async () => {
    const signed = await signDocx(await buildDocx(), caSigner);
    const r = await verify(await edit(signed, '_rels/.rels', (s) => s.replace('Target="word/document.xml"', 'Target="word/document2.xml"')));
    expect(r.signatures?.[0]?.integrity).toBe('broken');
    expect(r.signatures?.[0]?.problems.join(' ')).toMatch(/_rels\/\.rels no longer matches/);
  });

  it('a relationship the signature does not select may change (only rId1 was signed)', async () => {
    const signed = await signDocx(await buildDocx(), caSigner);
    const r = await verify(await edit(signed, '_rels/.rels', (s) => s.replace('</Relationships>', '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail" Target="docProps/thumbnail.jpeg"/></Relationships>')));
    expect(r.signatures?.[0]?.integrity).toBe('valid');
  });

  // One base64 character is changed to another (swapping two could swap equal characters: 1 run in 64).
  it('a tampered SignatureValue is broken', async () => {
    const signed = await signDocx(await buildDocx(), caSigner);
    const r = await verify(await edit(signed, '_xmlsignatures/sig1.xml', (s) => s.replace(/<SignatureValue>(.)/, (_m, a: string) => `<SignatureValue>${a === 'A' ? 'B' : 'A'}`)));
    expect(r.signatures?.[0]?.integrity).toBe('broken');
    expect(r.signatures?.[0]?.problems.join(' ')).toMatch(/SignatureValue does not verify/);
    expect(r.manipulation_flags).toContain('signature_forgery');
  });

  it('a manifest digest edited to match a changed part breaks the Object reference', async () => {
    const signed = await signDocx(await buildDocx(), caSigner);
    const zip = await JSZip.loadAsync(signed);
    const newDoc = (await zip.file('word/document.xml')!.async('string')).replace('00417', '99417');
    zip.file('word/document.xml', newDoc);
    const sig = await zip.file('_xmlsignatures/sig1.xml')!.async('string');
    const oldDigest = sha256(await (await JSZip.loadAsync(signed)).file('word/document.xml')!.async('nodebuffer'));
    zip.file('_xmlsignatures/sig1.xml', sig.replace(oldDigest, sha256(newDoc)));
    const r = await verify(await zip.generateAsync({ type: 'nodebuffer' }));
    expect(r.signatures?.[0]?.integrity).toBe('broken');
    expect(r.manipulation_flags).toContain('signature_forgery');
  });

  it('a signature part nested 10,000 deep is not read (unknown, no stack overflow)', async () => {
    const deep = `<Signature xmlns="${DSIG}">${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}</Signature>`;
    const zip = await JSZip.loadAsync(await buildDocx());
    zip.file('_xmlsignatures/sig1.xml', deep);
    const r = await verify(await zip.generateAsync({ type: 'nodebuffer' }));
    expect(r.signatures?.[0]?.integrity).toBe('unknown');
    expect(r.signatures?.[0]?.notes[0]).toMatch(/nests elements more than 64 deep/);
  });
});
