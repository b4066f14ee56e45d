/**
 * The one pass over the decoded luma that the two tile analyzers share (jpeg-grid.ts, noise.ts).
 * Both read the same sampled rows (tiles.ts sampledRows) of every 64×64 tile at full resolution,
 * and at each pixel both look at the same 3×3 neighbourhood: the block-grid test needs the right
 * and lower neighbour differences by 8-pixel phase, the noise test Immerkær's Laplacian and the
 * tile's brightness. Reading the plane once and keeping the running sums in locals (flushed once
 * per tile row segment) instead of in per-pixel array updates is what makes the pair cheap.
 *
 * Every sum here is a sum of small integers held in float64: exact in any order, so the per-tile
 * totals are bit-identical to a per-analyzer loop over the same pixels.
 */
import { WASM_BASE64 } from './luma-pass-wasm.js';
import { sampledRows, TILE, tileGrid } from './tiles.js';
import { strideOf, type LumaPlane } from './types.js';

/** Neighbour differences above this are scene edges, not compression seams (jpeg-grid.ts). */
export const GRID_EDGE = 24;
/** Gradient sum above which a pixel is an edge and left out of the noise estimate (noise.ts). */
export const NOISE_EDGE = 48;

export interface LumaTileSums {
  cols: number;
  rows: number;
  /** Per tile × 8 phases: sum of |I(x+1,y) − I(x,y)| < GRID_EDGE by x mod 8. */
  gridH: Float64Array;
  /** Per tile × 8 phases: sum of |I(x,y+1) − I(x,y)| < GRID_EDGE by y mod 8. */
  gridV: Float64Array;
  /** Per tile: Σ|Laplacian| over non-edge pixels, and how many there were. */
  noiseSum: Float64Array;
  noiseCount: Float64Array;
  /** Per tile: brightness sum and pixel count over the pixels the noise test visited. */
  bright: Float64Array;
  seen: Float64Array;
}

/**
 * Look-up tables instead of branches: on noisy pixels `if (d < GRID_EDGE)` is a coin toss for the
 * branch predictor, and the mispredictions cost more than the arithmetic.
 * GRID_KEEP[d] = d below GRID_EDGE, else 0; NOISE_KEEP[gx + gy] = 1 when not an edge, else 0.
 */
const GRID_KEEP = new Float64Array(256);
for (let d = 0; d < 256; d++) GRID_KEEP[d] = d < GRID_EDGE ? d : 0;
const NOISE_KEEP = new Float64Array(512);
for (let g = 0; g < 512; g++) NOISE_KEEP[g] = g <= NOISE_EDGE ? 1 : 0;

/**
 * Sums of one row segment of one tile: ACC[0..7] horizontal grid differences by x mod 8, then the
 * vertical grid sum, Σ|Laplacian|, the non-edge count and the brightness sum. The per-pixel loops
 * live in these two small functions (not inline in lumaTileSums) so V8 optimises them as whole
 * functions after a few calls: an inner loop optimised on its own (on-stack replacement) before the
 * code after it had ever run was thrown away on leaving it, twice per process, which made the first
 * (and in a CLI process, only) pass several times slower than the next ones.
 */
const ACC = new Float64Array(12);
const V_SUM = 8;
const N_SUM = 9;
const N_COUNT = 10;
const B_SUM = 11;

function gridSegment(data: Uint8Array, r1: number, stride: number, x: number, xb: number): void {
  const r2 = r1 + stride;
  let vSum = 0;
  for (; x < xb; x++) {
    const v = data[r1 + x]!;
    ACC[x & 7]! += GRID_KEEP[Math.abs(data[r1 + x + 1]! - v)]!;
    vSum += GRID_KEEP[Math.abs(data[r2 + x]! - v)]!;
  }
  ACC[V_SUM]! += vSum;
}

