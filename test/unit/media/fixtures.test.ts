import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { MediaRequest } from '../../../src/api/requests.js';
import { readC2pa } from '../../../src/engine/media/c2pa.js';
import { findDecoder } from '../../../src/engine/media/ffmpeg.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { makePorts } from './helpers.js';

const TRUST = fixture('c2pa', 'trust', 'test_cert_root_bundle.pem');
const read = (name: string, mime: string, anchors = false) =>
  readC2pa(readFileSync(fixture('c2pa', name)), mime, anchors ? { trustAnchorsPem: readFileSync(TRUST, 'utf8') } : {});
const codes = (w: Awaited<ReturnType<typeof read>>, kind: string) => (w?.status ?? []).filter((s) => s.kind === kind).map((s) => s.code);
const verifyFile = (path: string, config = {}) =>
  verifyMedia(MediaRequest.parse({ file: readFileSync(path).toString('base64') }), makePorts(config), {});

describeFixtures('C2PA conformance files (../shared/fixtures/c2pa)', () => {
  it.each(['C.jpg', 'CA.jpg', 'boxhash.jpg', 'trustnxt-icon-signed-timestamp.jpg'])('%s: valid, trusted only with the test anchors', async (f) => {
    expect((await read(f, 'image/jpeg'))?.validation_state).toBe('valid');
    expect((await read(f, 'image/jpeg', true))?.validation_state).toBe('trusted');
  });
  it('XCA.jpg: data hash mismatch → invalid, and the media result is manipulated', async () => {
    const w = await read('XCA.jpg', 'image/jpeg');
    expect(w?.validation_state).toBe('invalid');
    expect(codes(w, 'failure')).toContain('assertion.dataHash.mismatch');
    const r = await verifyFile(fixture('c2pa', 'XCA.jpg'));
    expect(r.authenticity).toBe('manipulated');
    expect(r.trust_score).toBeLessThanOrEqual(0.05);
  });
  it('E-sig-CA.jpg: claim signature mismatch', async () => {
    const w = await read('E-sig-CA.jpg', 'image/jpeg', true);
    expect(w?.validation_state).toBe('invalid');
    expect(codes(w, 'failure')).toContain('claimSignature.mismatch');
  });
  it('CIE-sig-CA.jpg: active manifest valid; ingredient problems only informational', async () => {
    const w = await read('CIE-sig-CA.jpg', 'image/jpeg');
    expect(w?.validation_state).toBe('valid');
    expect(codes(w, 'failure')).toEqual([]);
    expect(w?.ingredients.length).toBeGreaterThan(0);
  });
  it('CA_ct.jpg: valid; timeStamp.malformed informational', async () => {
    const w = await read('CA_ct.jpg', 'image/jpeg', true);
    expect(w?.validation_state).toBe('trusted');
    expect(codes(w, 'informational')).toContain('timeStamp.malformed');
  });
  it('no_manifest.jpg → null; no_alg / prerelease / cloudx → unreadable, never thrown, no network', async () => {
    expect(await read('no_manifest.jpg', 'image/jpeg')).toBeNull();
    expect(codes(await read('no_alg.jpg', 'image/jpeg'), 'failure')).toEqual(['algorithm.unsupported']);
    expect((await read('prerelease.jpg', 'image/jpeg'))?.validation_state).toBe('unreadable');
    const cloud = await read('cloudx.jpg', 'image/jpeg');
    expect(cloud?.validation_state).toBe('unreadable');
    expect(cloud?.remote_manifest_url).toMatch(/^https:\/\/cai-manifestx\.adobe\.com\//);
  });
  it('ocsp.jpg: Photoshop actions with compositeWithTrainedAlgorithmicMedia', async () => {
    const w = await read('ocsp.jpg', 'image/jpeg');
    expect(w?.validation_state).toBe('valid');
    expect(w?.actions.some((a) => a.digital_source_type?.endsWith('compositeWithTrainedAlgorithmicMedia'))).toBe(true);
  });
  it('video1.mp4 (BMFF) and the HEIC read as valid; the MP4 verifies as a video', async () => {
    expect((await read('video1.mp4', 'video/mp4'))?.validation_state).toBe('valid');
    expect((await read('trustnxt-icon-signed-v2-bmff.heic', 'image/heic'))?.validation_state).toBe('valid');
    const r = await verifyFile(fixture('c2pa', 'video1.mp4'));
    expect(r.metadata.format).toBe('mp4');
    expect(r.watermark?.validation_state).toBe('valid');
    expect(r.provenance_source).toMatch(/^c2pa/);
    // Frames are read where ffmpeg is installed (video-frames.test.ts); without it the video is not
    // "incomplete" for that: the result says the pixels were not analysed and keeps its metadata reading.
    expect(r.authenticity).toBe('likely_authentic');
    expect(r.dimension_producers?.llm_analysis).toBe(findDecoder({}) ? 'pixel forensics and metadata' : 'metadata only (pixels not analysed)');
    const without = await verifyMedia(MediaRequest.parse({ file: readFileSync(fixture('c2pa', 'video1.mp4')).toString('base64') }), makePorts({ media: { ffmpeg: 'none' } }), {});
    expect(without.authenticity).toBe('likely_authentic');
    expect(without.dimension_producers?.llm_analysis).toBe('metadata only (pixels not analysed)');
    expect(without.warnings?.join(' ')).toMatch(/Video pixels not analysed/);
  });
  it('the signed HEIC verifies as a partial result (size from its ispe box, C2PA valid) though its pixels cannot be decoded here', async () => {
    const r = await verifyFile(fixture('c2pa', 'trustnxt-icon-signed-v2-bmff.heic'));
    expect(r.metadata.format).toBe('heif');
    expect(r.metadata.width).toBeGreaterThan(0);
    expect(r.watermark?.validation_state).toBe('valid');
    // Pixel forensics could not run because this build has no HEVC decoder, not because the file
    // is damaged: the valid C2PA hard binding vouches for the bytes, so likely_authentic with trust
    // capped at 0.6, and the first warning still says what was not checked.
    expect(r.authenticity).toBe('likely_authentic');
    expect(r.trust_score).toBeLessThanOrEqual(0.6);
    expect(r.warnings?.[0]).toMatch(/^Not checked: the pixels could not be decoded.*C2PA hard binding/);
    expect(r.dimension_producers?.source_authority).toBe('C2PA signature');
    expect(r.warnings?.some((w) => /Pixel analysis skipped/.test(w))).toBe(true);
    // The warnings name the real cause (no HEVC decoder in this build), not libvips's first line,
    // a seek error that reads as a damaged file.
    for (const w of r.warnings ?? []) expect(w).not.toMatch(/bad seek/);
    expect(r.warnings?.find((w) => /Pixel analysis skipped/.test(w))).toMatch(/this build cannot decode HEVC pixels \(libvips: the HEVC decoder has not been built in\)/);
  });
  it('the signed HEIC cut short is never likely_authentic: its C2PA binding no longer matches the bytes', async () => {
    const whole = readFileSync(fixture('c2pa', 'trustnxt-icon-signed-v2-bmff.heic'));
    const cut = join(mkdtempSync(join(tmpdir(), 'verity-heic-')), 'cut.heic');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.8)));
    let r: Awaited<ReturnType<typeof verifyFile>> | undefined;
    try {
      r = await verifyFile(cut);
    } catch (err) {
      expect((err as { code?: string }).code).toBe('UNPROCESSABLE_CONTENT');
      return;
    }
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
    expect(r.trust_score).toBeLessThanOrEqual(0.4);
  });
  it('amazon-titan-g1.png: c2pa.created with trainedAlgorithmicMedia → manipulated, high deepfake_score, no "no AI settings" finding', async () => {
    const r = await verifyFile(fixture('c2pa', 'amazon-titan-g1.png'));
    expect(r.watermark?.actions[0]).toMatchObject({ action: 'c2pa.created' });
    expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(r.authenticity).toBe('manipulated');
    expect(r.trust_score).toBeLessThanOrEqual(0.1);
    expect(r.evidence[0]!.finding).toMatch(/declares AI generation \(c2pa\.digital_source_type: trainedAlgorithmicMedia\)/);
    expect(r.evidence.some((e) => /trainedAlgorithmicMedia/.test(e.finding))).toBe(true);
    // The Content Credentials declare it: the metadata's "nothing found" would contradict that.
    expect(r.evidence.some((e) => e.source === 'metadata.ai_generator')).toBe(false);
    expect(r.evidence.some((e) => /No AI-generator/.test(`${e.finding} ${e.summary ?? ''}`))).toBe(false);
  });
  it('tampering with the pixels of a signed file (CA.jpg) turns it manipulated', async () => {
    const bytes = Buffer.from(readFileSync(fixture('c2pa', 'CA.jpg')));
    // Flip bytes near the end of the entropy-coded data (before EOI): pixels change, manifest does not.
    for (let i = bytes.length - 200; i < bytes.length - 150; i++) bytes[i] = bytes[i]! ^ 0x01;
    const r = await verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts({ c2pa: { trust_anchors: TRUST } }), {});
    expect(r.watermark?.validation_state).toBe('invalid');
    expect(r.authenticity).toBe('manipulated');
  });
  it('the C2PA manifest inside a PDF is read', async () => {
    const w = await readC2pa(readFileSync(fixture('pdf', 'c2pa-rs-express-signed.pdf')), 'application/pdf');
    expect(w?.claim_generator).toMatch(/Adobe_Express/);
  });
});

