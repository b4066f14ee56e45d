/**
 * Pixel decoding with sharp (libvips), within DESIGN.md's limits: at most 100 megapixels
 * (`limitInputPixels`, checked from the header before any pixel is decoded, so a decompression
 * bomb costs a few bytes of parsing) and a libvips time-out so no file can hang the process.
 */
import { createRequire } from 'node:module';
import { VerityError } from '../../api/errors.js';
import { LIMITS } from '../../api/requests.js';
import { strideOf, type LumaPlane } from './forensics/types.js';
import {
  cropView,
  decodeOutcome,
  headerOf,
  lumaProxy,
  MAX_PIXELS,
  missingPixelCodec,
  storedValues,
  withoutOperationCache,
  UNSUPPORTED,
  VIPS_TIMEOUT_S,
  type DecodedPlanes,
  type DecodeOutcome,
  type ImageHeader,
} from './luma-decode.js';

type Sharp = (typeof import('sharp'))['default'];
let sharpModule: Promise<Sharp> | undefined;
/**
 * sharp, loaded once per process. Built code takes the build's bundle of sharp's JavaScript through
 * a V8 code cache in `codeCacheDir` (cached-modules.ts; the first call's folder counts); otherwise
 * sharp's CommonJS entry: `import('sharp')` takes the ES-module entry, whose graph imports
 * CommonJS packages (detect-libc, color, semver) through Node's ESM loader and lexer; `require`
 * loads the same code ~45 ms faster in a fresh process (same native addon either way).
 */
export async function loadSharp(codeCacheDir?: string): Promise<Sharp> {
  // Loading it is synchronous work (its JavaScript, libvips): one whole event-loop turn first (two
  // immediates: see analyze-image.ts nextTurn), so an interrupt (the CLI analyses media on its
  // main thread) or an I/O callback is not held up behind it.
  sharpModule ??= new Promise((resolve) => setImmediate(() => setImmediate(resolve))).then(async () => {
    const bundled = (await import('./cached-modules.js')).loadBundledSharp(codeCacheDir);
    return withoutOperationCache(bundled ?? (createRequire(import.meta.url)('sharp') as Sharp));
  });
  return sharpModule;
}

// The decode's own constants and steps live in luma-decode.ts (light enough for early-media.ts).
if (MAX_PIXELS !== LIMITS.megapixels * 1_000_000) throw new Error('luma-decode.ts MAX_PIXELS differs from LIMITS.megapixels');
export { MAX_PIXELS, cropView };

/** sharp's own message for an image over `limitInputPixels` (thrown by sharp, not read from libvips's buffer). */
const PIXEL_LIMIT = /pixel limit/i;
/**
 * sharp's own whole message when no libvips loader recognises the bytes (common.cc: a fixed text,
 * not libvips's buffer), as for an AVIF sequence (`avis`) or a `hevx` HEIF, which file-type
 * names but libvips does not sniff: not corrupt, but unreadable here.
 */
const NO_LOADER = /^Input (buffer|file) contains unsupported image format$/;
export type { ImageHeader };

/** sharp's loader for a detected format (detect-type.ts names AVIF apart; libvips reads it with heifload). */
const LOADER: Record<string, string> = { avif: 'heif' };

/**
 * Where a libvips failure happened, which decides what it means: reading the header of a file whose
 * detected `format` is known (or not known: a caller that detected none), or decoding the pixels of
 * a file whose `header` was read.
 */
type FailedAt = { stage: 'header'; format?: string } | { stage: 'pixels'; header: ImageHeader };

/**
 * The engine's error for a libvips failure, decided from facts, not from libvips's words: its
 * error buffer is one per process, so while another decode runs beside this one (the EXIF
 * thumbnail's check, the early decode, another request in serve, the analysis pool's threads) the
 * text read back may be that decode's, a mix, or "Unknown error". Measured on the shared
 * corrupted.jpg: alone, always "premature end of data segment"; 15 decodes at once, 2 of them
 * "Warning treated as error"; through the CLI, 3 of 12 runs another decoder warning. A result must
 * not vary from run to run (nor carry text from another caller's file); the words stay in the
 * cause, for the logs.
 * - Over the pixel limit: sharp's own fixed message, thrown by sharp before libvips reads pixels
 *   (not the shared buffer), or the header check (readHeader).
 * - No loader recognises the bytes: sharp's own fixed message (NO_LOADER), 415.
 * - A codec this build lacks (luma-decode.ts missingPixelCodec: HEVC in a HEIC, from the header
 *   and sharp's library list) or a format it has no loader for (`sharp.format`): 415.
 * - Anything else, once the header named a format this build reads: the data is truncated or
 *   corrupt, 422. Only a HEIF whose decoder the library list cannot vouch for (on a libvips of
 *   the system's, whose libheif plug-ins sharp does not list, or coded other than HEVC and AV1)
 *   leaves its failure to libvips's words.
 */
