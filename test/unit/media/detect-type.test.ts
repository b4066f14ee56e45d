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
import { detectMediaType, isPlainJpeg, isWebp, plainPngMime } from '../../../src/engine/media/detect-type.js';
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

/** A PNG chunk (the CRC is not checked by either reader). */
const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, data, Buffer.alloc(4)]);
};

describe('PNG and WebP fast paths of the type detection', () => {
  it('agree with file-type on PNGs, APNGs, odd chunk orders, truncations and near misses', async () => {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#808080' } }).png().toBuffer();
    const sig = png.subarray(0, 8);
    const ihdr = png.subarray(8, 8 + 25);
    const rest = png.subarray(8 + 25);
    const idatAt = png.indexOf('IDAT') - 4;
    const cases: Buffer[] = [
      png,
      Buffer.concat([sig, ihdr, chunk('acTL', Buffer.alloc(8)), rest]), // APNG
      Buffer.concat([sig, ihdr, chunk('tEXt', Buffer.from('Comment\0hello')), rest]),
      Buffer.concat([sig, ihdr, rest.subarray(0, idatAt - 33), chunk('acTL', Buffer.alloc(8)), rest.subarray(idatAt - 33)]), // acTL just before the IDAT
      Buffer.concat([sig, chunk('CgBI', Buffer.alloc(4)), ihdr, rest]), // Apple's CgBI first
      Buffer.concat([sig, chunk('IHDR', Buffer.alloc(12)), rest]), // a 12-byte IHDR
      Buffer.concat([sig, chunk('tEXt', Buffer.from('a\0b')), ihdr, rest]), // IHDR not first
      Buffer.concat([sig, ihdr, chunk('tEXt', Buffer.alloc(64)).subarray(0, 30)]), // a chunk cut short
      Buffer.concat([sig, ihdr, Buffer.from([0xff, 0xff, 0xff, 0xf0]), Buffer.from('tEXt'), rest]), // negative length
      Buffer.concat([sig, ihdr]), // no image data at all
      png.subarray(0, 12),
      png.subarray(0, 40),
      Buffer.concat([sig, ihdr, ...Array.from({ length: 600 }, () => chunk('tEXt', Buffer.from('k\0v'))), rest]), // past file-type's chunk bound
      await sharp(png).webp().toBuffer(),
      Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt ')]),
      Buffer.from('RIFF\0\0\0\0WEB'),
    ];
    // What the fast paths answer (undefined: left to file-type, whose answer then stands).
    const answered: (string | undefined)[] = [];
    for (const [i, b] of cases.entries()) {
      const fast = plainPngMime(b) ?? (isWebp(b) ? 'image/webp' : undefined);
      answered.push(fast);
      if (fast) expect((await fileTypeFromBuffer(b))?.mime, `case ${i}`).toBe(fast);
    }
    expect(answered.slice(0, 4)).toEqual(['image/png', 'image/apng', 'image/png', 'image/apng']);
    expect(answered.slice(4, 13).every((a) => a === undefined)).toBe(true);
    expect(answered.slice(13)).toEqual(['image/webp', undefined, undefined]);
  });

  it('give file-type\'s answer for every shared fixture PNG and WebP', async () => {
    let n = 0;
    for (const f of fixtureFiles()) {
      const bytes = readFileSync(f);
      const fast = plainPngMime(bytes) ?? (isWebp(bytes) ? 'image/webp' : undefined);
      if (!fast) continue;
      n++;
      expect((await fileTypeFromBuffer(bytes))?.mime, f).toBe(fast);
      expect((await detectMediaType(bytes)).mime, f).toBe(fast);
    }
    if (haveFixtures) expect(n).toBeGreaterThan(0);
  });
});
