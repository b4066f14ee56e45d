/**
 * heif-items.ts: the pixels' coding from the file's item list, not from libvips's brand-based
 * guess (an AV1 image in a `mif1` file reads as "hevc" in libvips's `heif-compression`).
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { heifPixelCoding } from '../../../src/engine/media/heif-items.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';

const box = (type: string, ...body: Buffer[]): Buffer => {
  const payload = Buffer.concat(body);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
};
const full = (version: number): Buffer => Buffer.from([version, 0, 0, 0]);
const u16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const infe = (id: number, type: string, version = 2): Buffer =>
  box('infe', full(version), version === 2 ? u16(id) : u32(id), u16(0), Buffer.from(type, 'latin1'), Buffer.from([0]));
const heif = (brand: string, primary: number | null, items: Buffer[]): Buffer =>
  Buffer.concat([
    box('ftyp', Buffer.from(`${brand}\0\0\0\0mif1`, 'latin1')),
    box('meta', full(0), box('hdlr', full(0), u32(0), Buffer.from('pict'), Buffer.alloc(13)), ...(primary === null ? [] : [box('pitm', full(0), u16(primary))]), box('iinf', full(0), u16(items.length), ...items)),
  ]);

describe("a HEIF's pixel coding from its items", () => {
  it('reads the primary item, a grid\'s tiles, version 3 entries, and gives null when it cannot tell', () => {
    expect(heifPixelCoding(heif('mif1', 1, [infe(1, 'av01'), infe(2, 'Exif')]))).toBe('av1');
    expect(heifPixelCoding(heif('heic', 1, [infe(1, 'hvc1')]))).toBe('hevc');
    expect(heifPixelCoding(heif('mif1', 7, [infe(7, 'grid'), infe(8, 'hvc1'), infe(9, 'hvc1'), infe(10, 'Exif')]))).toBe('hevc');
    expect(heifPixelCoding(heif('mif1', 70000, [infe(70000, 'avc1', 3)]))).toBe('avc');
    expect(heifPixelCoding(heif('mif1', null, [infe(1, 'jpeg')]))).toBe('jpeg');
    // Tiles that disagree, an unknown primary type, no item list, a cut file: not known.
    expect(heifPixelCoding(heif('mif1', 1, [infe(1, 'grid'), infe(2, 'hvc1'), infe(3, 'av01')]))).toBeNull();
    expect(heifPixelCoding(heif('mif1', 1, [infe(1, 'zzzz'), infe(2, 'hvc1')]))).toBeNull();
    expect(heifPixelCoding(box('ftyp', Buffer.from('heic\0\0\0\0', 'latin1')))).toBeNull();
    const whole = heif('heic', 1, [infe(1, 'hvc1')]);
    for (let cut = 0; cut < whole.length; cut++) expect(() => heifPixelCoding(whole.subarray(0, cut))).not.toThrow();
    expect(heifPixelCoding(Buffer.from([0, 0, 0, 1, 0x6d, 0x65, 0x74, 0x61, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))).toBeNull();
  });

  it("an AV1 image whose major brand is mif1: av1, where libvips's metadata says hevc", async () => {
    const avif = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 200, b: 90 } } }).avif().toBuffer();
    const mif1 = Buffer.from(avif);
    mif1.write('mif1', 8, 'latin1');
    expect((await sharp(mif1).metadata()).compression).toBe('hevc'); // the premise: libvips guesses from the brand
    expect(heifPixelCoding(avif)).toBe('av1');
    expect(heifPixelCoding(mif1)).toBe('av1');
  });
});

describeFixtures('a real HEVC-coded HEIC (../shared/fixtures/c2pa)', () => {
  it('reads as hevc', () => {
    expect(heifPixelCoding(readFileSync(fixture('c2pa', 'trustnxt-icon-signed-v2-bmff.heic')))).toBe('hevc');
  });
});
