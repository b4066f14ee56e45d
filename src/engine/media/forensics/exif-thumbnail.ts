/**
 * EXIF thumbnail vs main image. Cameras write a small preview (IFD1) with the photo; many editors
 * change the pixels but leave that preview untouched, so a thumbnail showing a different picture
 * means the main image changed after capture (Kee & Farid 2010, "Digital image authentication
 * from thumbnails"). Compared with dHash after trimming the black bars cameras add to fit 4:3.
 */
import { loadSharp, MAX_PIXELS } from '../decode.js';
import { loadExifr } from '../metadata.js';
import { dHashOfPixels, hamming } from '../perceptual-hash.js';
import type { Signal } from './types.js';

/**
 * dHash of the centre of an image cut to another aspect ratio. Cameras with an aspect-ratio mode
 * (3:2, 16:9, 1:1 on a 4:3 sensor: Ricoh, Panasonic, Olympus, phones) crop the photo in the camera
 * and some keep the full-sensor preview as the EXIF thumbnail, so the two differ in aspect but the
 * thumbnail's centre, cut to the photo's aspect, is the photo.
 *
 * A large image (the main photo) is first read shrunk by `shrink` (JPEG shrink-on-load), then
 * cut: cutting first made sharp decode the whole image at full size and convert every pixel to
 * grey (a 24 MP photo: ~180 ms of CPU, against ~50 ms shrunk). Every one of the 9×8 cells still
 * averages at least MIN_CELL² shrunk pixels, so the hash is that of the same region.
 */
async function centreHash(bytes: Buffer, aspect: number): Promise<string> {
  const sharp = await loadSharp();
  const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' }).metadata();
  const w = meta.width ?? 1;
  const h = meta.height ?? 1;
  const cw = Math.max(1, Math.min(w, Math.round(h * aspect)));
  const ch = Math.max(1, Math.min(h, Math.round(w / aspect)));
  const shrink = Math.min(8, Math.floor(Math.min(cw / (9 * MIN_CELL), ch / (8 * MIN_CELL))));
  let source = sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' });
  let [sw, sh] = [w, h];
  if (shrink >= 2) {
    [sw, sh] = [Math.floor(w / shrink), Math.floor(h / shrink)];
    const small = await source.greyscale().resize(sw, sh, { fit: 'fill' }).raw().toBuffer();
    source = sharp(small, { raw: { width: sw, height: sh, channels: 1 } });
  }
  const [sx, sy] = [sw / w, sh / h];
  const width = Math.max(1, Math.min(sw, Math.round(cw * sx)));
  const height = Math.max(1, Math.min(sh, Math.round(ch * sy)));
  const px = await source
    .extract({ left: Math.floor((sw - width) / 2), top: Math.floor((sh - height) / 2), width, height })
    .greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  return dHashOfPixels(new Uint8Array(px));
}
/** Fewest shrunk pixels along each side of one 9×8 dHash cell (centreHash). */
const MIN_CELL = 16;

async function hashOf(bytes: Buffer | Uint8Array, trim: boolean): Promise<{ hash: string; aspect: number; trimmed: Buffer }> {
  const sharp = await loadSharp();
  let input: Buffer = Buffer.from(bytes);
  if (trim) {
    try {
      input = await sharp(input, { failOn: 'none' }).trim({ background: '#000000', threshold: 24 }).toBuffer();
    } catch {
      // Nothing to trim (no bars): use it as it is.
    }
  }
  const img = sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'none' });
  const meta = await img.metadata();
  const px = await img.greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  return { hash: dHashOfPixels(new Uint8Array(px)), aspect: (meta.width ?? 1) / (meta.height ?? 1), trimmed: input };
}

/**
 * dHash of the main image in stored orientation, on true luma like the thumbnail's. A 9×8 dHash is
 * fragile, so both sides must see the same grey (the green-band proxy of decode.ts moved real
 * camera files by up to 7 bits). JPEG shrink-on-load keeps this cheap; it runs in libvips's threads.
 */
