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
 * - `perceptualHash` 64-bit pHash (hex) for provenance look-ups, null if not computed
 * - `warnings`      what could not be analysed and why (partial decode, unreadable metadata…)
 */
import { VerityError } from '../../api/errors.js';
import type { AnalysisEvidence, MediaMetadata, Watermark } from '../../api/results.js';
import type { EnginePorts } from '../types.js';
import { readC2pa } from './c2pa.js';
import { bmffDeclaredSize, decodeLuma, MAX_PIXELS, readHeader, type ImageHeader } from './decode.js';
import { detectMediaType } from './detect-type.js';
import { exifThumbnailSignal } from './forensics/exif-thumbnail.js';
import { jpegGridSignal } from './forensics/jpeg-grid.js';
import { parseJpeg } from './forensics/jpeg-structure.js';
import {
  c2paSourceSignal,
  cameraMetadataSignal,
  editingSoftwareSignal,
  generatorSignal,
  timestampSignal,
} from './forensics/metadata-signals.js';
import { noiseSignal } from './forensics/noise.js';
import { quantizationSignal } from './forensics/quantization.js';
import { spectrumSignal } from './forensics/spectrum.js';
import type { Signal } from './forensics/types.js';
import { readMetadataDetails, type MetadataDetails } from './metadata.js';
import { pHash } from './perceptual-hash.js';
import { combineImageScores } from './score.js';
import { loadTrustAnchors } from './trust.js';
import { withTimeBudget } from './time-budget.js';

export type ImageFlag = 'image_manipulated' | 'deepfake' | 'metadata_stripped' | 'inconsistent_timestamps';

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
}

export interface AnalyzeImageOptions {
  checkDeepfakes: boolean;
  checkWatermarks: boolean;
  ports: EnginePorts;
  signal?: AbortSignal;
  /** Whole-analysis budget in ms (default 30 s); past it the request fails with 422 instead of hanging. */
  budgetMs?: number;
}

export const IMAGE_BUDGET_MS = 30_000;

/** Analyses an image; throws VerityError 415 (not an image we read), 413 (pixel limit) or 422 (undecodable). */
export function analyzeImage(bytes: Buffer, opts: AnalyzeImageOptions): Promise<ImageAnalysis> {
  return withTimeBudget(opts.budgetMs ?? IMAGE_BUDGET_MS, opts.signal, (signal) => runAnalysis(bytes, opts, signal));
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
  try {
    header = await readHeader(bytes);
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
  const decodedP = undecodable ? Promise.reject(undecodable) : decodeLuma(bytes, header);
  decodedP.catch(() => undefined); // awaited below; this only stops an early rejection being "unhandled"
  const watermarkP: Promise<Watermark | null> = opts.checkWatermarks
    ? readC2pa(bytes, type.mime, { trustAnchorsPem: loadTrustAnchors(opts.ports.config, warnings), signal }).catch((err: unknown) => {
        warnings.push(`C2PA not checked: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      })
    : Promise.resolve(null);
  const [details, watermark] = await Promise.all([readMetadataDetails(bytes), watermarkP]);
  if (details.error) warnings.push(`Metadata partly unreadable: ${details.error}`);
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
    signals.push(generatorSignal(details));
    const c2 = c2paSourceSignal(watermark);
    if (c2) signals.push(c2);
  }
  if (jpeg) {
    const q = quantizationSignal(jpeg, details);
    if (q) signals.push(q);
  }

  // Pixel-level analyzers.
  let perceptualHash: string | null = null;
  try {
    const decoded = await decodedP;
    if (decoded.partial) warnings.push(`Decoded only partly: ${decoded.problem}`);
    signal.throwIfAborted();
    const shared = { plane: decoded.plane, header };
    // The hashes resize the shared plane in libvips's threads while the tile analyzers run here.
    const hashP = pHash(bytes, shared);
    const thumbP = jpeg ? exifThumbnailSignal(bytes, header.width, header.height) : Promise.resolve(null);
    hashP.catch(() => undefined);
    thumbP.catch(() => undefined);
    signals.push(jpegGridSignal(decoded.plane, type.format === 'jpeg'));
    signal.throwIfAborted();
    const noise = noiseSignal(decoded.plane);
    if (noise) signals.push(noise);
    if (opts.checkDeepfakes) {
      const spec = spectrumSignal(decoded.plane);
      if (spec) signals.push(spec);
    }
    const th = await thumbP;
    if (th) signals.push(th);
    perceptualHash = await hashP;
  } catch (err) {
    if (err instanceof VerityError && err.code !== 'UNPROCESSABLE_CONTENT' && err.code !== 'UNSUPPORTED_MEDIA_TYPE') throw err;
    // Metadata and C2PA may still be readable from a file whose pixels are not (e.g. HEVC-coded
    // HEIC without a decoder, or truncated data): report what we have and say what is missing.
    if (err instanceof VerityError && !details.tagCount && !watermark) throw err;
    warnings.push(`Pixel analysis skipped: ${err instanceof Error ? err.message : String(err)}`);
  }

  return assembleAnalysis({
    metadata: { width: header.width, height: header.height, format: type.format, exif: details.exif },
    details,
    mime: type.mime,
    watermark,
    signals,
    perceptualHash,
    warnings,
  });
}

/** Scores the signals and packages an analysis; images and videos (verify.ts) both end here. */
export function assembleAnalysis(
  parts: Pick<ImageAnalysis, 'metadata' | 'details' | 'mime' | 'watermark' | 'signals' | 'perceptualHash' | 'warnings'>,
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
