/**
 * Unedited camera photos (issue 30): a thumbnail-sized still is a limitation, not a suspicion; a
 * camera's aspect-ratio mode (EXIF thumbnail of the full sensor, photo cropped in the camera) is
 * told apart from a crop in an editor; make and model come from a Canon CIFF block where a camera
 * wrote no EXIF, as exiftool reads them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import type { MediaResult } from '../../../src/api/results.js';
import { ciffMakeModel } from '../../../src/engine/media/ciff.js';
import { TOO_SMALL_TRUST_CAP, verifyMedia } from '../../../src/engine/media/verify.js';
import { CAMERA_EXIF, cameraJpeg, makePorts, scene } from './helpers.js';

const verify = (bytes: Buffer): Promise<MediaResult> =>
  verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(), {}) as Promise<MediaResult>;
const exiftool = ((): boolean => {
  try {
    execFileSync('exiftool', ['-ver'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();
const dir = mkdtempSync(join(tmpdir(), 'verity-camera-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a very small camera still', () => {
  it('100×64 with camera EXIF: "too small to analyse" as a limitation, likely_authentic, trust capped', async () => {
    const still = await sharp(scene(100, 64, 4), { raw: { width: 100, height: 64, channels: 3 } }).withExif(CAMERA_EXIF).jpeg({ quality: 85 }).toBuffer();
    const r = await verify(still);
    expect(r.authenticity).toBe('likely_authentic');
    expect(r.trust_score).toBeLessThanOrEqual(TOO_SMALL_TRUST_CAP);
    expect(r.warnings?.some((w) => w.startsWith('Too small to analyse: the image is too small (100×64)'))).toBe(true);
    expect(r.warnings?.some((w) => w.startsWith('Not checked:'))).toBe(false);
    expect(r.evidence[0]!.finding).toMatch(/too small to analyse the pixels \(a limitation, not a finding\)/);
    expect(r.dimension_producers?.llm_analysis).toBe('metadata only (pixels not analysed)');
    expect(r.dimensions.llm_analysis).toBeLessThanOrEqual(0.5);
  });
});

/** A JPEG with an EXIF thumbnail written by exiftool (sharp cannot write IFD1). */
async function withThumbnail(main: Buffer, thumb: Buffer, name: string): Promise<Buffer> {
  const m = join(dir, `${name}.jpg`);
  const t = join(dir, `${name}-thumb.jpg`);
  writeFileSync(m, main);
  writeFileSync(t, thumb);
  execFileSync('exiftool', ['-q', '-overwrite_original', `-ThumbnailImage<=${t}`, m]);
  return readFileSync(m);
}

(exiftool ? describe : describe.skip)(`EXIF thumbnail of another aspect ratio${exiftool ? '' : ' — SKIPPED: exiftool not installed (needed to write the thumbnail)'}`, () => {
  const W = 1200;
  const H = 900;
  const sensor = scene(W, H, 7, 4);
  const crop = (left: number, top: number, width: number, height: number): Promise<Buffer> =>
    sharp(sensor, { raw: { width: W, height: H, channels: 3 } }).extract({ left, top, width, height }).raw().toBuffer();
  const preview = (): Promise<Buffer> => sharp(sensor, { raw: { width: W, height: H, channels: 3 } }).resize(160, 120).jpeg({ quality: 80 }).toBuffer();

  it('a 3:2 photo with the 4:3 sensor preview as thumbnail (in-camera crop): not an edit, likely_authentic', async () => {
    const photo = await cameraJpeg(await crop(0, 50, 1200, 800), 1200, 800);
    const r = await verify(await withThumbnail(photo, await preview(), 'incamera'));
    const th = r.evidence.find((e) => e.source === 'forensics.exif_thumbnail')!.finding;
    expect(th).toMatch(/aspect-ratio mode \(an in-camera crop\), not an edit/);
    expect(r.authenticity).toBe('likely_authentic');
  });

  it('the same at 24 MP (the photo\'s centre read shrunk on load, not decoded whole): an in-camera crop, and a corner crop still differs', async () => {
    // A 6000×4500 "sensor" (a small scene enlarged: cheap to make), the photo its 6000×4000 band.
    const big = await sharp(sensor, { raw: { width: W, height: H, channels: 3 } }).resize(6000, 4500).raw().toBuffer();
    const cut = (left: number, top: number, width: number, height: number) =>
      sharp(big, { raw: { width: 6000, height: 4500, channels: 3 } }).extract({ left, top, width, height }).raw().toBuffer();
    const photo = await cameraJpeg(await cut(0, 250, 6000, 4000), 6000, 4000);
    const r = await verify(await withThumbnail(photo, await preview(), 'incamera24'));
    expect(r.evidence.find((e) => e.source === 'forensics.exif_thumbnail')!.finding).toMatch(/aspect-ratio mode \(an in-camera crop\), not an edit/);
    const corner = await cameraJpeg(await cut(0, 0, 3600, 2400), 3600, 2400);
    const c = await verify(await withThumbnail(corner, await preview(), 'corner24'));
    expect(c.evidence.find((e) => e.source === 'forensics.exif_thumbnail')!.finding).not.toMatch(/in-camera crop/);
  }, 60_000);

  it('a 3:2 photo whose thumbnail is the whole photo squeezed to 160×120 (DCF size): not an edit', async () => {
    const raw = await crop(0, 50, 1200, 800);
    const photo = await cameraJpeg(raw, 1200, 800);
    const squeezed = await sharp(raw, { raw: { width: 1200, height: 800, channels: 3 } }).resize(160, 120, { fit: 'fill' }).jpeg({ quality: 80 }).toBuffer();
    const r = await verify(await withThumbnail(photo, squeezed, 'squeezed'));
    expect(r.evidence.find((e) => e.source === 'forensics.exif_thumbnail')!.finding).toMatch(/scaled to a fixed thumbnail size .*not an edit/);
    expect(r.authenticity).toBe('likely_authentic');
  });

  it('a truncated photo: the thumbnail check (started beside the decode) is not used on the rows that decoded', async () => {
    const photo = await withThumbnail(await cameraJpeg(await crop(0, 50, 1200, 800), 1200, 800), await preview(), 'truncated');
    const r = await verify(photo.subarray(0, Math.floor(photo.length * 0.6)));
    expect(r.warnings?.some((w) => /Decoded only partly/.test(w))).toBe(true);
    expect(r.evidence.some((e) => e.source === 'forensics.exif_thumbnail')).toBe(false);
    // The whole file still gets it.
    expect((await verify(photo)).evidence.some((e) => e.source === 'forensics.exif_thumbnail')).toBe(true);
  });

  it('a 3:2 photo cut from a corner of the scene the thumbnail shows (a crop in an editor): still reads as a difference', async () => {
    const photo = await cameraJpeg(await crop(0, 0, 720, 480), 720, 480);
    const r = await verify(await withThumbnail(photo, await preview(), 'corner'));
    const th = r.evidence.find((e) => e.source === 'forensics.exif_thumbnail')!.finding;
    expect(th).not.toMatch(/in-camera crop/);
    expect(th).toMatch(/differs|different picture/);
  });
});

