/**
 * What kind of file this is, by its magic bytes (file-type), never by name or declared type:
 * a `.jpg` that is really a PNG is read as a PNG; a text file named `.jpg` is refused with 415.
 */
import { VerityError } from '../../api/errors.js';

export type MediaKind = 'image' | 'video';

export interface DetectedType {
  mime: string;
  /** Short format name as reported in `metadata.format` (jpeg, png, webp, heif, avif, tiff, gif, mp4, mov). */
  format: string;
  kind: MediaKind;
}

/** Formats this engine reads, keyed by the MIME type file-type reports. */
const SUPPORTED: Record<string, { format: string; kind: MediaKind }> = {
  'image/jpeg': { format: 'jpeg', kind: 'image' },
  'image/png': { format: 'png', kind: 'image' },
  'image/apng': { format: 'png', kind: 'image' },
  'image/webp': { format: 'webp', kind: 'image' },
  'image/heic': { format: 'heif', kind: 'image' },
  'image/heic-sequence': { format: 'heif', kind: 'image' },
  'image/heif': { format: 'heif', kind: 'image' },
  'image/heif-sequence': { format: 'heif', kind: 'image' },
  'image/avif': { format: 'avif', kind: 'image' },
  'image/tiff': { format: 'tiff', kind: 'image' },
  'image/gif': { format: 'gif', kind: 'image' },
  'video/mp4': { format: 'mp4', kind: 'video' },
  'video/quicktime': { format: 'mov', kind: 'video' },
  'video/x-m4v': { format: 'mp4', kind: 'video' },
  'video/3gpp': { format: '3gp', kind: 'video' },
};

export const SUPPORTED_MEDIA_TYPES = Object.keys(SUPPORTED);

/**
 * Answers given without file-type (JPEG here, PNG and WebP below): loading its ES-module graph
 * costs ~75 ms per process, more than reading a JPEG's metadata. file-type (v21 core.js) answers image/jpeg for FF D8 FF
 * unless the 4th byte is F7 (JPEG-LS), and none of the signatures it checks before that one can
 * match a buffer starting FF D8; `detect-type.test.ts` compares the two.
 */
export const isPlainJpeg = (bytes: Uint8Array): boolean =>
  bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff && bytes[3] !== 0xf7;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** file-type's own bound on the chunks it walks in a PNG (v21 core.js `maximumPngChunkCount`). */
const PNG_MAX_CHUNKS = 512;

/**
 * PNG or APNG as file-type tells them apart (v21 core.js: the chunks are walked from the IHDR; an
 * `acTL` before the first `IDAT` makes it APNG), answered without loading file-type (~40–75 ms of a
 * PNG's process) for the ordinary case only: a 13-byte IHDR first, then whole chunks up to an IDAT
 * or acTL. Anything else (CgBI, a chunk running past the end, odd lengths) is left to file-type,
 * which has its own answers for those; `detect-type.test.ts` compares the two. No signature
 * file-type checks before PNG's can match a buffer starting with it.
 */
export function plainPngMime(bytes: Uint8Array): 'image/png' | 'image/apng' | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 16 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  let at = 8;
  for (let n = 0; n < PNG_MAX_CHUNKS && at + 8 <= b.length; n++) {
    const length = b.readInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    if (length < 0 || (n === 0 && type !== 'IHDR') || (type === 'IHDR' && length !== 13)) return undefined;
    if (type === 'IDAT') return 'image/png';
    if (type === 'acTL') return 'image/apng';
    at += 12 + length;
  }
  return undefined;
}

/** WebP as file-type answers it (RIFF with WEBP at byte 8; nothing it checks earlier starts RIFF). */
export function isWebp(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, 12).toString('latin1');
  return head.startsWith('RIFF') && head.endsWith('WEBP');
}

/** Detects the type of `bytes`; throws 422 for empty input and 415 for anything we do not read. */
export async function detectMediaType(bytes: Buffer): Promise<DetectedType> {
  if (bytes.length === 0) throw new VerityError('UNPROCESSABLE_CONTENT', 'The file is empty (0 bytes): there is nothing to analyse');
  if (isPlainJpeg(bytes)) return { mime: 'image/jpeg', format: 'jpeg', kind: 'image' };
  const png = plainPngMime(bytes);
  if (png) return { mime: png, format: 'png', kind: 'image' };
  if (isWebp(bytes)) return { mime: 'image/webp', format: 'webp', kind: 'image' };
  const { fileTypeFromBuffer } = await import('file-type');
  let found: { mime: string; ext: string } | undefined;
  try {
    found = await fileTypeFromBuffer(bytes);
  } catch (err) {
    throw new VerityError('UNPROCESSABLE_CONTENT', 'The file header could not be read: the file looks truncated or corrupt', { cause: err });
  }
  if (!found)
    throw new VerityError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Unrecognised file type: media verification reads JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF, GIF, MP4 and MOV',
    );
  const s = SUPPORTED[found.mime];
  if (!s)
    throw new VerityError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Files of type ${found.mime} are not supported here: media verification reads JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF, GIF, MP4 and MOV`,
    );
  // file-type says image/heic for both; HEIF containers holding AV1 are AVIF by brand.
  return { mime: found.mime, format: s.format, kind: s.kind };
}
