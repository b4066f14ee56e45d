import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { checkSignatures } from '../../../src/engine/document/pdf/signatures.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { NO_ANCHORS, parsePemBundle, type TrustAnchors } from '../../../src/engine/document/signing/trust-store.js';
import { b64, buildPdf, testPorts } from './build.js';
import { ROOT_PEM_PATH, cmsSignSha1Encapsulated, ed25519Cms, addCrl, addDss, addSignatureTimestamp, ocspResponse, revokeAndCrl, cmsSign, lastContents, makeSigner, signPdfWith, timestampToken, type KeyKind } from './signatures-build.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const anchors: TrustAnchors = { certs: parsePemBundle(readFileSync(ROOT_PEM_PATH, 'utf8')), configured: true };
const check = (pdf: Buffer, a: TrustAnchors | undefined = anchors) => checkSignatures(pdf, readPdfStructure(pdf), { anchors: a, now: NOW });

describe('PDF CMS signatures: the algorithm read from the CMS, the signature value verified', () => {
  const cases: [KeyKind, string, RegExp][] = [
    ['rsa', 'sha256', /RSA/],
    ['rsa-pss', 'sha256', /RSASSA-PSS with sha256, salt 32/],
    ['p256', 'sha256', /ECDSA/],
    ['p384', 'sha384', /ECDSA/],
    ['p521', 'sha512', /ECDSA/],
    ['rsa', 'sha3-256', /RSA/],
    ['ed25519', 'sha512', /Ed25519/],
  ];
  for (const [kind, md, alg] of cases) {
    it(`${kind} with ${md}: integrity valid, trusted through the test root`, async () => {
      const s = makeSigner(kind);
      const pdf = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s, md) });
      const [sig] = check(pdf);
      expect(sig!.problems).toEqual([]);
      expect(sig!.integrity).toBe('valid');
      expect(sig!.signatureAlgorithm).toMatch(alg);
      expect(sig!.digestAlgorithm).toBe(md);
      expect(sig!.digestMatches).toBe(true);
      expect(sig!.trust).toBe('trusted');
      expect(sig!.field).toMatch(/^Signature\d+$/);
    });
  }

  it('a byte edit with the messageDigest recomputed is caught by the signature value', async () => {
    const s = makeSigner('rsa');
    const signed = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const { der, hexStart } = lastContents(signed);
    const br = /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/.exec(signed.toString('latin1').slice(signed.toString('latin1').lastIndexOf('/ByteRange')))!;
    const [len1, off2, len2] = [Number(br[1]), Number(br[2]), Number(br[3])];
    const forged = Buffer.from(signed);
    forged.write('T', forged.indexOf('verity-tests') + 'verity-tes'.length, 'latin1'); // Producer "verity-tesTs"
    const oldDigest = createHash('sha256').update(signed.subarray(0, len1)).update(signed.subarray(off2, off2 + len2)).digest();
    const newDigest = createHash('sha256').update(forged.subarray(0, len1)).update(forged.subarray(off2, off2 + len2)).digest();
    const i = der.indexOf(oldDigest);
    expect(i).toBeGreaterThan(0);
    const patched = Buffer.from(der);
    newDigest.copy(patched, i);
    forged.write(patched.toString('hex'), hexStart, 'latin1');

    const [sig] = check(forged);
    expect(sig!.digestMatches).toBe(true); // the old check alone would have passed this file
    expect(sig!.integrity).toBe('broken');
    expect(sig!.problems.join(' ')).toMatch(/signature value does not verify/);
    const r = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(forged), mime_type: 'application/pdf' });
    expect(r.manipulation_flags).toContain('signature_forgery');
    expect(r.signatures?.[0]?.integrity).toBe('broken');
  });

  it('adbe.pkcs7.sha1: the encapsulated SHA-1 is compared with the signed bytes and the CMS verified', async () => {
    const s = makeSigner('rsa');
    const signed = signPdfWith(await buildPdf(), { subFilter: 'adbe.pkcs7.sha1', sign: (d) => cmsSignSha1Encapsulated(d, s) });
    const [sig] = check(signed);
    expect(sig!).toMatchObject({ integrity: 'valid', digestAlgorithm: 'sha1', digestMatches: true, trust: 'trusted' });
    const forged = Buffer.from(signed);
    forged.write('T', forged.indexOf('verity-tests') + 'verity-tes'.length, 'latin1');
    const [bad] = check(forged);
    expect(bad!.integrity).toBe('broken');
    expect(bad!.problems.join(' ')).toMatch(/SHA-1 digest the signature encapsulates does not match/);
  });

  it('signed attributes stored unsorted (not DER) verify over their DER form, with a note', async () => {
    const s = makeSigner('ed25519');
    const [sig] = check(signPdfWith(await buildPdf(), { sign: (d) => ed25519Cms(d, s, true) }));
    expect(sig!.integrity).toBe('valid');
    expect(sig!.notes.join(' ')).toMatch(/not DER-encoded in the file/);
  });

  it('an edited byte without a recomputed digest breaks the messageDigest', async () => {
    const s = makeSigner('p256');
    const signed = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const forged = Buffer.from(signed);
    forged.write('T', forged.indexOf('verity-tests') + 'verity-tes'.length, 'latin1');
    const [sig] = check(forged);
    expect(sig!.integrity).toBe('broken');
    expect(sig!.digestMatches).toBe(false);
  });
});