function fusedSegment(data: Uint8Array, r1: number, stride: number, x: number, xb: number): void {
  const r0 = r1 - stride;
  const r2 = r1 + stride;
  let vSum = 0;
  let nSum = 0;
  let nCount = 0;
  let bSum = 0;
  // 3×3 window sliding along the row: left and centre columns kept in locals.
  let a0 = data[r0 + x - 1]!, a1 = data[r0 + x]!;
  let b0 = data[r1 + x - 1]!, b1 = data[r1 + x]!;
  let c0 = data[r2 + x - 1]!, c1 = data[r2 + x]!;
  for (; x < xb; x++) {
    const a2 = data[r0 + x + 1]!;
    const b2 = data[r1 + x + 1]!;
    const c2 = data[r2 + x + 1]!;
    ACC[x & 7]! += GRID_KEEP[Math.abs(b2 - b1)]!;
    vSum += GRID_KEEP[Math.abs(c1 - b1)]!;
    bSum += b1;
    // Immerkær's Laplacian, counted only off edges (keep = 0 or 1: the sums stay exact).
    const keep = NOISE_KEEP[Math.abs(b2 - b0) + Math.abs(c1 - a1)]!;
    nSum += keep * Math.abs(a0 - 2 * a1 + a2 - 2 * b0 + 4 * b1 - 2 * b2 + c0 - 2 * c1 + c2);
    nCount += keep;
    a0 = a1; a1 = a2;
    b0 = b1; b1 = b2;
    c0 = c1; c1 = c2;
  }
  ACC[V_SUM]! += vSum;
  ACC[N_SUM]! += nSum;
  ACC[N_COUNT]! += nCount;
  ACC[B_SUM]! += bSum;
}

/**
 * One sampled row y across every tile of tile row ty: each tile's row segment through the two
 * per-pixel functions, then its sums into the per-tile totals. A function of its own for the same
 * reason as the per-pixel ones: called once per sampled row (~1,100 times for 12 MP), it is
 * optimised whole after a few calls, where the same loop inline in lumaTileSums ran ~68,000 tile
 * segments through the interpreter until on-stack replacement caught up.
 */
function tileRowSums(data: Uint8Array, stride: number, y: number, ty: number, cols: number, xEnd: number, s: LumaTileSums): void {
  const vPhase = y & 7;
  for (let tc = 0; tc < cols; tc++) {
    const xa = tc * TILE;
    const xb = Math.min(xa + TILE, xEnd);
    if (xa >= xb) break;
    const t = ty * cols + tc;
    ACC.fill(0);
    // Grid only where the noise window has no upper row (y = 0) or left column (x = 0).
    const x = y === 0 ? xb : xa === 0 ? 1 : xa;
    if (x > xa) gridSegment(data, y * stride, stride, xa, x);
    if (x < xb) fusedSegment(data, y * stride, stride, x, xb);
    const g = t * 8;
    for (let k = 0; k < 8; k++) s.gridH[g + k]! += ACC[k]!;
    s.gridV[g + vPhase]! += ACC[V_SUM]!;
    s.noiseSum[t]! += ACC[N_SUM]!;
    s.noiseCount[t]! += ACC[N_COUNT]!;
    s.bright[t]! += ACC[B_SUM]!;
    s.seen[t]! += x < xb ? xb - x : 0;
  }
}

/** Zeroed per-tile sums in ordinary arrays, for the JavaScript pass. */
function emptyTileSumsJs(plane: LumaPlane): LumaTileSums {
  const { cols, rows } = tileGrid(plane.width, plane.height);
  const n = cols * rows;
  return {
    cols,
    rows,
    gridH: new Float64Array(n * 8),
    gridV: new Float64Array(n * 8),
    noiseSum: new Float64Array(n),
    noiseCount: new Float64Array(n),
    bright: new Float64Array(n),
    seen: new Float64Array(n),
  };
}

/**
 * The JavaScript pass: the sums of tile rows ty0 ≤ ty < ty1 (each tile's rows all lie in its tile
 * row, so a caller may fill the tile rows in any number of steps and get the same sums). Grid
 * test: rows y < yEnd, columns 0 ≤ x < xEnd (xEnd, yEnd stop one short of the plane's edge so the
 * right/lower neighbour exists). Noise test: the same rows and columns without row 0 and column 0
 * (its 3×3 window needs the upper and left neighbour too). The reference for luma-pass.wat, and
 * what runs where WebAssembly cannot.
 */
export function addTileRowsJs(plane: LumaPlane, sums: LumaTileSums, ty0: number, ty1: number): void {
  const { data, width, height } = plane;
  const stride = strideOf(plane);
  const { cols, rows } = sums;
  const xEnd = Math.min(cols * TILE, width - 1);
  const yEnd = Math.min(rows * TILE, height - 1);
  const sample = sampledRows(width * height);
  for (let ty = ty0; ty < ty1; ty++)
    for (let s = 0; s < sample.length; s++) {
      const y = ty * TILE + sample[s]!;
      if (y < yEnd) tileRowSums(data, stride, y, ty, cols, xEnd, sums);
    }
}