const exiftool = (path: string): Record<string, unknown> =>
  (JSON.parse(execFileSync('exiftool', ['-json', '-n', '-Make', '-Model', '-DateTimeOriginal', '-GPSLatitude', '-GPSLongitude', path], { encoding: 'utf8' })) as Record<string, unknown>[])[0]!;

describeFixtures('camera JPEGs read as exiftool reads them (../shared/fixtures/images/camera)', () => {
  const files = (() => { try { return readdirSync(fixture('images', 'camera')); } catch { return []; } })();
  it.each(files)('%s', async (f) => {
    const path = fixture('images', 'camera', f);
    const r = await verifyFile(path);
    const x = exiftool(path);
    expect(r.metadata.exif.make).toBe(x.Make ?? null);
    expect(r.metadata.exif.model).toBe(x.Model ?? null);
    expect(r.metadata.exif.datetime_original).toBe(x.DateTimeOriginal ?? null);
    if (x.GPSLatitude !== undefined) {
      expect(r.metadata.exif.gps?.lat).toBeCloseTo(Number(x.GPSLatitude), 6);
      expect(r.metadata.exif.gps?.lon).toBeCloseTo(Number(x.GPSLongitude), 6);
    } else expect(r.metadata.exif.gps).toBeNull();
  });
  it('Canon_40D_photoshop_import.jpg: GIMP named as the editor', async () => {
    const r = await verifyFile(fixture('images', 'camera', 'Canon_40D_photoshop_import.jpg'));
    expect(r.evidence.find((e) => e.source === 'metadata.editing_software')?.finding).toMatch(/GIMP 2\.4\.5/);
    expect(r.authenticity).toBe('suspicious');
  });
});

