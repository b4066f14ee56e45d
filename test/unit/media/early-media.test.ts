/**
 * `verify media`'s decode started before the CLI loads (early-media.ts): the engine takes it only
 * for the very bytes it read, and then gets the header and pixels its own reading gives, partial
 * decodes included; anything else is not an image worth starting early.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeImage } from '../../../src/engine/media/analyze-image.js';
import { decodeLuma, readHeader } from '../../../src/engine/media/decode.js';
import { mediaHashWanted, startEarlyMediaDecode } from '../../../src/engine/media/early-media.js';
import { cameraJpeg, CAMERA_EXIF, makePorts, scene } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-early-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, bytes: Buffer | string): string => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};

describe('early media decode', () => {
  it('taken for the same bytes: the header readHeader gives and the pixels decodeLuma gives; once only', async () => {
    const jpeg = await cameraJpeg(scene(640, 480, 5), 640, 480);
    const early = (await startEarlyMediaDecode(file('photo.jpg', jpeg), undefined))!;
    expect(early.state).toBe('started');
    // Another file's bytes (one byte changed) are not taken.
    const other = Buffer.from(jpeg);
    other[other.length - 10]! ^= 1;
    expect(early.take(other)).toBeUndefined();
    const taken = early.take(Buffer.from(jpeg))!;
    expect(early.state).toBe('taken');
    expect(taken.header).toEqual(await readHeader(jpeg));
    const fromEarly = await decodeLuma(jpeg, taken.header, taken.outcome);
    const own = await decodeLuma(jpeg, taken.header);
    expect(fromEarly).toMatchObject({ partial: false, problem: null });
    expect(Buffer.from(fromEarly.plane.data).equals(Buffer.from(own.plane.data))).toBe(true);
    expect(early.take(jpeg)).toBeUndefined();
  });

  it('the CLI gets the bytes read early while the file is unchanged, and only then', async () => {
    const jpeg = await cameraJpeg(scene(320, 240, 6), 320, 240);
    const path = file('kept.jpg', jpeg);
    const early = (await startEarlyMediaDecode(path, undefined))!;
    expect(early.fileBytes(join(dir, 'other.jpg'))).toBeUndefined();
    const bytes = early.fileBytes(path)!;
    expect(bytes.equals(jpeg)).toBe(true);
    // The engine then takes the decode for those very bytes.
    expect(early.take(bytes)?.header.width).toBe(320);
    expect(early.fileBytes(path)).toBeUndefined(); // let go once taken

    // A file written again after the early read is read again by the CLI.
    const changed = (await startEarlyMediaDecode(path, undefined))!;
    writeFileSync(path, Buffer.concat([jpeg, Buffer.from([0])]));
    expect(changed.fileBytes(path)).toBeUndefined();
  });

  it('a whole analysis through the early decode equals the analysis without it', async () => {
    const jpeg = await cameraJpeg(scene(800, 600, 9), 800, 600);
    const early = (await startEarlyMediaDecode(file('analysed.jpg', jpeg), undefined))!;
    const opts = { checkDeepfakes: true, checkWatermarks: true };
    const withEarly = await analyzeImage(jpeg, { ...opts, ports: { ...makePorts(), earlyMedia: early } });
    expect(early.state).toBe('taken');
    const without = await analyzeImage(jpeg, { ...opts, ports: makePorts() });
    expect(withEarly).toEqual(without);
  });

  it('a truncated JPEG: the early outcome is the same partial decode, with the same problem', async () => {
    const jpeg = await cameraJpeg(scene(640, 480, 3), 640, 480);
    const cut = jpeg.subarray(0, Math.floor(jpeg.length * 0.6));
    const early = (await startEarlyMediaDecode(file('cut.jpg', cut), undefined))!;
    const taken = early.take(Buffer.from(cut))!;
    const fromEarly = await decodeLuma(cut, taken.header, taken.outcome);
    const own = await decodeLuma(cut, taken.header);
    expect(fromEarly.partial).toBe(true);
    expect(fromEarly.problem).toBe(own.problem);
    expect(Buffer.from(fromEarly.plane.data).equals(Buffer.from(own.plane.data))).toBe(true);
  });

  it('not started for what is not a readable image: text, a missing file, a folder, a header with no pixels behind it', async () => {
    expect(await startEarlyMediaDecode(file('notes.txt', 'not an image at all, just text'), undefined)).toBeUndefined();
    expect(await startEarlyMediaDecode(join(dir, 'missing.jpg'), undefined)).toBeUndefined();
    expect(await startEarlyMediaDecode(dir, undefined)).toBeUndefined();
    // PNG magic, then nothing sharp can read: the engine reports that itself.
    expect(await startEarlyMediaDecode(file('broken.png', Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64)])), undefined)).toBeUndefined();
  });

  it('a photo over 4096 pixels wide decoded early without the hash: used by an analysis without it, decoded again for one with it', async () => {
    const W = 4400;
    const H = 2400;
    const jpeg = await sharp(scene(W / 8, H / 8, 12), { raw: { width: W / 8, height: H / 8, channels: 3 } })
      .resize(W, H, { kernel: 'cubic' })
      .withExif(CAMERA_EXIF)
      .jpeg({ quality: 90 })
      .toBuffer();
    const path = file('wide.jpg', jpeg);
    const opts = { checkDeepfakes: true, checkWatermarks: true };
    const own = await analyzeImage(jpeg, { ...opts, ports: makePorts() });
    expect(own.perceptualHash).not.toBeNull();

    // No hash wanted: the crop alone was decoded early, and the analysis takes it.
    const cropOnly = (await startEarlyMediaDecode(path, undefined, false))!;
    const noHash = await analyzeImage(jpeg, { ...opts, perceptualHash: false, ports: { ...makePorts(), earlyMedia: cropOnly } });
    expect(cropOnly.state).toBe('taken');
    expect(noHash).toEqual({ ...own, perceptualHash: null });

    // A hash wanted after all (the host guessed wrong): the same result as the engine's own decode.
    const guessedWrong = (await startEarlyMediaDecode(path, undefined, false))!;
    expect(await analyzeImage(jpeg, { ...opts, ports: { ...makePorts(), earlyMedia: guessedWrong } })).toEqual(own);
    // The whole image decoded early serves an analysis without the hash as well.
    const whole = (await startEarlyMediaDecode(path, undefined, true))!;
    expect(await analyzeImage(jpeg, { ...opts, perceptualHash: false, ports: { ...makePorts(), earlyMedia: whole } })).toEqual({ ...own, perceptualHash: null });
  }, 60_000);

  it('mediaHashWanted: only with provenance checked and a store file that may hold an index', () => {
    const home = mkdtempSync(join(tmpdir(), 'verity-early-media-home-'));
    try {
      const env = { VERITY_HOME: home };
      const args = ['verify', 'media', 'photo.jpg', '--json'];
      expect(mediaHashWanted(args, env)).toBe(false); // no store yet
      mkdirSync(join(home, 'data'));
      writeFileSync(join(home, 'data', 'verity.db'), '');
      expect(mediaHashWanted(args, env)).toBe(true);
      expect(mediaHashWanted([...args, '--no-check-provenance'], env)).toBe(false);
      // commander's last word counts
      expect(mediaHashWanted([...args, '--no-check-provenance', '--check-provenance'], env)).toBe(true);
      expect(mediaHashWanted([...args, '--check-provenance', '--no-check-provenance'], env)).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('dropped when the command did not use it', async () => {
    const png = await sharp(scene(128, 128, 2), { raw: { width: 128, height: 128, channels: 3 } }).png().toBuffer();
    const early = (await startEarlyMediaDecode(file('unused.png', png), undefined))!;
    early.discard();
    expect(early.state).toBe('dropped');
    expect(early.take(png)).toBeUndefined();
  });
});
