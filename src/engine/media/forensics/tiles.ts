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
  const seen = new Uint8Array(marked.length);
  let best = 0;
  const stack: number[] = [];
  for (let i = 0; i < marked.length; i++) {
    if (!marked[i] || seen[i]) continue;
    let size = 0;
    stack.push(i);
    seen[i] = 1;
    while (stack.length) {
      const t = stack.pop()!;
      size++;
      const c = t % grid.cols;
      const r = (t - c) / grid.cols;
      const next = [c > 0 ? t - 1 : -1, c < grid.cols - 1 ? t + 1 : -1, r > 0 ? t - grid.cols : -1, r < grid.rows - 1 ? t + grid.cols : -1];
      for (const n of next)
        if (n >= 0 && marked[n] && !seen[n]) {
          seen[n] = 1;
          stack.push(n);
        }
    }
    best = Math.max(best, size);
  }
  return best;
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
  const a = Array.from(values).sort((x, y) => x - y);
  if (!a.length) return 0;
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}
