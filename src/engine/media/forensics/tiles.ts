/** Tile bookkeeping shared by the region-wise analyzers: grid size and connected clusters. */

export const TILE = 64;

export interface TileGrid {
  cols: number;
  rows: number;
}

export const tileGrid = (width: number, height: number): TileGrid => ({
  cols: Math.max(1, Math.floor(width / TILE)),
  rows: Math.max(1, Math.floor(height / TILE)),
});

/** Size of the largest 4-connected group of marked tiles. */
export function largestCluster(marked: Uint8Array, grid: TileGrid): number {
  return largestClusterBox(marked, grid).size;
}

export interface ClusterBox {
  size: number;
  /** Tiles in the cluster's bounding box, and how many of them are marked. */
  boxTiles: number;
  boxMarked: number;
  /** The bounding box in tile coordinates (inclusive); c1 < c0 when there is no cluster. */
  c0: number;
  c1: number;
  r0: number;
  r1: number;
}

/** The largest 4-connected group of marked tiles with its bounding box (for the base-rate test). */
export function largestClusterBox(marked: Uint8Array, grid: TileGrid): ClusterBox {
  const seen = new Uint8Array(marked.length);
  let best = 0;
  let box = { c0: 0, c1: -1, r0: 0, r1: -1 };
  // Depth-first fill with an explicit stack in a typed array (each tile is pushed at most once)
  // and the four neighbours tested in line: no array allocated per visited tile.
  const stack = new Int32Array(marked.length);
  const { cols, rows } = grid;
  for (let i = 0; i < marked.length; i++) {
    if (!marked[i] || seen[i]) continue;
    let size = 0;
    let c0 = Infinity, c1 = -1, r0 = Infinity, r1 = -1;
    let top = 0;
    stack[top++] = i;
    seen[i] = 1;
    while (top > 0) {
      const t = stack[--top]!;
      size++;
      const c = t % cols;
      const r = (t - c) / cols;
      if (c < c0) c0 = c;
      if (c > c1) c1 = c;
      if (r < r0) r0 = r;
      if (r > r1) r1 = r;
      if (c > 0 && marked[t - 1] && !seen[t - 1]) { seen[t - 1] = 1; stack[top++] = t - 1; }
      if (c < cols - 1 && marked[t + 1] && !seen[t + 1]) { seen[t + 1] = 1; stack[top++] = t + 1; }
      if (r > 0 && marked[t - cols] && !seen[t - cols]) { seen[t - cols] = 1; stack[top++] = t - cols; }
      if (r < rows - 1 && marked[t + cols] && !seen[t + cols]) { seen[t + cols] = 1; stack[top++] = t + cols; }
    }
    if (size > best) {
      best = size;
      box = { c0, c1, r0, r1 };
    }
  }
  let boxMarked = 0;
  for (let r = box.r0; r <= box.r1; r++) for (let c = box.c0; c <= box.c1; c++) boxMarked += marked[r * grid.cols + c] ? 1 : 0;
  return { size: best, boxTiles: Math.max(0, box.c1 - box.c0 + 1) * Math.max(0, box.r1 - box.r0 + 1), boxMarked, ...box };
}

/** A rectangle in original-image pixels (the result's `region`). */
export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A cluster's bounding box in original-image pixels: the plane may be a centred crop of a very
 * large image (decode.ts), so its offset is added. Null when there is no cluster.
 */
export function clusterPixelBox(c: ClusterBox, plane: { left: number; top: number }): PixelBox | null {
  if (c.size === 0 || c.c1 < c.c0) return null;
  return { x: plane.left + c.c0 * TILE, y: plane.top + c.r0 * TILE, width: (c.c1 - c.c0 + 1) * TILE, height: (c.r1 - c.r0 + 1) * TILE };
}

/**
 * Per-tile scores of one pixel analysis, for pictures (the result's `forensics` maps): each tile's
 * score in 0..1 rounded to 2 decimals (null: the tile could not be measured), row-major over the
 * analysis grid, and the tiles the analysis marked.
 */
export interface TileMap {
  scores: (number | null)[];
  marked: number[];
}

export const roundScore = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 100) / 100;

