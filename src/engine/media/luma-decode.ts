/**
 * The pixel decode itself, with no dependency beyond sharp and the plane type: decode.ts wraps it
 * in the engine's errors, and early-media.ts starts it before the CLI has loaded (a module light
 * enough to load first: no zod schemas, no engine errors, built-ins through
 * `process.getBuiltinModule`). Both run these same functions, so an early decode is the decode.
 */
import { strideOf, type LumaPlane } from './forensics/types.js';
import { heifPixelCoding } from './heif-items.js';

type Sharp = (typeof import('sharp'))['default'];

/**
 * sharp with libvips's operation cache switched off, for every caller in the process (the cache is
 * libvips's, one per process). By default libvips keeps the last 100 operations and what they hold:
 * each decode's load operation keeps its input, so a server or a batch held the last hundred
 * files' bytes (a 12 MP JPEG: ~3 MB each) although no file is analysed twice. Measured: 40 photos
 * of 12 MP decoded one after the other, 199 → 131 MB peak RSS. The engine never repeats an
 * operation on the same input, so nothing is lost.
 */
export function withoutOperationCache(sharp: Sharp): Sharp {
  sharp.cache(false);
  return sharp;
}

/** LIMITS.megapixels (api/requests.ts) in pixels; decode.ts checks the two agree. */
export const MAX_PIXELS = 100 * 1_000_000;
/** Longest side of the region the pixel analyzers read: 4096² covers 12–16 MP cameras entirely. */
const ANALYSIS_SIDE = 4096;
/**
 * Largest image decoded whole when the analyzers read a crop of it (2 × 4096², 33.5 MP: 24 MP
 * cameras) and the perceptual hash is wanted: the whole plane then feeds the hash too, which
 * otherwise decoded the file a second time (JPEG shrink-on-load still entropy-decodes every block:
 * ~50 ms of CPU for 24 MP, half the first decode). Above it the crop is decoded alone and the hash
 * reads the file, so a 100 MP image never holds a 100 MB plane. Without a hash (no known-media
 * index to search: verify.ts) only the crop is decoded at any size.
 */
const WHOLE_DECODE_MAX_PIXELS = 2 * ANALYSIS_SIDE * ANALYSIS_SIDE;
export const VIPS_TIMEOUT_S = 15;

export interface ImageHeader {
  width: number;
  height: number;
  /** sharp's format name: jpeg, png, webp, heif, tiff, gif… */
  format: string;
  pages: number;
  /** Bands as stored (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA or CMYK). */
  channels: number;
  /** libvips colour space name of the stored pixels (srgb, b-w, cmyk…). */
  space: string;
  /** EXIF orientation 1–8 (1 when absent). */
  orientation: number;
  /**
   * The pixels' coding inside a HEIF container (hevc, av1, avc, jpeg…), from the file's own item
   * list (heif-items.ts), else libvips's `heif-compression` (a guess from the major brand); absent
   * elsewhere.
   */
  compression?: string;
}

/** Why a header is refused (decode.ts turns it into the engine's error). */
export type HeaderProblem = { problem: 'no-size' } | { problem: 'too-large'; width: number; height: number };

/**
 * The header as sharp's `metadata()` reports it; sharp's own errors (unreadable, over the pixel
 * limit) are thrown as they are.
 */
export async function headerOf(sharp: Sharp, bytes: Buffer): Promise<ImageHeader | HeaderProblem> {
  const meta = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none' }).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) return { problem: 'no-size' };
  const pageHeight = meta.pageHeight && meta.pages && meta.pages > 1 ? meta.pageHeight : height;
  if (width * pageHeight > MAX_PIXELS) return { problem: 'too-large', width, height: pageHeight };
  return {
    width,
    height: pageHeight,
    format: meta.format ?? 'unknown',
    pages: meta.pages ?? 1,
    channels: meta.channels ?? 3,
    space: meta.space ?? 'srgb',
    orientation: meta.orientation ?? 1,
    ...heifCompression(meta.format, meta.compression, bytes),
  };
}

/**
 * A HEIF's pixel coding as its items declare it: libvips reports `heif-compression` from the major
 * brand alone (anything but avif/avis reads as hevc), so an AV1 image in a `mif1` file would be
 * taken for HEVC, which this build cannot decode (missingPixelCodec).
 */
function heifCompression(format: string | undefined, reported: string | undefined, bytes: Buffer): { compression?: string } {
  const compression = format === 'heif' ? (heifPixelCoding(bytes) ?? reported) : reported;
  return compression ? { compression } : {};
}

/**
 * Which band stands in for luma. The green channel carries ~59 % of Y (BT.601), the same 8×8
 * compression grid and the same sensor noise, and extracting it skips libvips's floating-point
 * sRGB → grey conversion, which cost more than the JPEG decode itself (12 MP: ~155 ms grey vs
 * ~60 ms green). Grey images use their only band; CMYK goes through the full conversion.
 */
export function lumaProxy(header: ImageHeader): 'band0' | 'green' | 'convert' {
  if (header.space === 'cmyk') return 'convert';
  return header.channels >= 3 ? 'green' : 'band0';
}

/** Whether the pixels are read as stored, without the embedded ICC profile's conversion (see decodeLuma). */
export const storedValues = (header: ImageHeader): boolean => header.space !== 'cmyk';

export interface DecodedPlanes {
  /** The region the pixel analyzers read (see decodeLuma in decode.ts). */
  plane: LumaPlane;
  /**
   * The whole image's plane when it was decoded whole although `plane` is a crop of it (up to
   * WHOLE_DECODE_MAX_PIXELS, and only when asked for the hash), for the hashes; absent when
   * `plane` is the whole image or when only the crop was decoded.
   */
  whole?: LumaPlane;
}

