/** The speed paths keep their meaning: one decode shared by the hashes, orientation, sampled tiles. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analyzeImage } from '../../../src/engine/media/analyze-image.js';
import { contiguousPixels, cropView, decodeLuma, readHeader } from '../../../src/engine/media/decode.js';
import { sampledRows } from '../../../src/engine/media/forensics/tiles.js';
import { hamming, orientSquare, pHash } from '../../../src/engine/media/perceptual-hash.js';
import { cameraJpeg, CAMERA_EXIF, makePorts, scene } from './helpers.js';

describe('shared decode and sampling', () => {
  it('pHash from the shared plane equals (within 2 bits) the index path that reads only the file', async () => {
    const img = await cameraJpeg(scene(640, 480, 31), 640, 480);
    const header = await readHeader(img);
    const { plane } = await decodeLuma(img, header);
    expect(hamming(await pHash(img, { plane, header }), await pHash(img))).toBeLessThanOrEqual(2);
  });

  it('an image wider than 4096: decoded once, whole; the analysed crop is the pixels that libvips extracts, and the hash reads the whole plane', async () => {
    // A 4400×2400 scene (a small one enlarged: cheap to make, smooth like a photo).
    const W = 4400;
    const H = 2400;
    const img = await sharp(scene(W / 8, H / 8, 12), { raw: { width: W / 8, height: H / 8, channels: 3 } })
      .resize(W, H, { kernel: 'cubic' })
      .withExif(CAMERA_EXIF)
      .jpeg({ quality: 90, quantisationTable: 2 })
      .toBuffer();
    const header = await readHeader(img);
    const decoded = await decodeLuma(img, header);
    expect(decoded.whole).toMatchObject({ width: W, height: H, left: 0, top: 0 });
    const left = Math.floor((W - 4096) / 2 / 8) * 8;
    expect(decoded.plane).toMatchObject({ width: 4096, height: H, left, top: 0, stride: W });
    expect(decoded.plane.data.buffer).toBe(decoded.whole!.data.buffer); // a view, not a copy
    // What the crop-only decode (images over 2 × 4096² pixels) reads: libvips's extract of the green band.
    const extracted = await sharp(img).extract({ left, top: 0, width: 4096, height: H }).extractChannel(1).raw().toBuffer();
    expect(Buffer.from(contiguousPixels(decoded.plane)).equals(extracted)).toBe(true);
    // The hash of the whole plane agrees with the index path, which reads only the file.
    const fromPlane = await pHash(img, { plane: decoded.whole!, header });
    expect(hamming(fromPlane, await pHash(img))).toBeLessThanOrEqual(2);
    // And a crop alone is never hashed as if it were the image: it goes back to the file.
    expect(await pHash(img, { plane: decoded.plane, header })).toBe(await pHash(img));

    // Without the hash (no known-media index to search), only the crop is decoded: the same pixels.
    const cropOnly = await decodeLuma(img, header, undefined, false);
    expect(cropOnly.whole).toBeUndefined();
    expect(cropOnly.plane).toMatchObject({ width: 4096, height: H, left, top: 0 });
    expect(Buffer.from(cropOnly.plane.data).equals(extracted)).toBe(true);
    // And the analysis gives the same result, less the hash it was not asked for.
    const ports = makePorts();
    const opts = { checkDeepfakes: true, checkWatermarks: true, ports };
    const withHash = await analyzeImage(img, opts);
    const withoutHash = await analyzeImage(img, { ...opts, perceptualHash: false });
    expect(withHash.perceptualHash).toMatch(/^[0-9a-f]{16}$/);
    expect(withoutHash).toEqual({ ...withHash, perceptualHash: null });
  }, 30_000);

  it('the analysis reads the stored pixels: an embedded ICC profile (Display P3 here) changes nothing in the plane or the hash', async () => {
    const tagged = await sharp(scene(320, 256, 4), { raw: { width: 320, height: 256, channels: 3 } }).withIccProfile('p3').jpeg({ quality: 90 }).toBuffer();
    expect((await sharp(tagged).metadata()).icc).toBeDefined();
    // The same file without its APP2 ICC_PROFILE segments: the same coded pixels, no profile.
    const parts: Buffer[] = [tagged.subarray(0, 2)];
    let at = 2;
    while (tagged[at + 1] !== 0xda) {
      const end = at + 2 + tagged.readUInt16BE(at + 2);
      if (!(tagged[at + 1] === 0xe2 && tagged.toString('latin1', at + 4, at + 15) === 'ICC_PROFILE')) parts.push(tagged.subarray(at, end));
      at = end;
    }
    const bare = Buffer.concat([...parts, tagged.subarray(at)]);
    expect((await sharp(bare).metadata()).icc).toBeUndefined();
    const [a, b] = await Promise.all([tagged, bare].map(async (f) => (await decodeLuma(f, await readHeader(f))).plane.data));
    expect(Buffer.from(a!).equals(Buffer.from(b!))).toBe(true);
    // sharp's default read converts P3 to sRGB: other values, which the analyzers no longer see.
    const converted = await sharp(tagged).extractChannel(1).raw().toBuffer();
    expect(converted.equals(Buffer.from(a!))).toBe(false);
    expect(await pHash(tagged)).toBe(await pHash(bare));
  });

  it('cropView: a region as a view at the stride of the plane it is cut from, its offset in the image kept; contiguousPixels copies it out', () => {
    const src = { data: Uint8Array.from({ length: 6 * 4 }, (_, i) => i), width: 6, height: 4, left: 8, top: 16 };
    const c = cropView(src, 2, 1, 3, 2);
    expect(c).toMatchObject({ width: 3, height: 2, left: 10, top: 17, stride: 6 });
    expect(Array.from(contiguousPixels(c))).toEqual([8, 9, 10, 14, 15, 16]);
    // A view of a view keeps the first plane's stride.
    expect(Array.from(contiguousPixels(cropView(c, 1, 1, 2, 1)))).toEqual([15, 16]);
    expect(contiguousPixels(src)).toEqual(src.data);
  });

  it('EXIF orientation is applied to the hash: a file stored sideways with orientation 6 hashes like the upright one', async () => {
    const upright = await cameraJpeg(scene(480, 320, 8), 480, 320);
    // Store the pixels rotated 90° counter-clockwise and tag them "rotate 90° CW to display".
    const sideways = await sharp(upright).rotate(-90).withExif(CAMERA_EXIF).withMetadata({ orientation: 6 }).jpeg({ quality: 92 }).toBuffer();
    expect((await readHeader(sideways)).orientation).toBe(6);
    expect(hamming(await pHash(sideways), await pHash(upright))).toBeLessThanOrEqual(6);
  });

  it('orientSquare maps each EXIF orientation as a viewer would', () => {
    // 2×2 grid: a b / c d
    const px = Uint8Array.from([1, 2, 3, 4]);
    expect(Array.from(orientSquare(px, 2, 1))).toEqual([1, 2, 3, 4]);
    expect(Array.from(orientSquare(px, 2, 2))).toEqual([2, 1, 4, 3]);
    expect(Array.from(orientSquare(px, 2, 3))).toEqual([4, 3, 2, 1]);
    expect(Array.from(orientSquare(px, 2, 6))).toEqual([3, 1, 4, 2]);
    expect(Array.from(orientSquare(px, 2, 8))).toEqual([2, 4, 1, 3]);
  });

  it('tile sampling keeps whole 8-row bands: every vertical phase is read, and small images are read entirely', () => {
    const big = sampledRows(4000 * 3000);
    expect(big.length).toBe(24);
    expect(new Set(Array.from(big, (r) => r & 7)).size).toBe(8);
    expect(sampledRows(768 * 512).length).toBe(64);
  });

  it('a 12-megapixel photo with a pasted JPEG region is still caught with sampled tiles', async () => {
    const W = 4000;
    const H = 3000;
    const base = await sharp({ create: { width: W, height: H, channels: 3, background: { r: 110, g: 130, b: 150 }, noise: { type: 'gaussian', mean: 120, sigma: 18 } } })
      .blur(0.8)
      .withExif(CAMERA_EXIF)
      .jpeg({ quality: 92, quantisationTable: 2 })
      .toBuffer();
    const donor = await sharp(scene(448, 448, 7, 10), { raw: { width: 448, height: 448, channels: 3 } }).jpeg({ quality: 35 }).toBuffer();
    const spliced = await sharp(base)
      .composite([{ input: await sharp(donor).png().toBuffer(), left: 1203, top: 1005 }])
      .withExif(CAMERA_EXIF)
      .jpeg({ quality: 92, quantisationTable: 2 })
      .toBuffer();
    const clean = await analyzeImage(base, { checkDeepfakes: true, checkWatermarks: false, ports: makePorts() });
    const r = await analyzeImage(spliced, { checkDeepfakes: true, checkWatermarks: false, ports: makePorts() });
    expect(clean.signals.find((s) => s.analyzer === 'forensics.jpeg_grid')?.probability).toBe(0);
    const grid = r.signals.find((s) => s.analyzer === 'forensics.jpeg_grid')!;
    expect(grid.finding).toMatch(/second JPEG block grid/);
    expect(r.manipulationScore).toBeGreaterThan(clean.manipulationScore);
  }, 30_000);
});
