/**
 * What every forensic analyzer returns: a named signal with its own numbers, so the scoring step
 * (../score.ts) can combine them and the evidence chain can say why.
 */
import type { PixelBox, TileMap } from './tiles.js';

export type SignalKind =
  /** Evidence the pixels or file were edited after capture. */
  | 'manipulation'
  /** Evidence the content is machine-generated. */
  | 'synthetic'
  /** Evidence for an untouched camera original (lowers suspicion). */
  | 'capture';

export interface Signal {
  /** Analyzer name, shown as the evidence `source`, e.g. `forensics.jpeg_grid`. */
  analyzer: string;
  kind: SignalKind;
  /** Probability this signal assigns to its hypothesis (0..1); 0 means "looked, found nothing". */
  probability: number;
  /** How much the analyzer trusts its own reading (0..1): shown as the evidence authority_score. */
  confidence: number;
  /** One sentence with the numbers behind it. */
  finding: string;
  /** Optional flag this signal raises when it fires. */
  flag?: 'image_manipulated' | 'deepfake' | 'metadata_stripped' | 'inconsistent_timestamps';
  /** A generator named by metadata (AUTOMATIC1111, ComfyUI, …), when this signal found one. */
  generator?: string;
  /** The IPTC digital source type a C2PA action declared (`trainedAlgorithmicMedia`), when one did. */
  declaredType?: string;
  /**
   * Signals that follow from one underlying event share a group and are not independent: a
   * software re-save writes libjpeg tables, updates ModifyDate and names itself in Software at
   * once. Within a group only the strongest counts (score.ts); across groups they combine.
   * Without a group a signal is its own group.
   */
  group?: SignalGroup;
  /** The region the finding names, in original-image pixels (only findings that name one). */
  region?: PixelBox;
  /** The analysis's per-tile scores over the tile grid (jpeg_grid and noise_residual), for heat maps. */
  tileMap?: TileMap;
}

/** `reencoding`: the file was written again by software after capture (not, by itself, a content edit). */
export type SignalGroup = 'reencoding';

/** Grayscale pixels of the region the pixel analyzers look at. */
export interface LumaPlane {
  data: Uint8Array;
  width: number;
  height: number;
  /** Offset of the plane in the full image; multiples of 8 so the JPEG grid stays aligned. */
  left: number;
  top: number;
  /**
   * Bytes from one row's start to the next's, when not `width`: a crop that is a view into a
   * larger decoded plane (decode.ts cropView) rather than a copy of it. Row y starts at
   * y × stride; the last row ends at (height − 1) × stride + width.
   */
  stride?: number;
}

/** A plane's row stride (its width unless it is a view into a wider one). */
export const strideOf = (plane: LumaPlane): number => plane.stride ?? plane.width;
