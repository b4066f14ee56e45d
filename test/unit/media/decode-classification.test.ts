// A decode failure's meaning is decided from the header and the libraries sharp reports, never
// from libvips's error text: that text comes from one buffer per process, shared by concurrent
// decodes, so it may be another decode's words or "Unknown error". Here a real sharp is wrapped so
// that every failure carries such a foreign text, as a busy process would hand it over.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { decodeLuma, loadSharp, readHeader } from '../../../src/engine/media/decode.js';
import { decodeOutcome, headerOf, missingPixelCodec, type ImageHeader } from '../../../src/engine/media/luma-decode.js';
import { cameraJpeg, scene } from './helpers.js';

type Sharp = typeof sharp;

/** Real sharp whose every failed `toBuffer` reports `text` instead of its own message. */
function sharpReporting(text: string): Sharp {
  const wrapped = ((...args: Parameters<Sharp>) => {
    const img = sharp(...args);
    const toBuffer = img.toBuffer.bind(img) as (...a: unknown[]) => Promise<unknown>;
    (img as unknown as { toBuffer: unknown }).toBuffer = (...a: unknown[]) =>
      toBuffer(...a).catch(() => {
        throw new Error(text);
      });
    return img;
  }) as unknown as Sharp;
  return new Proxy(wrapped, { get: (target, key) => (key in target ? Reflect.get(target, key) : Reflect.get(sharp, key)) });
}

/** A JPEG whose scan carries stray restart markers: the strict decode fails, the lenient one reads it. */
async function corruptJpeg(): Promise<Buffer> {
  const broken = Buffer.from(await cameraJpeg(scene(512, 384, 3), 512, 384));
  for (let i = Math.floor(broken.length / 3); i < broken.length - 2; i += 97) broken[i] = 0xd3;
  return broken;
}

const FOREIGN = [
  'Unknown error',
  'heif: Error while loading plugin: Support for this compression format has not been built in: HEVC (a suitable decoder plugin is libde265) (11.6003)',
  'VipsForeignLoad: buffer is not in a known file format',
  'Input image exceeds pixel limit',
];

const heic: ImageHeader = { width: 1056, height: 1056, format: 'heif', pages: 1, channels: 3, space: 'srgb', orientation: 1, compression: 'hevc' };