/**
 * One libvips decode of the analysis region's luma-proxy pixels (decode.ts decodeLuma says what
 * and why); sharp's error is thrown as it is. `forHash`: the perceptual hash will read the plane,
 * so an image larger than the analysis region is decoded whole when it can be (`whole`); without
 * it only the region is decoded (the same pixels: libvips's extract of the same decode).
 */
export async function decodePlanes(sharp: Sharp, bytes: Buffer, header: ImageHeader, failOn: 'warning' | 'none', forHash: boolean): Promise<DecodedPlanes> {
  const w = Math.min(header.width, ANALYSIS_SIDE);
  const h = Math.min(header.height, ANALYSIS_SIDE);
  const left = Math.floor((header.width - w) / 2 / 8) * 8;
  const top = Math.floor((header.height - h) / 2 / 8) * 8;
  const crop = w !== header.width || h !== header.height;
  const decodeWhole = forHash && crop && header.width * header.height <= WHOLE_DECODE_MAX_PIXELS;
  let img = sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn, page: 0, pages: 1, ignoreIcc: storedValues(header) }).timeout({ seconds: VIPS_TIMEOUT_S });
  if (crop && !decodeWhole) img = img.extract({ left, top, width: w, height: h });
  const proxy = lumaProxy(header);
  img = proxy === 'convert' ? img.greyscale() : img.extractChannel(proxy === 'green' ? 1 : 0);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected 1 channel, got ${info.channels}`);
  const px = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (!decodeWhole) return { plane: { data: px, width: info.width, height: info.height, left, top } };
  const whole: LumaPlane = { data: px, width: info.width, height: info.height, left: 0, top: 0 };
  return { plane: cropView(whole, left, top, w, h), whole };
}

/**
 * A w×h region of `src` at (left, top) as a view of its pixels (`stride`), not a copy: copying
 * the 4096×4000 crop of a 24 MP plane cost ~10 ms of CPU, mostly faulting in 16 MB of new pages.
 */
export function cropView(src: LumaPlane, left: number, top: number, w: number, h: number): LumaPlane {
  const stride = strideOf(src);
  const from = top * stride + left;
  return { data: src.data.subarray(from, from + (h - 1) * stride + w), width: w, height: h, left: src.left + left, top: src.top + top, stride };
}

/**
 * The codec this build lacks for the header's pixels (HEVC in a HEIC: sharp's own libvips carries
 * libheif with the AV1 decoders only), decided from the header (its `compression` read from the
 * file's items: headerOf) and the libraries sharp reports,
 * never from libvips's error text: that text comes from one error buffer per process, shared by
 * every decode running at the same moment (the early decode, the EXIF thumbnail's check, other
 * requests in `serve`, the analysis pool's threads), so it may be another decode's words, a mix,
 * or "Unknown error" (decode.ts decodeError). `'unknown'` where the list cannot tell: a HEIF on a
 * libvips of the system's, whose libheif plug-ins sharp does not list (Debian, for one, packages
 * the HEVC and AV1 decoders apart: either may be missing), or a coding other than HEVC and AV1;
 * null when nothing is missing.
 */
export function missingPixelCodec(sharp: Sharp, header: Pick<ImageHeader, 'format' | 'compression'>): string | 'unknown' | null {
  if (header.format !== 'heif') return null;
  const versions = sharp.versions as Record<string, string | undefined>;
  // sharp's prebuilt libvips lists every library it bundles (heif, aom…); a system libvips only itself.
  if (!versions.heif) return 'unknown';
  if (header.compression === 'hevc') return versions.de265 ? null : 'HEVC';
  if (header.compression === 'av1') return versions.aom || versions.dav1d ? null : 'unknown';
  return 'unknown';
}

/** libvips's words for a missing loader or codec: consulted only where missingPixelCodec cannot tell. */
export const UNSUPPORTED = /unsupported image format|no decode|not a known file format|compression format has not been built in|codec/i;

/** The outcome of the strict decode and, when it failed recoverably, of the lenient one. */
export type DecodeOutcome =
  | { ok: DecodedPlanes; partial: false }
  | { ok: DecodedPlanes; partial: true; strictError: unknown }
  | { strictError: unknown; lenientError?: unknown };

/**
 * The strict decode, then the lenient one when the strict one failed (truncated or corrupt data
 * decodes in part), unless the pixels' codec is missing from this build: the whole of decodeLuma's
 * libvips work, errors kept as sharp gave them. Whether to try the lenient decode is decided from
 * the header (missingPixelCodec), not from the strict failure's text, so a file gives the same
 * outcome whatever else libvips is decoding at the moment. (The pixel limit cannot be the failure:
 * headerOf refused a larger header before any decode.) `forHash` as in decodePlanes.
 */
export async function decodeOutcome(sharp: Sharp, bytes: Buffer, header: ImageHeader, forHash: boolean): Promise<DecodeOutcome> {
  try {
    return { ok: await decodePlanes(sharp, bytes, header, 'warning', forHash), partial: false };
  } catch (strictError) {
    const missing = missingPixelCodec(sharp, header);
    if ((missing !== null && missing !== 'unknown') || (missing === 'unknown' && UNSUPPORTED.test(strictError instanceof Error ? strictError.message : String(strictError)))) return { strictError };
    try {
      return { ok: await decodePlanes(sharp, bytes, header, 'none', forHash), partial: true, strictError };
    } catch (lenientError) {
      return { strictError, lenientError };
    }
  }
}