describeFixtures('AI-generator metadata (../shared/fixtures/images/ai-metadata)', () => {
  const expected: Record<string, RegExp> = {
    'automatic1111_cropped.png': /AUTOMATIC1111/,
    'automatic1111_cropped.jpg': /AUTOMATIC1111/,
    'img2img_cropped.png': /ComfyUI/,
    'invokeai_dream1.png': /InvokeAI/,
  };
  it.each(Object.keys(expected))('%s: manipulated, high deepfake_score with the generator named', async (f) => {
    const r = await verifyFile(fixture('images', 'ai-metadata', f));
    expect(r.deepfake_score).toBeGreaterThanOrEqual(0.9);
    expect(r.authenticity).toBe('manipulated');
    expect(r.evidence.find((e) => e.source === 'metadata.ai_generator')?.finding).toMatch(expected[f]!);
  });
});

describeFixtures('malformed files: a clear error or a partial result, never a crash (../shared/fixtures/images/malformed)', () => {
  const files = (() => { try { return readdirSync(fixture('images', 'malformed')); } catch { return []; } })();
  it.each(files)('%s', async (f) => {
    const bytes = readFileSync(fixture('images', 'malformed', f));
    try {
      const r = await verifyMedia({ file: bytes.toString('base64'), check_deepfakes: true, check_provenance: true, check_watermarks: true } as never, makePorts(), {});
      expect(r.metadata.width).toBeGreaterThan(0);
    } catch (err) {
      expect(err).toBeInstanceOf(VerityError);
      expect(['UNPROCESSABLE_CONTENT', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED']).toContain((err as VerityError).code);
    }
  });
});