describe('trust, reported apart from integrity', () => {
  it('a self-signed signer is untrusted, not forged', async () => {
    const s = makeSigner('p256', { selfSigned: true });
    const pdf = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const [sig] = check(pdf);
    expect(sig!.integrity).toBe('valid');
    expect(sig!.trust).toBe('untrusted');
    expect(sig!.trustEvaluation?.selfSigned).toBe(true);
    const r = await createEngine(testPorts({ config: { document: { trust_anchors: ROOT_PEM_PATH } } })).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.signatures).toEqual([expect.objectContaining({ integrity: 'valid', trust: 'untrusted', kind: 'signature' })]);
    const ev = r.evidence.find((e) => e.source === 'pdf_signature_trust');
    expect(ev?.finding).toMatch(/trust untrusted: .*\(it is self-signed\)/);
  });

  it('the same CA-issued signer is trusted with the root as document.trust_anchors, unknown without anchors', async () => {
    const s = makeSigner('rsa');
    const pdf = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    expect(check(pdf, NO_ANCHORS)[0]!.trust).toBe('unknown');
    const trusted = await createEngine(testPorts({ config: { document: { trust_anchors: ROOT_PEM_PATH } } })).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    expect(trusted.signatures?.[0]).toMatchObject({ integrity: 'valid', trust: 'trusted', covers_whole_document: true });
    expect(trusted.evidence.find((e) => e.source === 'pdf_signature_trust')?.finding).toMatch(/chains to the trust anchor CN=verity test root/);
    const none = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    expect(none.signatures?.[0]?.trust).toBe('unknown');
    expect(trusted.dimensions.source_authority).toBeGreaterThan(none.dimensions.source_authority);
  });

  it('a certificate that expired before the signing time is expired (integrity still valid)', async () => {
    const s = makeSigner('rsa', { from: '20200101000000Z', to: '20210101000000Z' });
    const pdf = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const [sig] = check(pdf);
    expect(sig!.integrity).toBe('valid');
    expect(sig!.trust).toBe('expired');
    expect(sig!.trustDetail).toMatch(/outside its validity period; validated at the claimed signing time 2025-01-01/);
  });

  it('revoked when an embedded CRL from the issuer lists the signer before the validation time; good otherwise', async () => {
    const revoked = makeSigner('rsa');
    const crl = revokeAndCrl(revoked);
    // The CRL's revocation date is when the test ran, so the claimed signing time is put after it.
    const pdf = signPdfWith(await buildPdf(), { m: 'D:20990101000000Z', sign: (d) => addCrl(cmsSign(d, revoked), crl) });
    const [sig] = check(pdf);
    expect(sig!.integrity).toBe('valid');
    expect(sig!.trust).toBe('revoked');
    expect(sig!.trustEvaluation?.revocation).toBe('revoked');
    expect(sig!.notes.join(' ')).toMatch(/embedded CRL from CN=verity test root lists the certificate as revoked/);

    const other = makeSigner('rsa');
    const [ok] = check(signPdfWith(await buildPdf(), { sign: (d) => addCrl(cmsSign(d, other), crl) }));
    expect(ok!.trust).toBe('trusted');
    expect(ok!.trustEvaluation?.revocation).toBe('good');
    const [noCrl] = check(signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, other) }));
    expect(noCrl!.trustEvaluation?.revocation).toBe('unknown');
  });

  it('OCSP responses in the /DSS decide revocation: good, then revoked', async () => {
    const s = makeSigner('p256');
    const signed = signPdfWith(await buildPdf(), { m: 'D:20990101000000Z', sign: (d) => cmsSign(d, s) });
    const good = addDss(signed, { ocsps: [ocspResponse(s)] });
    const [g] = check(good);
    expect(g!.trustEvaluation?.revocation).toBe('good');
    expect(g!.trust).toBe('expired'); // 2099 is past the certificate's 2030 end; revocation itself is fine
    revokeAndCrl(s);
    const [r] = check(addDss(signed, { ocsps: [ocspResponse(s)] }));
    expect(r!.trust).toBe('revoked');
    expect(r!.notes.join(' ')).toMatch(/embedded OCSP response says the certificate was revoked/);
    expect(r!.integrity).toBe('valid');
  });

  it('a missing anchor file is a warning, not a failure', async () => {
    const s = makeSigner('rsa');
    const pdf = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const r = await createEngine(testPorts({ config: { document: { trust_anchors: '/nonexistent/anchors.pem' } } })).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    expect(r.warnings?.some((w) => /document\.trust_anchors: \/nonexistent\/anchors\.pem cannot be read/.test(w))).toBe(true);
    expect(r.signatures?.[0]?.trust).toBe('untrusted');
  });
});

