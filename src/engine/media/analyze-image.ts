/**
 * Full offline analysis of one image: metadata, C2PA, and the named forensic analyzers, combined
 * into scores. Shared by media verification and document analysis (images inside documents).
 *
 * `ImageAnalysis`:
 * - `metadata`      SPEC 2.4 MediaMetadata (width, height, format, exif{make, model, datetime_original, gps})
 * - `details`       everything else metadata said (Software, XMP CreatorTool, DigitalSourceType, text chunks)
 * - `mime`          type by magic bytes
 * - `watermark`     the C2PA summary (`Watermark`), or null when none / not checked
 * - `signals`       each analyzer's signal: probability, confidence, finding (forensics/types.ts)
 * - `evidence`      the signals as SPEC evidence items {source: analyzer, finding, authority_score: confidence}
 * - `deepfakeScore` probability the content is AI-generated or a deepfake (0..1)
 * - `manipulationScore` probability the pixels were edited after capture (0..1)
 * - `flags`         subset of image_manipulated | deepfake | metadata_stripped | inconsistent_timestamps
 * - `generator`     the AI generator named by metadata or C2PA, when one is
 * - `perceptualHash` 64-bit pHash (hex) for provenance look-ups, null if not computed (a partial
 *                   decode, or not asked for: `AnalyzeImageOptions.perceptualHash`)
 * - `warnings`      what could not be analysed and why (partial decode, unreadable metadata…)
 * - `incomplete`    null when every analyzer ran as designed; otherwise one sentence naming what
 *                   could not be checked because the input is broken, undecodable or too small
 *                   (verify.ts then caps trust at 0.4 and authenticity at `suspicious`)
 * - `pixels`        how much of the image the pixel analyzers saw: `full`, `partial` (truncated
 *                   file: only the decoded rows) or `none`
 */
import { VerityError } from '../../api/errors.js';
import type { AnalysisEvidence, MediaForensics, MediaMetadata, MediaVideo, Watermark } from '../../api/results.js';
import type { EnginePorts } from '../types.js';
import { readC2pa } from './c2pa.js';
import { bmffDeclaredSize, decodeLuma, loadSharp, MAX_PIXELS, readHeader, type ImageHeader } from './decode.js';
import { detectMediaType } from './detect-type.js';
import { exifThumbnailSignal } from './forensics/exif-thumbnail.js';
import { jpegGridSignal } from './forensics/jpeg-grid.js';
import { parseJpeg } from './forensics/jpeg-structure.js';
import { addTileRows, emptyTileSums } from './forensics/luma-pass.js';
import {
  c2paSourceSignal,
  cameraMetadataSignal,
  editingSoftwareSignal,
  declaresAi,
  generatorSignal,
  timestampSignal,
} from './forensics/metadata-signals.js';
import { noiseSignal } from './forensics/noise.js';
import { quantizationSignal } from './forensics/quantization.js';
import { spectrumSignal } from './forensics/spectrum.js';
import { TILE, tileGrid } from './forensics/tiles.js';
import { strideOf, type LumaPlane, type Signal } from './forensics/types.js';
import { readMetadataDetails, type MetadataDetails } from './metadata.js';
import { saveMediaModuleCaches } from './cached-modules.js';
import { readStealthPngInfo } from './stealth-pnginfo.js';
import { pHash } from './perceptual-hash.js';
import { combineImageScores } from './score.js';
import { loadTrustAnchors } from './trust.js';
import { withTimeBudget } from './time-budget.js';

import type { ImageFlag } from './score.js';
export type { ImageFlag };

export interface ImageAnalysis {
  metadata: MediaMetadata;
  details: MetadataDetails;
  mime: string;
  watermark: Watermark | null;
  signals: Signal[];
  evidence: AnalysisEvidence[];
  deepfakeScore: number;
  manipulationScore: number;
  flags: ImageFlag[];
  generator: string | null;
  perceptualHash: string | null;
  warnings: string[];
  incomplete: string | null;
  pixels: PixelCoverage;
  /**
   * True when the pixels were not analysed only because this build has no decoder for their codec
   * (e.g. HEVC in HEIC), not because the file is damaged: a valid C2PA hard binding can then still
   * vouch for the bytes (verify.ts `judge`).
   */
  codecMissing?: boolean;
  /**
   * An intact image too small for the pixel analyzers (under 4 tiles of 64×64, both sides at least
   * TOO_SMALL_MIN_SIDE): a limitation, not a failure. verify.ts keeps the metadata verdict, at most
   * likely_authentic, with trust capped at TOO_SMALL_TRUST_CAP.
   */
  tooSmall?: string;
  /** Tile maps of the pixel analyzers (the result's additive `forensics`), when the pixels were analysed. */
  forensics?: MediaForensics;
  /** A video's frames as read (the result's additive `video`). */
  video?: MediaVideo;
}