async function mainImageDHash(bytes: Buffer): Promise<string> {
  const sharp = await loadSharp();
  const px = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' }).greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  return dHashOfPixels(new Uint8Array(px));
}

/** `codeCacheDir`: where exifr's code cache is, when this is the first to load exifr (it now starts beside the main decode, before the metadata is read). */
export async function exifThumbnailSignal(bytes: Buffer, mainWidth: number, mainHeight: number, codeCacheDir?: string): Promise<Signal | null> {
  let thumb: Uint8Array | undefined;
  try {
    const exifr = loadExifr(codeCacheDir);
    thumb = (await exifr.thumbnail(bytes)) as Uint8Array | undefined;
  } catch {
    return null;
  }
  if (!thumb || thumb.length < 100) return null;
  let t: { hash: string; aspect: number; trimmed: Buffer };
  let m: { hash: string };
  try {
    [t, m] = await Promise.all([hashOf(thumb, true), mainImageDHash(bytes).then((hash) => ({ hash }))]);
  } catch {
    return {
      analyzer: 'forensics.exif_thumbnail',
      kind: 'manipulation',
      probability: 0.1,
      confidence: 0.3,
      finding: 'The EXIF thumbnail is present but cannot be decoded',
    };
  }
  const d = hamming(t.hash, m.hash);
  const aspect = mainWidth / mainHeight;
  const aspectDiff = Math.abs(t.aspect - aspect) / aspect;
  const nums = `dHash distance ${d}/64, aspect ratio ${t.aspect.toFixed(2)} vs ${aspect.toFixed(2)}`;
  // Another aspect ratio: is the photo the thumbnail's centre (an in-camera crop), or the whole
  // picture scaled to a fixed thumbnail size, or neither?
  if (aspectDiff > 0.08) {
    let c: number | null = null;
    try {
      // The thumbnail cut to the photo's aspect (sensor preview of a cropped photo), and the photo
      // cut to the thumbnail's (a camera that crops the preview instead).
      const [a, b] = await Promise.all([centreHash(t.trimmed, aspect), centreHash(bytes, t.aspect)]);
      c = Math.min(hamming(a, m.hash), hamming(b, t.hash));
    } catch {
      c = null;
    }
    if (c !== null && c <= 10 && c <= d)
      return {
        analyzer: 'forensics.exif_thumbnail',
        kind: 'manipulation',
        probability: 0.05,
        confidence: 0.4,
        finding: `The EXIF thumbnail has another aspect ratio, and its centre cut to the photo's aspect matches the main image (${nums}; centre dHash distance ${c}/64): a camera's aspect-ratio mode (an in-camera crop), not an edit`,
      };
    // The same picture squeezed: the camera scaled the whole photo to the fixed DCF thumbnail size
    // (160×120) without keeping its aspect (a 3:2 or 16:9 photo in a 4:3 thumbnail).
    if (d <= 10)
      return {
        analyzer: 'forensics.exif_thumbnail',
        kind: 'manipulation',
        probability: 0.05,
        confidence: 0.4,
        finding: `The EXIF thumbnail has another aspect ratio but shows the same picture, scaled to a fixed thumbnail size (${nums}): what cameras write (DCF 160×120), not an edit; it matches the main image`,
      };
  }
  if (d >= 20)
    return {
      analyzer: 'forensics.exif_thumbnail',
      kind: 'manipulation',
      probability: 0.6,
      confidence: 0.6,
      finding: `The embedded EXIF thumbnail shows a different picture from the main image (${nums}): the image was changed after the thumbnail was written`,
      flag: 'image_manipulated',
    };
  if (d > 10 || aspectDiff > 0.08)
    return {
      analyzer: 'forensics.exif_thumbnail',
      kind: 'manipulation',
      probability: 0.25,
      confidence: 0.4,
      finding: `The EXIF thumbnail differs somewhat from the main image (${nums}): cropped, rotated or retouched after capture, or a camera preview with borders`,
    };
  return {
    analyzer: 'forensics.exif_thumbnail',
    kind: 'capture',
    probability: 0.2,
    confidence: 0.4,
    finding: `The EXIF thumbnail matches the main image (${nums})`,
  };
}