describe('RFC 3161 time-stamps', () => {
  it('a document time-stamp (ETSI.RFC3161) is checked against its messageImprint: valid, not forged', async () => {
    const s = makeSigner('rsa');
    const signed = signPdfWith(await buildPdf(), { sign: (d) => cmsSign(d, s) });
    const stamped = signPdfWith(signed, { docTimestamp: true, m: null, sign: (d) => timestampToken(d) });
    const sigs = check(stamped);
    expect(sigs).toHaveLength(2);
    const ts = sigs.find((x) => x.kind === 'document_timestamp')!;
    expect(ts.problems).toEqual([]);
    expect(ts.integrity).toBe('valid');
    expect(ts.digestMatches).toBe(true);
    expect(ts.signer).toMatch(/verity test TSA/);
    expect(ts.trust).toBe('trusted');
    const r = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(stamped), mime_type: 'application/pdf' });
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.signatures?.map((x) => x.kind).sort()).toEqual(['document_timestamp', 'signature']);
  });

  it('a covering document time-stamp is the validation time of a signature without its own (PAdES-LTA)', async () => {
    // openssl ts stamps the wall-clock time, so the certificate runs to mid-2099; the claimed
    // signing time, December 2099, alone would make it read expired.
    const s = makeSigner('rsa', { to: '20990601000000Z' });
    const signed = signPdfWith(await buildPdf(), { m: 'D:20991201000000Z', sign: (d) => cmsSign(d, s) });
    expect(check(signed)[0]!.trust).toBe('expired');
    const stamped = signPdfWith(signed, { docTimestamp: true, m: null, sign: (d) => timestampToken(d) });
    const sig = check(stamped).find((x) => x.kind === 'signature')!;
    expect(sig.trust).toBe('trusted');
    expect(sig.trustEvaluation?.timeSource).toBe('timestamp');
    expect(sig.trustDetail).toMatch(/document time-stamp \d+ 0 obj, which covers this signature/);
  });

  it('a document time-stamp over other bytes is broken', async () => {
    const pdf = await buildPdf();
    const stamped = signPdfWith(pdf, { docTimestamp: true, m: null, sign: () => timestampToken(Buffer.from('something else')) });
    const [ts] = check(stamped);
    expect(ts!.integrity).toBe('broken');
    expect(ts!.problems.join(' ')).toMatch(/messageImprint does not match/);
  });

  it('a signature time-stamp token must stamp the signature value; its time becomes the validation time', async () => {
    const s = makeSigner('rsa');
    const good = signPdfWith(await buildPdf(), { sign: (d) => addSignatureTimestamp(cmsSign(d, s)) });
    const [sig] = check(good);
    expect(sig!.integrity).toBe('valid');
    expect(sig!.timestamp).toMatchObject({ integrity: 'valid', trust: 'trusted' });
    expect(sig!.trustEvaluation?.timeSource).toBe('timestamp');

    const bad = signPdfWith(await buildPdf(), { sign: (d) => addSignatureTimestamp(cmsSign(d, s), Buffer.from('not the signature')) });
    const [b] = check(bad);
    expect(b!.integrity).toBe('broken');
    expect(b!.problems.join(' ')).toMatch(/signature time-stamp: .*messageImprint/);
  });
});

describe('unsupported or unreadable signatures are unknown, never forged and never valid', () => {
  it('a /Contents that is not a CMS gives integrity unknown and a warning', async () => {
    const pdf = signPdfWith(await buildPdf(), { sign: () => Buffer.from('3003020101', 'hex') });
    const [sig] = check(pdf);
    expect(sig!.integrity).toBe('unknown');
    expect(sig!.problems).toEqual([]);
    const r = await createEngine(testPorts()).verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.warnings?.some((w) => /could not be verified cryptographically/.test(w))).toBe(true);
  });
});