export type PixelCoverage = 'full' | 'partial' | 'none';

/**
 * Fewest 64×64 tiles the pixel analyzers need (the block-grid and noise tests compare tiles with
 * each other): below 4 tiles (e.g. 1×1, 100×68 thumbnails) pixel forensics cannot run.
 */
export const MIN_ANALYSIS_TILES = 4;
/** Shortest side of an intact image whose smallness is a limitation (not a partial result). */
export const TOO_SMALL_MIN_SIDE = 48;
export const analysableTiles = (width: number, height: number): number => Math.floor(width / 64) * Math.floor(height / 64);

/** Whether metadata gave anything beyond the image header (EXIF, XMP, text chunks, dates). */
function metadataReadable(d: MetadataDetails): boolean {
  return d.hasExif || !!(d.exif.make || d.exif.model || d.exif.datetime_original || d.software || d.creatorTool || d.digitalSourceType || d.createDate || d.modifyDate)
    || d.history.length > 0 || Object.keys(d.text).length > 0 || !!d.userComment || !!d.stealth;
}

export interface AnalyzeImageOptions {
  checkDeepfakes: boolean;
  checkWatermarks: boolean;
  ports: EnginePorts;
  signal?: AbortSignal;
  /** Whole-analysis budget in ms (default 30 s); past it the request fails with 422 instead of hanging. */
  budgetMs?: number;
  /**
   * Work that does not need the pixels (verify.ts: hashing the file, opening the store for the
   * known-media index), run once libvips has started decoding them in its own threads, while this
   * thread would otherwise wait. Not called when the analysis stops before the decode.
   */
  whileDecoding?: () => void;
  /**
   * Whether to compute the perceptual hash (default true). It serves only the known-media
   * look-up: verify.ts asks for it only when there is an index to search. Without it, an image
   * larger than the analysed region is decoded only in that region (luma-decode.ts), and the
   * analyzers' results are the same.
   */
  perceptualHash?: boolean;
}

export const IMAGE_BUDGET_MS = 30_000;

/** Analyses an image; throws VerityError 415 (not an image we read), 413 (pixel limit) or 422 (undecodable). */
export async function analyzeImage(bytes: Buffer, opts: AnalyzeImageOptions): Promise<ImageAnalysis> {
  // sharp starts loading now, through the code cache in the ports' folder (decode.ts loadSharp);
  // its failure, if any, is reported where the header is read.
  loadSharp(opts.ports.codeCacheDir).catch(() => undefined);
  try {
    return await withTimeBudget(opts.budgetMs ?? IMAGE_BUDGET_MS, opts.signal, (signal) => runAnalysis(bytes, opts, signal));
  } finally {
    // Once per process, after the first analysis: the caches then hold the functions it ran.
    saveMediaModuleCaches();
  }
}

