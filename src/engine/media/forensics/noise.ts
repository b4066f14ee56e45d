/**
 * Noise-residual inconsistency. A camera image carries sensor noise of roughly one level across
 * the frame (for similar brightness); a region pasted from another source, smoothed, cloned or
 * generated usually does not match it (Mahdian & Saic 2009, "Using noise inconsistencies for
 * blind image forensics"). Noise is estimated per 64×64 tile with Immerkær's operator (1996,
 * "Fast noise variance estimation"): σ = √(π/2) / (6(W−2)(H−2)) · Σ|I ∗ M|, M = [1 −2 1; −2 4 −2;
 * 1 −2 1], skipping strong edges. Tiles whose log σ lies far from the image's median (robust z > 3.5
 * with MAD) and that form a connected group are reported. Scene texture also raises σ, so this is
 * a weak signal and says so.
 */
import { lumaTileSums, type LumaTileSums } from './luma-pass.js';
import { clusterPixelBox, clusterStandsOut, largestCluster, largestClusterBox, median, roundScore, type BaseRateTest, type PixelBox, type TileMap } from './tiles.js';
import type { LumaPlane, Signal } from './types.js';

export interface NoiseStats {
  tiles: number;
  medianSigma: number;
  lowCluster: number;
  highCluster: number;
  outliers: number;
  /** The low-noise cluster against the image's own rate of low-noise tiles (tiles.ts clusterStandsOut). */
  lowBaseRate: BaseRateTest;
  /** The largest low-noise group's bounding box in original-image pixels. */
  lowRegion: PixelBox | null;
  /**
   * Per tile: how much cleaner than the noise model, −z/7 capped to 0..1 (0.5 = the z < −3.5
   * outlier threshold; null = clipped or edge-only tile, not measured); marked = low-noise outliers.
   */
  map: TileMap;
}

export function noiseStats(plane: LumaPlane, sums: LumaTileSums = lumaTileSums(plane)): NoiseStats {
  const grid = { cols: sums.cols, rows: sums.rows };
  const n = grid.cols * grid.rows;
  const { noiseSum: sum, noiseCount: count, bright, seen } = sums;
  const logs: number[] = [];
  const logOf = new Float64Array(n).fill(NaN);
  const levelOf = new Int8Array(n).fill(-1);
  for (let t = 0; t < n; t++) {
    const mean = seen[t]! ? bright[t]! / seen[t]! : 0;
    // Clipped (near-black or near-white) tiles have no measurable noise.
    if (count[t]! < seen[t]! * 0.3 || mean < 16 || mean > 239) continue;
    const sigma = (Math.sqrt(Math.PI / 2) / 6) * (sum[t]! / count[t]!);
    const l = Math.log(sigma + 0.05);
    logOf[t] = l;
    levelOf[t] = Math.min(LEVELS - 1, Math.floor(((mean - 16) / 224) * LEVELS));
    logs.push(l);
  }
  // The image's own noise model: sensor noise grows with brightness (shot noise), and tone curves
  // reshape that, so each tile is compared with tiles of similar brightness: the expected log σ
  // is the median of its brightness level (levels with fewer than MIN_LEVEL_TILES tiles fall back
  // to the image median). Outliers are residuals beyond 3.5 robust standard deviations (MAD)
  // under this model AND under the whole-image level, and off by more than a factor of 2 in σ.
  const med = median(logs);
  const levelMedian = new Float64Array(LEVELS).fill(med);
  // Each level's values in tile order, gathered in one pass over the tiles.
  const inLevel: number[][] = Array.from({ length: LEVELS }, () => []);
  for (let t = 0; t < n; t++) if (levelOf[t]! >= 0) inLevel[levelOf[t]!]!.push(logOf[t]!);
  for (let k = 0; k < LEVELS; k++) if (inLevel[k]!.length >= MIN_LEVEL_TILES) levelMedian[k] = median(inLevel[k]!);
  const residual = new Float64Array(n).fill(NaN);
  const residuals: number[] = [];
  for (let t = 0; t < n; t++)
    if (levelOf[t]! >= 0) {
      residual[t] = logOf[t]! - levelMedian[levelOf[t]!]!;
      residuals.push(residual[t]!);
    }
  const rmed = median(residuals);
  const mad = median(residuals.map((r) => Math.abs(r - rmed))) * 1.4826 || 0.05;
  const gmad = median(logs.map((l) => Math.abs(l - med))) * 1.4826 || 0.05;
  const low = new Uint8Array(n);
  const high = new Uint8Array(n);
  const scores: (number | null)[] = new Array(n).fill(null);
  const lowList: number[] = [];
  let outliers = 0;
  for (let t = 0; t < n; t++) {
    const r = residual[t]!;
    if (Number.isNaN(r)) continue;
    const z = (r - rmed) / Math.max(mad, 0.05);
    scores[t] = roundScore(-z / 7);
    // A tile is an outlier only when both the brightness model and the whole-image level agree.
    const zg = (logOf[t]! - med) / Math.max(gmad, 0.05);
    // "Much less noise": beyond 3.5 robust SDs AND under half the σ the model expects at that
    // brightness (a per-tile σ from a 64×64 sample varies by a few per cent on its own).
    if (z < -3.5 && zg < -3.5 && r - rmed < -Math.LN2) {
      low[t] = 1;
      lowList.push(t);
      outliers++;
    } else if (z > 3.5 && zg > 3.5 && r - rmed > Math.LN2) {
      high[t] = 1;
      outliers++;
    }
  }
  const lowBox = largestClusterBox(low, grid);
  return {
    tiles: logs.length,
    medianSigma: Math.exp(med) - 0.05,
    lowCluster: lowBox.size,
    highCluster: largestCluster(high, grid),
    outliers,
    // Base rate: every tile the model cannot explain (low or high), the image's own scatter.
    lowBaseRate: clusterStandsOut(lowBox, logs.length, outliers),
    lowRegion: clusterPixelBox(lowBox, plane),
    map: { scores, marked: lowList },
  };
}

