/** The speed paths keep their meaning: one decode shared by the hashes, orientation, sampled tiles. */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { analyzeImage } from '../../../src/engine/media/analyze-image.js';
import { decodeLuma, readHeader } from '../../../src/engine/media/decode.js';
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