async function runAnalysis(bytes: Buffer, opts: AnalyzeImageOptions, signal: AbortSignal): Promise<ImageAnalysis> {
  const type = await detectMediaType(bytes);
  if (type.kind !== 'image')
    throw new VerityError('UNSUPPORTED_MEDIA_TYPE', `Expected an image, got ${type.mime}`);
  const warnings: string[] = [];
  let header: ImageHeader;
  // A container this build cannot decode (HEVC-coded HEIC) still has readable metadata and C2PA:
  // take its declared size and go on without the pixel analyzers.
  let undecodable: VerityError | null = null;
  const wantHash = opts.perceptualHash ?? true;
  // A header and decode the host began before the CLI loaded (early-media.ts), when it read these
  // same bytes: the header is the one readHeader gives, the decode the one decodeLuma starts. A
  // decode that kept no whole plane cannot feed a wanted hash (the host guessed there would be no
  // look-up): its header serves, the pixels are decoded again here.
  const early = opts.ports.earlyMedia?.take(bytes);
  const earlyPixels = early && (early.forHash || !wantHash) ? early.outcome : undefined;
  try {
    header = early?.header ?? (await readHeader(bytes, type.format));
  } catch (err) {
    const declared = type.format === 'heif' || type.format === 'avif' ? bmffDeclaredSize(bytes) : null;
    if (!(err instanceof VerityError) || err.code === 'PAYLOAD_TOO_LARGE' || !declared) throw err;
    if (declared.width * declared.height > MAX_PIXELS)
      throw new VerityError('PAYLOAD_TOO_LARGE', `The image declares ${declared.width}×${declared.height} pixels; the limit is ${MAX_PIXELS / 1e6} megapixels`);
    header = { ...declared, format: type.format, pages: 1, channels: 3, space: 'srgb', orientation: 1 };
    undecodable = err;
  }
  signal.throwIfAborted();

  // Independent work starts at once: libvips decodes in its thread pool and V8 compiles the C2PA
  // wasm off-thread while exifr parses metadata here. The pixels are decoded once and shared.
  const decodedP = undecodable ? Promise.reject(undecodable) : decodeLuma(bytes, header, earlyPixels, wantHash);
  decodedP.catch(() => undefined); // awaited below; this only stops an early rejection being "unhandled"
  // After the pending promise callbacks (the decode is queued to libvips, exifr parses), before
  // the decoded pixels can arrive.
  if (opts.whileDecoding) setImmediate(opts.whileDecoding);
  // The EXIF-thumbnail check decodes the photo again (shrink-on-load, ~50 ms at 24 MP, in libvips's
  // threads) and needs nothing of the main decode: started now, it overlaps the main decode and the
  // metadata parsing instead of following them. Its signal is used only when the photo decodes
  // whole, as before; otherwise it is dropped.
  const thumbEarlyP = type.format === 'jpeg' && !undecodable ? exifThumbnailSignal(bytes, header.width, header.height, opts.ports.codeCacheDir) : null;
  thumbEarlyP?.catch(() => undefined); // awaited below; this only stops an early rejection being "unhandled"
  const watermarkP: Promise<Watermark | null> = opts.checkWatermarks
    ? readC2pa(bytes, type.mime, { trustAnchorsPem: loadTrustAnchors(opts.ports.config, warnings), signal }).catch((err: unknown) => {
        warnings.push(`C2PA not checked: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      })
    : Promise.resolve(null);
  // Stealth PNG info lives in the pixels' low bits: only PNGs, and only read when AI checks are on.
  const stealthP = opts.checkDeepfakes && !undecodable && type.format === 'png'
    ? readStealthPngInfo(bytes, { ...header, hasAlpha: header.channels === 2 || (header.channels === 4 && header.space !== 'cmyk') })
    : Promise.resolve(null);
  const [details, watermark, stealth] = await Promise.all([readMetadataDetails(bytes, opts.ports.codeCacheDir), watermarkP, stealthP]);
  details.stealth = stealth;
  if (details.error) warnings.push(`Metadata partly unreadable: ${details.error}`);
  warnings.push(...details.warnings);
  signal.throwIfAborted();

  const signals: Signal[] = [];
  const jpeg = type.format === 'jpeg' ? parseJpeg(bytes) : null;
  if (jpeg && !jpeg.hasEoi) warnings.push('The JPEG has no end-of-image marker: the file is truncated');

  // Metadata-level analyzers.
  signals.push(cameraMetadataSignal(details, type.format));
  signals.push(editingSoftwareSignal(details, jpeg));
  const ts = timestampSignal(details, opts.ports.clock.now(), watermark?.signed_at ?? null);
  if (ts) signals.push(ts);
  if (opts.checkDeepfakes) {
    const c2 = c2paSourceSignal(watermark);
    const meta = generatorSignal(details);
    // When the Content Credentials declare AI, "no AI-generator settings in the metadata" would
    // read as a second, contradicting finding: only a metadata signal that found something stays.
    if (!(c2 && declaresAi(c2) && meta.probability === 0)) signals.push(meta);
    if (c2) signals.push(c2);
  }
  if (jpeg) {
    const q = quantizationSignal(jpeg, details);
    if (q) signals.push(q);
  }

  // Pixel-level analyzers. They run only on enough real pixels: a truncated file is analysed on the
  // rows it decoded, and whatever could not be checked is named in `incomplete` (never silently
  // treated as "looked and found nothing").
  let perceptualHash: string | null = null;
  let pixels: PixelCoverage = 'none';
  let incomplete: string | null = null;
  let codecMissing = false;
  let tooSmall: string | null = null;
  let forensics: MediaForensics | undefined;
  try {
    const decoded = await decodedP;
    signal.throwIfAborted();
    const plane = decoded.partial ? decodedRows(decoded.plane) : decoded.plane;
    if (decoded.partial) {
      const pct = Math.round((100 * plane.height) / Math.max(1, decoded.plane.height));
      warnings.push(`Decoded only partly (${plane.height < decoded.plane.height ? `${pct} % of the rows` : 'from incomplete data'}): ${decoded.problem}`);
      incomplete = plane.height < decoded.plane.height
        ? `the file is truncated or corrupt: only ${pct} % of the image rows could be decoded, so pixel forensics saw part of the image`
        : 'the file is truncated or corrupt: the decoder recovered an image from incomplete data (e.g. the early scans of a progressive JPEG), so what the missing data held was not checked';
    }
    if (analysableTiles(plane.width, plane.height) < MIN_ANALYSIS_TILES) {
      const why = `${decoded.partial ? 'too few rows could be decoded' : `the image is too small (${header.width}×${header.height})`} for pixel forensics (they need at least ${MIN_ANALYSIS_TILES} tiles of 64×64 pixels): editing and generation traces in the pixels were not checked`;
      // An intact picture of thumbnail size (a 100×64 camcorder still) is a limit of the method,
      // not a sign of a broken or hostile file: said as such, never as suspicion (issue 30).
      // Smaller "images" (1×1 trackers, 16×16 icons) and cut files stay partial results.
      if (!decoded.partial && Math.min(header.width, header.height) >= TOO_SMALL_MIN_SIDE) tooSmall = why;
      else incomplete = why;
      throw new VerityError('UNPROCESSABLE_CONTENT', why);
    }
    pixels = decoded.partial ? 'partial' : 'full';
    // The hashes resize the shared plane (the whole image's, when the analyzers read a crop of
    // it) in libvips's threads while the tile analyzers run here. A partly decoded image gets no
    // hash: its missing rows would match nothing or the wrong thing.
    const hashP = decoded.partial || !wantHash ? Promise.resolve(null) : pHash(bytes, { plane: decoded.whole ?? plane, header });
    const thumbP = jpeg && !decoded.partial && thumbEarlyP ? thumbEarlyP : Promise.resolve(null);
    hashP.catch(() => undefined);
    // The hashes are chains of libvips steps, each continued from this thread: one turn of the
    // event loop before each synchronous stretch below lets them queue their next step, so libvips
    // works during the stretch instead of after it (and an interrupt is seen between stretches).
    await nextTurn();
    // One pass over the plane feeds both tile analyzers (forensics/luma-pass.ts), a few tile rows
    // at a time: in the CLI this runs on the main thread, whose Ctrl-C handler runs between steps.
    const sums = emptyTileSums(plane);
    for (let ty = 0; ty < sums.rows; ty += TILE_ROWS_PER_STEP) {
      addTileRows(plane, sums, ty, Math.min(sums.rows, ty + TILE_ROWS_PER_STEP));
      await nextTurn();
      signal.throwIfAborted();
    }
    const grid = jpegGridSignal(plane, type.format === 'jpeg', sums);
    signals.push(grid);
    await nextTurn();
    signal.throwIfAborted();
    const noise = noiseSignal(plane, sums);
    if (noise) signals.push(noise);
    forensics = tileMaps(plane, grid, noise);
    if (opts.checkDeepfakes) {
      await nextTurn();
      const spec = spectrumSignal(plane);
      if (spec) signals.push(spec);
    }
    const th = await thumbP;
    if (th) signals.push(th);
    perceptualHash = await hashP;
  } catch (err) {
    if (err instanceof VerityError && err.code !== 'UNPROCESSABLE_CONTENT' && err.code !== 'UNSUPPORTED_MEDIA_TYPE') throw err;
    if (!(err instanceof VerityError)) throw err;
    pixels = 'none';
    codecMissing = err.code === 'UNSUPPORTED_MEDIA_TYPE' && !incomplete;
    if (!tooSmall) incomplete ??= `the pixels could not be decoded (${err.message}): editing and generation traces in the pixels were not checked`;
    // Metadata and C2PA may still be readable from a file whose pixels are not (e.g. HEVC-coded
    // HEIC without a decoder, or truncated data): report what we have and say what is missing.
    // With nothing readable at all there is no result to give.
    if (!metadataReadable(details) && !watermark)
      throw new VerityError('UNPROCESSABLE_CONTENT', `Nothing in this image can be analysed: ${incomplete ?? tooSmall}, and it carries no readable metadata or C2PA manifest`);
    warnings.push(tooSmall ? `Too small to analyse: ${tooSmall}; the verdict rests on metadata` : `Pixel analysis skipped: ${err.message}`);
  }
  // Text the AI-metadata check could not read (png-text.ts) is a part of the analysis that did not
  // run: the same cap as unchecked pixels, whatever the pixels showed.
  if (details.textNotChecked) incomplete = incomplete ? `${incomplete}; ${details.textNotChecked}` : details.textNotChecked;

  return assembleAnalysis({
    metadata: { width: header.width, height: header.height, format: type.format, exif: details.exif },
    details,
    mime: type.mime,
    watermark,
    signals,
    perceptualHash,
    warnings,
    incomplete,
    pixels,
    codecMissing,
    ...(tooSmall ? { tooSmall } : {}),
    ...(forensics ? { forensics } : {}),
  });
}

/** Tile rows of the shared pass between two event-loop turns: ~8 steps for a 12 MP photo, ~10 ms each. */
const TILE_ROWS_PER_STEP = 6;

/**
 * Resolves after one whole turn of the event loop, its poll phase included (I/O completions,
 * signals such as Ctrl-C): an immediate queued from the poll phase runs in that same iteration,
 * before any timer or signal, so the second one is what waits for the next poll.
 */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** The additive `forensics` field: where the tiles are and what each pixel analysis scored there. */
function tileMaps(plane: LumaPlane, grid: Signal, noise: Signal | null): MediaForensics {
  const { cols, rows } = tileGrid(plane.width, plane.height);
  const f: MediaForensics = { tile: TILE, cols, rows, analysed: { x: plane.left, y: plane.top, width: plane.width, height: plane.height } };
  if (grid.tileMap) f.jpeg_grid = grid.tileMap;
  if (noise?.tileMap) f.noise = noise.tileMap;
  return f;
}

/**
 * The rows of a partly decoded image that hold real pixels. libvips fills what it could not decode
 * with one constant value (grey 128 for JPEG, black for PNG), so the trailing rows equal to the
 * last row's constant value are cut, then one more 16-row MCU band (it may be half-filled).
 */
export function decodedRows(plane: LumaPlane): LumaPlane {
  const { data, width, height } = plane;
  const stride = strideOf(plane);
  const constantRow = (y: number): number | null => {
    const v = data[y * stride]!;
    for (let x = 1; x < width; x++) if (data[y * stride + x] !== v) return null;
    return v;
  };
  const fill = constantRow(height - 1);
  if (fill === null) return plane;
  let y = height - 1;
  while (y >= 0 && constantRow(y) === fill) y--;
  const keep = Math.max(0, Math.floor((y + 1) / 16) * 16 - 16);
  return { ...plane, data: data.subarray(0, keep && (keep - 1) * stride + width), height: keep };
}

/** Scores the signals and packages an analysis; images and videos (verify.ts) both end here. */
export function assembleAnalysis(
  parts: Pick<ImageAnalysis, 'metadata' | 'details' | 'mime' | 'watermark' | 'signals' | 'perceptualHash' | 'warnings' | 'incomplete' | 'pixels' | 'codecMissing' | 'forensics' | 'tooSmall'>,
): ImageAnalysis {
  const scores = combineImageScores(parts.signals, parts.watermark);
  return {
    ...parts,
    evidence: scores.evidence,
    deepfakeScore: scores.deepfakeScore,
    manipulationScore: scores.manipulationScore,
    flags: scores.flags,
    generator: parts.signals.find((s) => s.generator)?.generator ?? null,
  };
}