/** Brightness levels of the noise model, and the fewest tiles a level needs for its own median. */
const LEVELS = 6;
const MIN_LEVEL_TILES = 8;

export function noiseSignal(plane: LumaPlane, sums?: LumaTileSums): Signal | null {
  const s = noiseStats(plane, sums);
  if (s.tiles < 16) return null;
  const signal = judgeNoise(s);
  signal.tileMap = s.map;
  return signal;
}

function judgeNoise(s: NoiseStats): Signal {
  // Only unusually clean regions count: scene texture (foliage, gravel) routinely makes noisy-looking
  // clusters in genuine photos, while a pasted, smoothed or generated patch tends to be cleaner.
  const cluster = s.lowCluster;
  const br = s.lowBaseRate;
  const nums = `median σ ${s.medianSigma.toFixed(2)} over ${s.tiles} tiles; ${s.outliers} outlier tiles against the image's brightness-dependent noise model, largest connected low-noise group ${cluster}${cluster ? ` (box density ${br.boxDensity.toFixed(2)} vs the image's own rate ${br.baseRate.toFixed(3)}, binomial tail 10^${br.log10P.toFixed(1)}, threshold 10^${br.log10Threshold.toFixed(1)})` : ''}`;
  // A group covering most of the frame is scene content (sky, a wall), not a splice; a group no
  // denser than the image's own scatter of clean tiles is not a region.
  if (cluster >= 3 && cluster <= s.tiles * 0.35 && br.standsOut) {
    return {
      analyzer: 'forensics.noise_residual',
      kind: 'manipulation',
      // Weak alone (flat scene areas do this too): capped below the `suspicious` threshold (0.3),
      // so it needs an independent second signal to change the verdict.
      probability: Math.min(0.25, 0.1 + 0.02 * cluster),
      confidence: 0.35,
      finding: `A connected region of ${cluster} tiles has much less noise than the rest of the image: a pasted, smoothed or generated region, or a very flat scene area (${nums})`,
      flag: 'image_manipulated',
      ...(s.lowRegion ? { region: s.lowRegion } : {}),
    };
  }
  return {
    analyzer: 'forensics.noise_residual',
    kind: 'manipulation',
    probability: 0,
    confidence: 0.3,
    finding: `Noise level consistent across the image (${nums})`,
  };
}
