/**
 * detect-type.ts answers plain JPEGs without loading file-type: that answer must be file-type's own
 * on every input it takes (real JPEGs built here and from the shared fixtures, truncated and odd
 * headers), and the inputs it leaves alone (JPEG-LS, other formats) still go to file-type.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { detectMediaType, isPlainJpeg } from '../../../src/engine/media/detect-type.js';
import { fixturesDir, haveFixtures } from '../../helpers/fixtures.js';

const fixtureFiles = (): string[] => {
  if (!haveFixtures) return [];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  for (const sub of ['images', 'c2pa']) {
    const d = join(fixturesDir, sub);
    try {
      walk(d);
    } catch {
      // that fixture folder is absent here
    }
  }
  return out;
};

describe('JPEG fast path of the type detection', () => {
  it('agrees with file-type on JPEGs, truncated headers and near misses', async () => {
    const jpeg = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    const cases: Buffer[] = [
      jpeg,
      jpeg.subarray(0, 3),
      jpeg.subarray(0, 4),
      Buffer.from([0xff, 0xd8, 0xff, 0xf7, 0, 0, 0, 0]), // JPEG-LS: not ours
      Buffer.from([0xff, 0xd8, 0xfe, 0xe0]),
      Buffer.from([0xff, 0xd8]),
      await sharp(jpeg).png().toBuffer(),
    ];
    for (const b of cases) {
      const ft = await fileTypeFromBuffer(b);
      if (isPlainJpeg(b)) expect(ft?.mime).toBe('image/jpeg');
      else expect(ft?.mime).not.toBe('image/jpeg');
    }
    expect(isPlainJpeg(jpeg)).toBe(true);
    expect(isPlainJpeg(Buffer.from([0xff, 0xd8, 0xff, 0xf7]))).toBe(false);
  });

  it('gives file-type\'s answer for every shared fixture image', async () => {
    const files = fixtureFiles();
    let jpegs = 0;
    for (const f of files) {
      const bytes = readFileSync(f);
      if (!bytes.length) continue;
      const ft = await fileTypeFromBuffer(bytes);
      if (isPlainJpeg(bytes)) {
        jpegs++;
        expect(ft?.mime, f).toBe('image/jpeg');
        expect((await detectMediaType(bytes)).mime).toBe('image/jpeg');
      } else expect(ft?.mime, f).not.toBe('image/jpeg');
    }
    if (haveFixtures) expect(jpegs).toBeGreaterThan(0);
  });
});
