/** Ports and real generated images for the media tests (sharp builds every file; nothing is mocked). */
import sharp from 'sharp';
import { expect } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import type { HttpClient } from '../../../src/sources/http.js';
import type { EngineConfig, EnginePorts } from '../../../src/engine/types.js';
import { openStore, type Store } from '../../../src/store/local/database.js';

export function makePorts(config: EngineConfig = {}, store?: Store): EnginePorts {
  return {
    clock: { now: () => new Date('2026-01-15T12:00:00Z') },
    config,
    // Media analysis is offline: any HTTP use would be a bug, so the client refuses.
    http: new Proxy({}, { get: () => () => { throw new Error('media analysis must not use HTTP'); } }) as unknown as HttpClient,
    fetchInput: async () => { throw new Error('no URL inputs in these tests'); },
    store: store ? async () => store : undefined,
  };
}

export const memoryStore = (): Promise<Store> => openStore(':memory:');

/** The stable error code a promise rejects with (a VerityError), or 'resolved'. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    expect(err).toBeInstanceOf(VerityError);
    return (err as VerityError).code;
  }
}

/** Deterministic pseudo-random generator so "random" scenes are the same on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A camera-like scene: smooth gradients and shapes plus sensor-like Gaussian noise, as RGB raw. */
export function scene(width: number, height: number, seed = 1, noise = 6): Buffer {
  const r = rng(seed);
  const px = Buffer.alloc(width * height * 3);
  const blobs = Array.from({ length: 12 }, () => ({ x: r() * width, y: r() * height, rad: 40 + r() * 200, c: [r() * 255, r() * 255, r() * 255] }));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      let c0 = 60 + (120 * x) / width;
      let c1 = 80 + (100 * y) / height;
      let c2 = 120;
      for (const b of blobs) {
        const d = Math.hypot(x - b.x, y - b.y);
        const w = Math.max(0, 1 - d / b.rad);
        c0 += (b.c[0]! - c0) * w * 0.6;
        c1 += (b.c[1]! - c1) * w * 0.6;
        c2 += (b.c[2]! - c2) * w * 0.6;
      }
      // Box-Muller Gaussian noise, like a sensor's.
      const g = (): number => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r()) * noise;
      const i = (y * width + x) * 3;
      px[i] = Math.max(0, Math.min(255, c0 + g()));
      px[i + 1] = Math.max(0, Math.min(255, c1 + g()));
      px[i + 2] = Math.max(0, Math.min(255, c2 + g()));
    }
  return px;
}

export const CAMERA_EXIF = {
  IFD0: { Make: 'Canon', Model: 'Canon EOS 5D Mark IV', ModifyDate: '2025:06:01 10:00:00' },
  IFD2: { DateTimeOriginal: '2025:06:01 10:00:00', ExposureTime: '1/125', FNumber: '8' },
};

/** Encodes like a camera: non-libjpeg quantization tables (mozjpeg table 2), 4:2:2-ish quality, EXIF. */
export async function cameraJpeg(raw: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .withExif(CAMERA_EXIF)
    .jpeg({ quality: 92, quantisationTable: 2, chromaSubsampling: '4:2:0' })
    .toBuffer();
}

/** A camera-like host with a 256×256 patch from a quality-35 JPEG pasted off the 8-pixel grid. */
export async function splicedJpeg(left = 203, top = 125): Promise<{ bytes: Buffer; pasted: { x: number; y: number; width: number; height: number } }> {
  const W = 768, H = 512;
  const host = await cameraJpeg(scene(W, H, 1), W, H);
  const donor = await sharp(scene(320, 320, 7, 10), { raw: { width: 320, height: 320, channels: 3 } }).jpeg({ quality: 35 }).toBuffer();
  const patch = await sharp(donor).extract({ left: 0, top: 0, width: 256, height: 256 }).png().toBuffer();
  const bytes = await sharp(host).composite([{ input: patch, left, top }]).withExif(CAMERA_EXIF).jpeg({ quality: 92, quantisationTable: 2 }).toBuffer();
  return { bytes, pasted: { x: left, y: top, width: 256, height: 256 } };
}
