import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import type { Computed } from '../../../src/engine/types.js';
import { cameraJpeg, makePorts, scene } from './helpers.js';

const W = 768;
const H = 512;
const verify = (bytes: Buffer): Promise<Computed<MediaResult>> =>
  verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(), {});
const evidenceOf = (r: Computed<MediaResult>, source: string): string => r.evidence.find((e) => e.source === source)?.finding ?? '';

describe('generated images: clean, spliced, re-saved', () => {
  let clean: Buffer;
  let cleanResult: Computed<MediaResult>;
  beforeAll(async () => {
    clean = await cameraJpeg(scene(W, H, 1), W, H);
    cleanResult = await verify(clean);
  });

  it('a clean camera-like JPEG is likely_authentic with its metadata read', () => {
    expect(cleanResult.authenticity).toBe('likely_authentic');
    expect(cleanResult.metadata).toMatchObject({ width: W, height: H, format: 'jpeg', exif: { make: 'Canon', model: 'Canon EOS 5D Mark IV', datetime_original: '2025:06:01 10:00:00' } });
    expect(cleanResult.trust_score).toBeGreaterThanOrEqual(0.6);
    expect(cleanResult.deepfake_score).toBeLessThan(0.1);
    expect(evidenceOf(cleanResult, 'forensics.jpeg_grid')).toMatch(/no region with a foreign grid|too weak/);
    expect(cleanResult.provenance_source).toBeNull();
  });

  it('a region pasted from another, lower-quality JPEG at an off-grid position lowers trust and is named', async () => {
    const donor = await sharp(scene(320, 320, 7, 10), { raw: { width: 320, height: 320, channels: 3 } }).jpeg({ quality: 35 }).toBuffer();
    const patch = await sharp(donor).extract({ left: 0, top: 0, width: 256, height: 256 }).png().toBuffer();
    const spliced = await sharp(clean)
      .composite([{ input: patch, left: 203, top: 125 }])
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS 5D Mark IV' }, IFD2: { DateTimeOriginal: '2025:06:01 10:00:00' } })
      .jpeg({ quality: 92, quantisationTable: 2 })
      .toBuffer();
    const r = await verify(spliced);
    expect(r.trust_score).toBeLessThan(cleanResult.trust_score);
    expect(['suspicious', 'manipulated']).toContain(r.authenticity);
    expect(evidenceOf(r, 'forensics.jpeg_grid')).toMatch(/second JPEG block grid/);
  });

  it('the same image re-saved by an editor gets lower trust, and the evidence says which editor', async () => {
    const resaved = await sharp(clean)
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS 5D Mark IV', Software: 'GIMP 2.10.34', ModifyDate: '2025:07:02 09:00:00' }, IFD2: { DateTimeOriginal: '2025:06:01 10:00:00' } })
      .jpeg({ quality: 85 })
      .toBuffer();
    const r = await verify(resaved);
    expect(r.trust_score).toBeLessThan(cleanResult.trust_score);
    expect(r.authenticity).toBe('suspicious');
    expect(evidenceOf(r, 'metadata.editing_software')).toMatch(/GIMP/);
    expect(evidenceOf(r, 'forensics.jpeg_quantization')).toMatch(/standard tables/);
  });

  it('EXIF thumbnail check: a matching camera thumbnail is reported as matching', async () => {
    // sharp cannot write IFD1 thumbnails; the check must simply not invent one.
    expect(cleanResult.evidence.some((e) => e.source === 'forensics.exif_thumbnail')).toBe(false);
  });

  it('nearest-neighbour 2× upscaling shows in the residual spectrum', async () => {
    const small = scene(256, 256, 3, 8);
    const up = await sharp(small, { raw: { width: 256, height: 256, channels: 3 } }).resize(512, 512, { kernel: 'nearest' }).png().toBuffer();
    const r = await verify(up);
    expect(evidenceOf(r, 'forensics.upsampling_spectrum')).toMatch(/Periodic spectral peaks/);
    const plain = await sharp(scene(512, 512, 3, 8), { raw: { width: 512, height: 512, channels: 3 } }).png().toBuffer();
    expect(evidenceOf(await verify(plain), 'forensics.upsampling_spectrum')).toMatch(/No upsampling periodicity/);
  });
});