function decodeError(sharp: Sharp, err: unknown, what: string, at: FailedAt): VerityError {
  const msg = err instanceof Error ? err.message : String(err);
  if (at.stage === 'header' && PIXEL_LIMIT.test(msg))
    return new VerityError('PAYLOAD_TOO_LARGE', `The image has more than ${LIMITS.megapixels} megapixels: refused before decoding`, { cause: err });
  const unsupported = (detail: string) => new VerityError('UNSUPPORTED_MEDIA_TYPE', `The ${what} cannot be decoded here: ${detail}`, { cause: err });
  if (at.stage === 'header') {
    const loader = at.format && (LOADER[at.format] ?? at.format);
    if (loader && !(sharp.format as unknown as Record<string, { input?: { buffer?: boolean } } | undefined>)[loader]?.input?.buffer)
      return unsupported(`this build of libvips has no ${loader} loader`);
    // Quoted whole: the text is sharp's own, the same in every run (not libvips's shared buffer).
    if (NO_LOADER.test(msg)) return new VerityError('UNSUPPORTED_MEDIA_TYPE', `The ${what} cannot be decoded here (${msg})`, { cause: err });
  } else {
    const missing = missingPixelCodec(sharp, at.header);
    if (missing === 'unknown') {
      // The list cannot tell (a system libvips, another coding): its words are all there is to go by.
      const codec = UNSUPPORTED.test(msg) ? /has not been built in:\s*([A-Za-z0-9][\w.-]*)/i.exec(msg)?.[1] : undefined;
      if (codec) return unsupported(`this build cannot decode ${codec} pixels (libvips: the ${codec} decoder has not been built in)`);
    } else if (missing) return unsupported(`this build cannot decode ${missing} pixels (libvips: the ${missing} decoder has not been built in)`);
  }
  return new VerityError('UNPROCESSABLE_CONTENT', `The ${what} cannot be decoded: it looks truncated or corrupt`, { cause: err });
}

/**
 * The image size an ISO-BMFF (HEIF/AVIF) container declares in its `ispe` properties, for files
 * whose pixels libvips cannot decode here (HEVC-coded HEIC): the largest one, since tiles and
 * thumbnails have their own. Null when there is none.
 */
export function bmffDeclaredSize(bytes: Buffer): { width: number; height: number } | null {
  let best: { width: number; height: number } | null = null;
  for (let at = bytes.indexOf('ispe'); at >= 4 && at + 16 <= bytes.length; at = bytes.indexOf('ispe', at + 4)) {
    // box: size(4) 'ispe'(4) version+flags(4) width(4) height(4)
    const width = bytes.readUInt32BE(at + 8);
    const height = bytes.readUInt32BE(at + 12);
    if (width > 0 && height > 0 && (!best || width * height > best.width * best.height)) best = { width, height };
  }
  return best;
}

/**
 * Reads the header only; throws 413 over the pixel limit, 415 when this build has no loader for
 * the detected `format` (detect-type.ts) or none of its loaders recognises the bytes, and 422 when
 * the header is unreadable.
 */
export async function readHeader(bytes: Buffer, format?: string): Promise<ImageHeader> {
  const sharp = await loadSharp();
  let header: Awaited<ReturnType<typeof headerOf>>;
  try {
    header = await headerOf(sharp, bytes);
  } catch (err) {
    throw decodeError(sharp, err, 'image', { stage: 'header', format });
  }
  if ('problem' in header) {
    if (header.problem === 'no-size') throw new VerityError('UNPROCESSABLE_CONTENT', 'The image header declares no width or height');
    throw new VerityError('PAYLOAD_TOO_LARGE', `The image is ${header.width}×${header.height} (${((header.width * header.height) / 1e6).toFixed(0)} megapixels); the limit is ${LIMITS.megapixels}`);
  }
  return header;
}

