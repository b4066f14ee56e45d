/**
 * EXIF thumbnail vs main image. Cameras write a small preview (IFD1) with the photo; many editors
 * change the pixels but leave that preview untouched, so a thumbnail showing a different picture
 * means the main image changed after capture (Kee & Farid 2010, "Digital image authentication
 * from thumbnails"). Compared with dHash after trimming the black bars cameras add to fit 4:3.
 */
import { loadSharp, MAX_PIXELS } from '../decode.js';
import { dHashOfPixels, hamming } from '../perceptual-hash.js';
import type { Signal } from './types.js';

async function hashOf(bytes: Buffer | Uint8Array, trim: boolean): Promise<{ hash: string; aspect: number }> {
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
  // Same luma proxy as the main image's hash (decode.ts): the green band of a colour thumbnail.
  const px = await (meta.channels && meta.channels >= 3 ? img.extractChannel(1) : img.extractChannel(0)).resize(9, 8, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  return { hash: dHashOfPixels(new Uint8Array(px)), aspect: (meta.width ?? 1) / (meta.height ?? 1) };
}

/** `mainDHash` hashes the main image in stored orientation; it is only called when a thumbnail exists. */
export async function exifThumbnailSignal(bytes: Buffer, mainWidth: number, mainHeight: number, mainDHash: () => Promise<string>): Promise<Signal | null> {
  let thumb: Uint8Array | undefined;
  try {
    const exifr = (await import('exifr')).default;
    thumb = (await exifr.thumbnail(bytes)) as Uint8Array | undefined;
  } catch {
    return null;
  }
  if (!thumb || thumb.length < 100) return null;
  let t: { hash: string; aspect: number };
  let m: { hash: string };
  try {
    [t, m] = await Promise.all([hashOf(thumb, true), mainDHash().then((hash) => ({ hash }))]);
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