/** A CIFF heap: its entries' data, then the directory, then the directory's offset (little-endian). */
function heap(entries: Array<[number, Buffer]>): Buffer {
  const data: Buffer[] = [];
  const dir = Buffer.alloc(2 + 10 * entries.length);
  dir.writeUInt16LE(entries.length, 0);
  let off = 0;
  entries.forEach(([tag, value], i) => {
    dir.writeUInt16LE(tag, 2 + 10 * i);
    dir.writeUInt32LE(value.length, 4 + 10 * i);
    dir.writeUInt32LE(off, 8 + 10 * i);
    data.push(value);
    off += value.length;
  });
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(off, 0);
  return Buffer.concat([...data, dir, tail]);
}

/** Inserts a Canon CIFF APP0 segment (MakeModel inside an ImageProps sub-heap) after SOI. */
function withCiff(jpeg: Buffer, make: string, model: string): Buffer {
  const makeModel = Buffer.from(`${make}\0${model}\0`, 'latin1');
  const root = heap([[0x300a, heap([[0x080a, makeModel]])]]);
  const header = Buffer.alloc(26);
  header.write('II', 0, 'latin1');
  header.writeUInt32LE(26, 2);
  header.write('HEAPJPGM', 6, 'latin1');
  const body = Buffer.concat([header, root]);
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xffe0, 0);
  seg.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), seg, body, jpeg.subarray(2)]);
}

describe('make and model from a Canon CIFF block (no EXIF)', () => {
  it('reads "Canon / Canon PowerShot A5" as exiftool does', async () => {
    const plain = await sharp(scene(640, 480, 9), { raw: { width: 640, height: 480, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
    const file = withCiff(plain, 'Canon', 'Canon PowerShot A5');
    expect(ciffMakeModel(file)).toEqual({ make: 'Canon', model: 'Canon PowerShot A5' });
    const r = await verify(file);
    expect(r.metadata.exif.make).toBe('Canon');
    expect(r.metadata.exif.model).toBe('Canon PowerShot A5');
    if (exiftool) {
      writeFileSync(join(dir, 'ciff.jpg'), file);
      const x = JSON.parse(execFileSync('exiftool', ['-json', '-Make', '-Model', join(dir, 'ciff.jpg')], { encoding: 'utf8' })) as Array<{ Make?: string; Model?: string }>;
      expect({ make: x[0]!.Make, model: x[0]!.Model }).toEqual({ make: r.metadata.exif.make, model: r.metadata.exif.model });
    }
  });
  it('a hostile heap (a sub-heap that points at itself, offsets past the end) is bounded and reads nothing', async () => {
    const plain = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#777' } }).jpeg().toBuffer();
    const file = withCiff(plain, 'Canon', 'X');
    // Point the root directory's only entry (the sub-heap) at the whole root heap again.
    const at = file.indexOf('HEAPJPGM') - 6;
    const segEnd = at + file.readUInt16BE(at - 2) - 2;
    const dirOff = file.readUInt32LE(segEnd - 4) + at + 26;
    file.writeUInt32LE(0, dirOff + 2 + 2);
    file.writeUInt32LE(segEnd - (at + 26), dirOff + 2 + 2);
    file.writeUInt32LE(0, dirOff + 2 + 6);
    expect(ciffMakeModel(file)).toBeNull();
    expect(ciffMakeModel(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x30]))).toBeNull();
  });
});