export interface DecodedLuma extends DecodedPlanes {
  /** True when the strict decode failed and a lenient one recovered part of the image. */
  partial: boolean;
  /** The libvips message of the strict failure, when `partial`. */
  problem: string | null;
}

/**
 * The pixels are read as stored (`ignoreIcc`): sharp otherwise converts an image with an embedded
 * ICC profile to sRGB through lcms before anything else, which doubled the decode of a 12 MP JPEG
 * (58 → 115 ms of CPU) even for an embedded sRGB profile, where it changes no value, and for a
 * Display P3 one (every iPhone JPEG) moved values by up to 2 levels, away from what the encoder
 * wrote: the compression grid and the sensor noise the analyzers measure are in the stored values.
 * CMYK keeps its conversion to sRGB through the embedded profile (lumaProxy 'convert'; ignoring
 * it would make sharp use a generic CMYK profile instead).
 *
 * Luma-proxy pixels (see lumaProxy) of the analysis region, decoded ONCE and shared by every
 * pixel analyzer and both perceptual hashes: the whole image up to 4096×4096, else a centred crop
 * whose corner sits on the 8-pixel JPEG grid. First page/frame only; no EXIF rotation, so the
 * compression grid stays where the encoder put it. An image over 4096 on a side but within
 * 2 × 4096² pixels is decoded whole (`whole`) when the perceptual hash is wanted (`forHash`), and
 * the crop is a view into it: the same pixels libvips's extract gives (a JPEG is entropy-decoded
 * whole either way), plus a plane the hash can resize without a second decode; without the hash,
 * only the crop is decoded. A strict decode that fails on the data is followed by a lenient one
 * (`partial`). The steps are luma-decode.ts's; `started` is their outcome when they were begun
 * earlier for these bytes and this header (early-media.ts: a decode started while the CLI loads).
 */
export async function decodeLuma(bytes: Buffer, header: ImageHeader, started?: Promise<DecodeOutcome>, forHash = true): Promise<DecodedLuma> {
  const outcome = await (started ?? decodeOutcome(await loadSharp(), bytes, header, forHash));
  if ('ok' in outcome && !outcome.partial) return { ...outcome.ok, partial: false, problem: null };
  const sharp = await loadSharp(); // loaded already, by this decode or the early one
  const at: FailedAt = { stage: 'pixels', header };
  if ('ok' in outcome) return { ...outcome.ok, partial: true, problem: decodeError(sharp, outcome.strictError, 'image', at).message };
  throw decodeError(sharp, outcome.lenientError ?? outcome.strictError, 'image', at);
}

/** The plane's pixels as width × height contiguous bytes (a copy only when it is a view with a wider stride). */
export function contiguousPixels(plane: LumaPlane): Uint8Array {
  const stride = strideOf(plane);
  if (stride === plane.width) return plane.data.subarray(0, plane.width * plane.height);
  const out = new Uint8Array(plane.width * plane.height);
  for (let y = 0; y < plane.height; y++) out.set(plane.data.subarray(y * stride, y * stride + plane.width), y * plane.width);
  return out;
}

/** Whether `plane` holds the whole image (not a crop of a very large one). */
export const coversWholeImage = (plane: LumaPlane, header: ImageHeader): boolean =>
  plane.width === header.width && plane.height === header.height;

/**
 * A small luma-proxy image resized to exactly width×height in stored orientation, for hashing:
 * from an already decoded plane when there is one (no second decode), else from the file (JPEG
 * shrink-on-load makes that cheap). Runs in libvips's thread pool.
 */
export async function lumaThumbnail(source: { plane: LumaPlane } | { bytes: Buffer; header: ImageHeader }, width: number, height: number): Promise<Uint8Array> {
  const sharp = await loadSharp();
  let img;
  if ('plane' in source) {
    const p = source.plane;
    // A one-band raw input is written back as sRGB (three equal bands) unless one band is asked for.
    img = sharp(contiguousPixels(p), { raw: { width: p.width, height: p.height, channels: 1 } }).extractChannel(0);
  } else {
    img = sharp(source.bytes, { limitInputPixels: MAX_PIXELS, failOn: 'none', page: 0, pages: 1, ignoreIcc: storedValues(source.header) }).timeout({ seconds: VIPS_TIMEOUT_S });
    const proxy = lumaProxy(source.header);
    img = proxy === 'convert' ? img.greyscale() : img.extractChannel(proxy === 'green' ? 1 : 0);
  }
  const data = await img.resize(width, height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