describe('decode failures are classified from facts, not from libvips\'s shared error text', () => {
  it('a corrupt JPEG is read leniently whatever words its strict failure came back with', async () => {
    const bytes = await corruptJpeg();
    const header = await headerOf(sharp, bytes);
    if ('problem' in header) throw new Error('header unreadable');
    const own = await decodeOutcome(sharp, bytes, header, false);
    expect('ok' in own && own.partial).toBe(true); // the premise: strict fails, lenient recovers
    for (const text of FOREIGN) {
      const outcome = await decodeOutcome(sharpReporting(text), bytes, header, false);
      expect('ok' in outcome && outcome.partial, text).toBe(true);
      const luma = await decodeLuma(bytes, header, Promise.resolve(outcome), false);
      expect(luma.partial).toBe(true);
      expect(luma.problem).toBe('The image cannot be decoded: it looks truncated or corrupt');
      // Both decodes failing: the same 422 whatever the words.
      const failed = { strictError: new Error(text), lenientError: new Error(text) };
      await expect(decodeLuma(bytes, header, Promise.resolve(failed), false)).rejects.toMatchObject({
        code: 'UNPROCESSABLE_CONTENT',
        message: 'The image cannot be decoded: it looks truncated or corrupt',
      });
    }
  });

  it('a HEVC-coded HEIC is unsupported in this build whatever the text, and no lenient decode is tried', async () => {
    expect(missingPixelCodec(sharp, heic)).toBe('HEVC'); // sharp's prebuilt libvips: libheif with AV1 only
    for (const text of FOREIGN) {
      const outcome = { strictError: new Error(text) };
      const err = await decodeLuma(Buffer.alloc(0), heic, Promise.resolve(outcome), false).catch((e: unknown) => e);
      expect(err, text).toBeInstanceOf(VerityError);
      expect((err as VerityError).code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((err as VerityError).message).toBe('The image cannot be decoded here: this build cannot decode HEVC pixels (libvips: the HEVC decoder has not been built in)');
    }
    let tries = 0;
    const counting = new Proxy(sharp, { apply: (target, self, args: Parameters<Sharp>) => (tries++, Reflect.apply(target, self, args)) });
    const outcome = await decodeOutcome(counting, Buffer.from('not a heic at all'), heic, false);
    expect('lenientError' in outcome).toBe(false);
    expect(tries).toBe(1);
  });

  it("an AV1 image in a mif1 file (libvips's metadata says hevc) that fails to decode is tried leniently and read as corrupt, not as missing HEVC", async () => {
    const avif = await sharp(scene(256, 192, 5), { raw: { width: 256, height: 192, channels: 3 } }).avif({ quality: 60 }).toBuffer();
    const mif1 = Buffer.from(avif);
    mif1.write('mif1', 8, 'latin1');
    expect((await sharp(mif1).metadata()).compression).toBe('hevc'); // the premise: libvips guesses from the brand
    const cut = mif1.subarray(0, Math.floor(mif1.length * 0.8));
    const header = await readHeader(cut, 'heif');
    expect(header.compression).toBe('av1');
    expect(missingPixelCodec(sharp, header)).toBeNull();
    let tries = 0;
    const counting = new Proxy(sharp, { apply: (target, self, args: Parameters<Sharp>) => (tries++, Reflect.apply(target, self, args)) });
    const outcome = await decodeOutcome(counting, cut, header, false);
    expect(tries).toBe(2); // strict, then lenient
    await expect(decodeLuma(cut, header, Promise.resolve(outcome), false)).rejects.toMatchObject({
      code: 'UNPROCESSABLE_CONTENT',
      message: 'The image cannot be decoded: it looks truncated or corrupt',
    });
  });

  it('missingPixelCodec reads the codec from the header and the libraries sharp lists', () => {
    const withVersions = (versions: Record<string, string>) => ({ versions }) as unknown as Sharp;
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20', aom: '3.12' }), heic)).toBe('HEVC');
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20', de265: '1.0' }), heic)).toBeNull();
    expect(missingPixelCodec(withVersions({ vips: '8.15' }), heic)).toBe('unknown'); // a system libvips lists only itself
    // …whatever the coding: its libheif may lack the AV1 plug-in as well (Debian packages it apart).
    expect(missingPixelCodec(withVersions({ vips: '8.15' }), { ...heic, compression: 'av1' })).toBe('unknown');
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20', aom: '3.12' }), { ...heic, compression: 'av1' })).toBeNull();
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20', aom: '3.12' }), { ...heic, compression: 'avc' })).toBe('unknown');
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20', aom: '3.12' }), { format: 'heif' })).toBe('unknown');
    expect(missingPixelCodec(withVersions({ vips: '8.17', heif: '1.20' }), { format: 'jpeg' })).toBeNull();
  });

  it('on a system libvips an AVIF whose AV1 decoder is missing is not retried leniently (its words say so; the list cannot)', async () => {
    const avif = await sharp(scene(128, 96, 3), { raw: { width: 128, height: 96, channels: 3 } }).avif().toBuffer();
    const header = await readHeader(avif, 'avif');
    expect(header.compression).toBe('av1');
    const systemLibvips = new Proxy(sharpReporting('heif: Unsupported feature: Unsupported codec (Support for this compression format has not been built in: AV1)'), {
      get: (target, key) => (key === 'versions' ? { vips: '8.15.1' } : Reflect.get(target, key)),
    });
    // Bytes that fail to decode, as the AVIF does on such a libvips: strict only.
    const outcome = await decodeOutcome(systemLibvips, Buffer.from('not an image at all'), header, false);
    expect('ok' in outcome).toBe(false);
    expect('lenientError' in outcome).toBe(false);
  });

  it('an unreadable header is corrupt when this build has the detected format\'s loader, unsupported when it has none', async () => {
    const cut = (await cameraJpeg(scene(64, 64, 1), 64, 64)).subarray(0, 40);
    await expect(readHeader(cut, 'jpeg')).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    await expect(readHeader(Buffer.from('RIFF\0\0\0\0WEBPVP8 garbage'), 'webp')).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    // detect-type.ts names no such format today; the rule holds for any it may add.
    await expect(readHeader(Buffer.from([0, 0, 0, 12, 0x6a, 0x50, 0x20, 0x20]), 'jp2k')).rejects.toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'The image cannot be decoded here: this build of libvips has no jp2k loader',
    });
  });

  it('a container no libvips loader recognises (an AVIF sequence\'s avis brand) is unsupported here, not corrupt, with or without a detected format', async () => {
    const avif = await sharp(scene(128, 96, 2), { raw: { width: 128, height: 96, channels: 3 } }).avif().toBuffer();
    const avis = Buffer.from(avif);
    avis.write('avis', 8, 'latin1');
    for (const format of ['avif', undefined]) {
      await expect(readHeader(avis, format)).rejects.toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'The image cannot be decoded here (Input buffer contains unsupported image format)',
      });
    }
  });
});

describe('libvips keeps nothing between decodes', () => {
  it('after several decodes its operation cache holds no operation (each would keep its input file\'s bytes)', async () => {
    const sharpOfEngine = await loadSharp();
    for (let seed = 1; seed <= 3; seed++) {
      const bytes = await cameraJpeg(scene(320, 240, seed), 320, 240);
      const header = await readHeader(bytes, 'jpeg');
      await decodeLuma(bytes, header, undefined, true);
    }
    const stats = sharpOfEngine.cache();
    expect(stats.items.current).toBe(0);
    expect(stats.memory.max).toBe(0);
  });
});
