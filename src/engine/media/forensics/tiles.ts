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

export function median(values: ArrayLike<number>): number {
  const a = Array.from(values).sort((x, y) => x - y);
  if (!a.length) return 0;
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}
