/**
 * The project signs its own C2PA images (c2pa-wasm's builder, a CA and signing certificate made
 * with openssl at test time; see c2pa-signing.ts), then tampers with the pixels or the manifest
 * and checks that verification turns `manipulated`.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import { readC2pa } from '../../../src/engine/media/c2pa.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import type { Computed } from '../../../src/engine/types.js';
import { makeTestPki, signWithTestCert, type TestPki } from './c2pa-signing.js';
import { cameraJpeg, makePorts, scene } from './helpers.js';

const failures = (r: Computed<MediaResult>): string[] => (r.watermark?.status ?? []).filter((s) => s.kind === 'failure').map((s) => s.code);

describe('self-signed C2PA: sign, verify, tamper', () => {
  let pki: TestPki;
  let original: Buffer;
  let signed: Buffer;
  const verify = (bytes: Buffer, anchors = true): Promise<Computed<MediaResult>> =>
    verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(anchors ? { c2pa: { trust_anchors: pki.caPem } } : {}), {});

  beforeAll(async () => {
    pki = makeTestPki();
    original = await cameraJpeg(scene(512, 384, 21), 512, 384);
    signed = await signWithTestCert(original, 'image/jpeg', pki);
  });

  it('the test certificate has the C2PA signer profile and the signed file grows by the manifest', () => {
    expect(signed.length).toBeGreaterThan(original.length + 4096);
    expect(signed.includes(Buffer.from('c2pa'))).toBe(true);
  });

  it('a signed capture with our anchor configured is trusted and authentic; without it, valid but unknown signer', async () => {
    const r = await verify(signed);
    expect(r.watermark?.validation_state).toBe('trusted');
    expect(r.watermark?.signer).toBe('verity tests');
    expect(r.watermark?.claim_generator).toMatch(/verity-tests/);
    expect(r.watermark?.actions[0]).toMatchObject({ action: 'c2pa.created', digital_source_type: expect.stringMatching(/digitalCapture$/) });
    expect(failures(r)).toEqual([]);
    expect(r.authenticity).toBe('authentic');
    expect(r.trust_score).toBeGreaterThanOrEqual(0.9);
    // No time-stamp authority signed the claim, so there is no trustworthy date for a provenance entry.
    expect(r.watermark?.signed_at).toBeNull();
    expect(r.provenance).toEqual([]);

    const unknown = await verify(signed, false);
    expect(unknown.watermark?.validation_state).toBe('valid');
    expect(unknown.authenticity).toBe('likely_authentic');
    expect(unknown.trust_score).toBeLessThan(r.trust_score);
  });

  it('changing pixels after signing → assertion.dataHash.mismatch → manipulated', async () => {
    const tampered = Buffer.from(signed);
    // Flip bits in the entropy-coded data just before EOI: the picture changes, the manifest does not.
    for (let i = tampered.length - 120; i < tampered.length - 60; i++) tampered[i] = tampered[i]! ^ 0x04;
    const r = await verify(tampered);
    expect(r.watermark?.validation_state).toBe('invalid');
    expect(failures(r)).toContain('assertion.dataHash.mismatch');
    expect(r.authenticity).toBe('manipulated');
    expect(r.trust_score).toBeLessThanOrEqual(0.05);
    expect(r.evidence[0]!.finding).toMatch(/C2PA validation failed/);
  });

  it('editing an assertion inside the manifest (digitalCapture → digitalCapturf) → hashed URI mismatch → manipulated', async () => {
    const tampered = Buffer.from(signed);
    const at = tampered.indexOf(Buffer.from('digitalsourcetype/digitalCapture'));
    expect(at).toBeGreaterThan(0);
    const last = at + 'digitalsourcetype/digitalCapture'.length - 1;
    tampered[last] = 'f'.charCodeAt(0);
    const r = await verify(tampered);
    expect(r.watermark?.validation_state).toBe('invalid');
    expect(failures(r).some((c) => /hashedURI\.mismatch|actions.*mismatch/.test(c))).toBe(true);
    expect(r.authenticity).toBe('manipulated');
  });

  it('editing the claim (the claim generator name) breaks the claim signature → manipulated', async () => {
    const tampered = Buffer.from(signed);
    const at = tampered.indexOf(Buffer.from('verity-tests'));
    expect(at).toBeGreaterThan(0);
    tampered[at] = 'V'.charCodeAt(0);
    const r = await verify(tampered);
    expect(failures(r)).toContain('claimSignature.mismatch');
    expect(r.authenticity).toBe('manipulated');
  });

  it('a manifest declaring an edit is trusted but not "authentic"; one declaring AI generation raises deepfake_score', async () => {
    const edited = await signWithTestCert(original, 'image/jpeg', pki, {
      actions: [
        { action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture' },
        { action: 'c2pa.color_adjustments' },
      ],
    });
    const e = await verify(edited);
    expect(e.watermark?.validation_state).toBe('trusted');
    expect(e.authenticity).toBe('likely_authentic');

    const ai = await signWithTestCert(original, 'image/jpeg', pki, {
      actions: [{ action: 'c2pa.created', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' }],
    });
    const a = await verify(ai);
    expect(a.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(a.authenticity).toBe('manipulated'); // its own Content Credentials declare AI generation
  });

  it('a signed PNG reads as trusted; re-encoding it drops the manifest (null watermark, no crash)', async () => {
    const png = await sharp(scene(256, 256, 5), { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
    const signedPng = await signWithTestCert(png, 'image/png', pki, { title: 'test.png' });
    expect((await readC2pa(signedPng, 'image/png', { trustAnchorsPem: pki.caPem }))?.validation_state).toBe('trusted');
    const reencoded = await sharp(signedPng).png().toBuffer();
    expect(await readC2pa(reencoded, 'image/png')).toBeNull();
  });
});
