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

/** Detects the type of `bytes`; throws 422 for empty input and 415 for anything we do not read. */
export async function detectMediaType(bytes: Buffer): Promise<DetectedType> {
  if (bytes.length === 0) throw new VerityError('UNPROCESSABLE_CONTENT', 'The file is empty (0 bytes): there is nothing to analyse');
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