/**
 * The same pass compiled from luma-pass.wat (luma-pass-wasm.ts): identical sums. A one-shot CLI
 * process runs the pass once, and most of the JavaScript pass's time there went to V8 running the
 * loops in its interpreter and compiling them (about twice their cost in a warm process);
 * WebAssembly is compiled, in well under a millisecond, before its first call.
 */
let wasmModule: WebAssembly.Module | null | undefined;
function passModule(): WebAssembly.Module | null {
  if (wasmModule === undefined) {
    try {
      wasmModule = new WebAssembly.Module(Buffer.from(WASM_BASE64, 'base64'));
    } catch {
      wasmModule = null; // no WebAssembly here: the JavaScript pass
    }
  }
  return wasmModule;
}

/** The WebAssembly pass bound to one plane, its sums living in the instance's memory. */
interface WasmPass {
  plane: LumaPlane;
  run(ty0: number, ty1: number): void;
  peaks(axis: 'h' | 'v', exclude: number): TilePeaks;
  totals(axis: 'h' | 'v'): Float64Array;
}

/** Per tile: the strongest grid phase other than an excluded one, and its ratio (jpeg-grid.ts peak). */
export interface TilePeaks {
  phase: Int32Array;
  ratio: Float64Array;
}
const wasmPasses = new WeakMap<LumaTileSums, WasmPass>();

/**
 * Memory layout of luma-pass.wat: scratch at 0, the sampled row offsets at 64, the f64 sums from
 * 128, then the rows of the plane one run of sampled rows reads (a band of 8 rows for a 12 MP
 * photo, with the row above and below): the pass copies those in, run by run, rather than the
 * whole plane, of which it reads under half.
 */
const SAMPLE_AT = 64;
const SUMS_AT = 128;

/** Consecutive sampled row offsets, as [first index, count]. */
function runsOf(sample: Uint8Array): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i < sample.length; i++) {
    const last = runs[runs.length - 1];
    if (last && sample[i] === sample[last[0] + last[1] - 1]! + 1) last[1]++;
    else runs.push([i, 1]);
  }
  return runs;
}