/** ln P(X ≥ k) for X ~ Binomial(n, p), summed in log space (n is a tile count: at most a few thousand). */
export function logBinomialTail(k: number, n: number, p: number): number {
  if (k <= 0) return 0;
  if (k > n) return -Infinity;
  if (p <= 0) return -Infinity;
  if (p >= 1) return 0;
  const lgamma = (x: number): number => {
    // Stirling series; exact enough (≪ 1e-6 relative) for x ≥ 1 after the shift below.
    let shift = 0;
    while (x < 8) {
      shift -= Math.log(x);
      x += 1;
    }
    return shift + (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x ** 3);
  };
  const lc = lgamma(n + 1);
  const terms: number[] = [];
  for (let j = k; j <= n; j++) terms.push(lc - lgamma(j + 1) - lgamma(n - j + 1) + j * Math.log(p) + (n - j) * Math.log1p(-p));
  const m = Math.max(...terms);
  return m + Math.log(terms.reduce((s, t) => s + Math.exp(t - m), 0));
}

/**
 * Whether the largest cluster stands out from the image's own base rate (docs/media.md "Base-rate
 * rule"). Null hypothesis: tiles are marked independently at the rate seen OUTSIDE the cluster's
 * bounding box (Laplace-smoothed: (marked outside + 1) / (tiles outside + 2)), with `baseMarked`
 * counting every tile that shows the effect at all (any foreign phase, any outlier). The cluster
 * counts when
 *   1. the binomial tail P(X ≥ marked in box | box tiles, base rate) < ALPHA / tiles (a
 *      Bonferroni correction for the ~one window per tile the search could have picked), and
 *   2. the box is at least half marked and at least RATIO_MIN times as dense as the base rate.
 */
export const BASE_RATE_ALPHA = 0.01;
export const BASE_RATE_RATIO_MIN = 3;

export interface BaseRateTest {
  baseRate: number;
  boxDensity: number;
  /** log10 of the binomial tail probability. */
  log10P: number;
  /** log10 of the threshold ALPHA / tiles. */
  log10Threshold: number;
  standsOut: boolean;
}

export function clusterStandsOut(c: ClusterBox, tiles: number, baseMarked: number): BaseRateTest {
  const outsideTiles = Math.max(0, tiles - c.boxTiles);
  const outsideMarked = Math.max(0, baseMarked - c.boxMarked);
  const baseRate = (outsideMarked + 1) / (outsideTiles + 2);
  const boxDensity = c.boxTiles ? c.boxMarked / c.boxTiles : 0;
  const log10P = logBinomialTail(c.boxMarked, c.boxTiles, baseRate) / Math.LN10;
  const log10Threshold = Math.log10(BASE_RATE_ALPHA / Math.max(1, tiles));
  const standsOut = c.size > 0 && log10P < log10Threshold && boxDensity >= 0.5 && boxDensity >= BASE_RATE_RATIO_MIN * baseRate;
  return { baseRate, boxDensity, log10P, log10Threshold, standsOut };
}

/**
 * Pixel budget of the tile analyzers. Above it they read a bounded sample of each 64×64 tile:
 * whole 8-row bands (so every vertical 8-pixel phase is still seen), spread evenly down the tile.
 * Every tile is still measured, so regions and their connectivity are kept; only the number of
 * rows per tile drops (a 12 MP photo: 3 bands, 24 of 64 rows, ~4.5 MP read).
 */
export const ANALYSIS_PIXEL_BUDGET = 4_000_000;

/** Row offsets (within a 64-row tile) the analyzers read, for a plane of `pixels` pixels. */
export function sampledRows(pixels: number, budget = ANALYSIS_PIXEL_BUDGET): Uint8Array {
  const bands = Math.min(8, Math.max(2, Math.ceil((8 * budget) / Math.max(1, pixels))));
  const rows: number[] = [];
  for (let k = 0; k < bands; k++) {
    const start = Math.floor((k * 8) / bands) * 8;
    for (let r = 0; r < 8; r++) rows.push(start + r);
  }
  return Uint8Array.from(rows);
}

export function median(values: ArrayLike<number>): number {
  // A typed array sorts numerically without a comparator call per comparison (same order for the
  // finite, non-negative-zero values the analyzers pass).
  const a = Float64Array.from(values).sort();
  if (!a.length) return 0;
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}