function emptyTileSumsWasm(plane: LumaPlane, mod: WebAssembly.Module): LumaTileSums | null {
  const { data, width, height } = plane;
  const stride = strideOf(plane);
  const { cols, rows } = tileGrid(width, height);
  const n = cols * rows;
  const sample = sampledRows(width * height);
  const runs = runsOf(sample);
  const gh = SUMS_AT;
  const gv = gh + n * 64;
  const ns = gv + n * 64;
  const nc = ns + n * 8;
  const br = nc + n * 8;
  const seen = br + n * 8;
  const band = seen + n * 8;
  // After the band: per-tile peaks of each axis (jpeg-grid.ts), 8 f64 of sorting room, 8 totals.
  const peaksAt = Math.ceil((band + (Math.max(...runs.map((r) => r[1])) + 2) * width) / 8) * 8;
  const peakBytes = n * 8 + Math.ceil((n * 4) / 8) * 8;
  const restAt = peaksAt + 2 * peakBytes;
  const totalsAt = restAt + 64;
  const end = totalsAt + 64;
  if (sample.length > SUMS_AT - SAMPLE_AT || end > 2 ** 30) return null;
  let exports: {
    memory: WebAssembly.Memory;
    addTileRows: (...a: number[]) => void;
    tilePeaks: (a: number, n: number, exclude: number, phase: number, ratio: number, rest: number) => void;
    phaseTotals: (a: number, n: number, out: number) => void;
  };
  try {
    exports = new WebAssembly.Instance(mod).exports as typeof exports;
    const pages = Math.ceil(end / 65536) - exports.memory.buffer.byteLength / 65536;
    if (pages > 0) exports.memory.grow(pages);
  } catch {
    // No address space for a wasm memory (V8 reserves ~10 GB each; `ulimit -v` can refuse it) or
    // for its growth: the JavaScript pass gives the identical sums.
    return null;
  }
  const memory = exports.memory;
  const heap = new Uint8Array(memory.buffer);
  heap.set(sample, SAMPLE_AT);
  const sums: LumaTileSums = {
    cols,
    rows,
    gridH: new Float64Array(memory.buffer, gh, n * 8),
    gridV: new Float64Array(memory.buffer, gv, n * 8),
    noiseSum: new Float64Array(memory.buffer, ns, n),
    noiseCount: new Float64Array(memory.buffer, nc, n),
    bright: new Float64Array(memory.buffer, br, n),
    seen: new Float64Array(memory.buffer, seen, n),
  };
  const xEnd = Math.min(cols * TILE, width - 1);
  const yEnd = Math.min(rows * TILE, height - 1);
  wasmPasses.set(sums, {
    plane,
    run(ty0, ty1) {
      for (let ty = ty0; ty < ty1; ty++)
        for (const [first, count] of runs) {
          // Rows y − 1 … y + 1 of the run's rows y (within the plane), copied to `band`; the pass
          // addresses row r at base + r × width.
          const lo = Math.max(0, ty * TILE + sample[first]! - 1);
          const hi = Math.min(height - 1, ty * TILE + sample[first + count - 1]! + 1);
          if (lo >= yEnd) continue;
          if (stride === width) heap.set(data.subarray(lo * width, (hi + 1) * width), band);
          else for (let r = lo; r <= hi; r++) heap.set(data.subarray(r * stride, r * stride + width), band + (r - lo) * width);
          exports.addTileRows(band - lo * width, width, cols, xEnd, yEnd, ty, ty + 1, SAMPLE_AT + first, count, gh, gv, ns, nc, br, seen);
        }
    },
    peaks(axis, exclude) {
      const at = peaksAt + (axis === 'h' ? 0 : peakBytes);
      const ratioAt = at + Math.ceil((n * 4) / 8) * 8;
      exports.tilePeaks(axis === 'h' ? gh : gv, n, exclude, at, ratioAt, restAt);
      return { phase: new Int32Array(memory.buffer, at, n), ratio: new Float64Array(memory.buffer, ratioAt, n) };
    },
    totals(axis) {
      exports.phaseTotals(axis === 'h' ? gh : gv, n, totalsAt);
      return new Float64Array(memory.buffer, totalsAt, 8).slice();
    },
  });
  return sums;
}

/**
 * Zeroed per-tile sums for `plane`, filled by addTileRows: in a WebAssembly instance's memory
 * when WebAssembly is available, else ordinary arrays.
 */
export function emptyTileSums(plane: LumaPlane): LumaTileSums {
  const mod = passModule();
  return (mod && emptyTileSumsWasm(plane, mod)) ?? emptyTileSumsJs(plane);
}

/** The sums of tile rows ty0 ≤ ty < ty1 (see addTileRowsJs), by the pass `sums` was made for. */
export function addTileRows(plane: LumaPlane, sums: LumaTileSums, ty0: number, ty1: number): void {
  const wasm = wasmPasses.get(sums);
  if (wasm && wasm.plane === plane) wasm.run(ty0, ty1);
  else addTileRowsJs(plane, sums, ty0, ty1);
}

/**
 * The WebAssembly forms of jpeg-grid.ts's per-tile peaks and image-wide phase totals, for sums the
 * WebAssembly pass filled (null otherwise: gridStats then computes them in JavaScript). Same
 * comparisons and float64 operations in the same order: identical numbers, without the ~20 ms the
 * JavaScript loops over ~3,000 tiles cost the first (only) time a CLI process runs them.
 */
export function wasmGridPeaks(sums: LumaTileSums): Pick<WasmPass, 'peaks' | 'totals'> | null {
  return wasmPasses.get(sums) ?? null;
}

/** Whether `sums` are filled by the WebAssembly pass (for tests). */
export const byWebAssembly = (sums: LumaTileSums): boolean => wasmPasses.has(sums);

/** Every tile's sums by the JavaScript pass (the reference the WebAssembly one is tested against). */
export function lumaTileSumsJs(plane: LumaPlane): LumaTileSums {
  const sums = emptyTileSumsJs(plane);
  addTileRowsJs(plane, sums, 0, sums.rows);
  return sums;
}

/** Every tile's sums in one call. */
export function lumaTileSums(plane: LumaPlane): LumaTileSums {
  const sums = emptyTileSums(plane);
  addTileRows(plane, sums, 0, sums.rows);
  return sums;
}
