/**
 * The shared pass (forensics/luma-pass.ts) must give the block-grid and noise tests exactly the
 * per-tile sums a plain loop gives: each analyzer's own loop, written here the straightforward way
 * (one pixel at a time, with branches), is the reference. Planes of awkward sizes exercise the
 * first row/column, partial tiles, sampled rows (a large plane) and the image's right edge.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { addTileRows, byWebAssembly, emptyTileSums, GRID_EDGE, lumaTileSums, lumaTileSumsJs, NOISE_EDGE } from '../../../src/engine/media/forensics/luma-pass.js';
import { wasmModuleSource } from '../../../scripts/build-wasm.mjs';
import { gridStats } from '../../../src/engine/media/forensics/jpeg-grid.js';
import { noiseStats } from '../../../src/engine/media/forensics/noise.js';
import { spectrumPower } from '../../../src/engine/media/forensics/spectrum.js';
import { decodedRows } from '../../../src/engine/media/analyze-image.js';
import { contiguousPixels, cropView } from '../../../src/engine/media/decode.js';
import { sampledRows, TILE, tileGrid } from '../../../src/engine/media/forensics/tiles.js';
import type { LumaPlane } from '../../../src/engine/media/forensics/types.js';

function referenceSums(plane: LumaPlane) {
  const { data, width, height } = plane;
  const { cols, rows } = tileGrid(width, height);
  const n = cols * rows;
  const gridH = new Float64Array(n * 8);
  const gridV = new Float64Array(n * 8);
  const noiseSum = new Float64Array(n);
  const noiseCount = new Float64Array(n);
  const bright = new Float64Array(n);
  const seen = new Float64Array(n);
  const xEnd = Math.min(cols * TILE, width - 1);
  const yEnd = Math.min(rows * TILE, height - 1);
  const at = (x: number, y: number): number => data[y * width + x]!;
  for (let ty = 0; ty < rows; ty++)
    for (const r of sampledRows(width * height)) {
      const y = ty * TILE + r;
      if (y >= yEnd) continue;
      for (let x = 0; x < xEnd; x++) {
        const t = ty * cols + (x >> 6);
        const dh = Math.abs(at(x + 1, y) - at(x, y));
        if (dh < GRID_EDGE) gridH[t * 8 + (x & 7)]! += dh;
        const dv = Math.abs(at(x, y + 1) - at(x, y));
        if (dv < GRID_EDGE) gridV[t * 8 + (y & 7)]! += dv;
        if (x < 1 || y < 1) continue;
        bright[t]! += at(x, y);
        seen[t]! += 1;
        if (Math.abs(at(x + 1, y) - at(x - 1, y)) + Math.abs(at(x, y + 1) - at(x, y - 1)) <= NOISE_EDGE) {
          let v = 0;
          const M = [1, -2, 1, -2, 4, -2, 1, -2, 1];
          for (let j = -1; j <= 1; j++) for (let i = -1; i <= 1; i++) v += M[(j + 1) * 3 + i + 1]! * at(x + i, y + j);
          noiseSum[t]! += Math.abs(v);
          noiseCount[t]! += 1;
        }
      }
    }
  return { cols, rows, gridH, gridV, noiseSum, noiseCount, bright, seen };
}

/** Smooth gradient + noise + occasional spikes (edges) + a blocky region, deterministic. */
function plane(width: number, height: number, seed: number): LumaPlane {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const block = x > width / 3 && x < width / 2 && y > height / 3 ? ((x >> 3) + (y >> 3)) % 2 * 6 : 0;
      const spike = rnd() < 0.03 ? rnd() * 120 : 0;
      data[y * width + x] = Math.max(0, Math.min(255, Math.round(40 + (150 * x) / width + rnd() * 14 + block + spike)));
    }
  return { data, width, height, left: 0, top: 0 };
}

describe('shared luma pass', () => {
  it.each([
    [64, 64],
    [130, 67],
    [256, 192],
    [321, 259],
    [3000, 2000], // above the pixel budget: 6 of 8 bands per tile
  ])('equals a plain per-pixel loop on a %i×%i plane (the WebAssembly pass and the JavaScript one)', (w, h) => {
    const p = plane(w, h, w * 7 + h);
    const want = referenceSums(p);
    const got = lumaTileSums(p);
    expect(byWebAssembly(got)).toBe(true);
    for (const sums of [got, lumaTileSumsJs(p)]) {
      expect(byWebAssembly(sums)).toBe(sums === got);
      expect(sums.cols).toBe(want.cols);
      expect(sums.rows).toBe(want.rows);
      for (const k of ['gridH', 'gridV', 'noiseSum', 'noiseCount', 'bright', 'seen'] as const) expect(Array.from(sums[k])).toEqual(Array.from(want[k]));
    }
  });

  it('a 12 MP plane (3 of 8 bands per tile): the WebAssembly and JavaScript passes agree on every sum', () => {
    const p = plane(4000, 3000, 5);
    const wasm = lumaTileSums(p);
    const js = lumaTileSumsJs(p);
    for (const k of ['gridH', 'gridV', 'noiseSum', 'noiseCount', 'bright', 'seen'] as const) expect(Array.from(wasm[k])).toEqual(Array.from(js[k]));
    expect(wasm.noiseCount.reduce((a, b) => a + b, 0)).toBeGreaterThan(1_000_000);
  });

  it('the committed WebAssembly (luma-pass-wasm.ts) is the compiled form of luma-pass.wat', async () => {
    const root = new URL('../../../', import.meta.url);
    const committed = readFileSync(new URL('src/engine/media/forensics/luma-pass-wasm.ts', root), 'utf8');
    expect(await wasmModuleSource(fileURLToPath(new URL('src/engine/media/forensics/luma-pass.wat', root)))).toBe(committed);
  });

  it('filled a few tile rows at a time (as analyzeImage does, between event-loop turns), the sums are the same', () => {
    const p = plane(3000, 2000, 11);
    const whole = lumaTileSums(p);
    for (const step of [1, 4, 6, 100]) {
      const sums = emptyTileSums(p);
      for (let ty = 0; ty < sums.rows; ty += step) addTileRows(p, sums, ty, Math.min(sums.rows, ty + step));
      for (const k of ['gridH', 'gridV', 'noiseSum', 'noiseCount', 'bright', 'seen'] as const) expect(Array.from(sums[k])).toEqual(Array.from(whole[k]));
    }
  });

  it('the block-grid and noise statistics are identical from the WebAssembly sums (with its per-tile peaks) and from the JavaScript ones', () => {
    for (const [w, h, seed] of [[700, 520, 3], [1300, 900, 8], [4000, 3000, 5]] as const) {
      const p = plane(w, h, seed);
      // A pasted region with its own 8×8 block grid, shifted by (3, 5): tiles with a foreign phase.
      for (let y = h >> 2; y < h >> 1; y++)
        for (let x = w >> 2; x < w >> 1; x++) p.data[y * w + x] = Math.min(255, p.data[y * w + x]! + 9 * ((((x + 3) >> 3) + ((y + 5) >> 3)) % 2));
      const wasm = lumaTileSums(p);
      const js = lumaTileSumsJs(p);
      expect(byWebAssembly(wasm)).toBe(true);
      for (const aligned of [true, false]) {
        const a = gridStats(p, aligned, wasm);
        expect(a).toEqual(gridStats(p, aligned, js));
        expect(a.foreignTiles).toBeGreaterThan(0);
      }
      expect(noiseStats(p, wasm)).toEqual(noiseStats(p, js));
    }
  });

  it('a crop that is a view into a wider plane (decode.ts cropView) gives the sums, spectrum and decoded rows of the same crop copied out', () => {
    const big = plane(1100, 700, 21);
    const view = cropView(big, 40, 24, 1000, 640);
    const copy = { ...view, data: contiguousPixels(view), stride: undefined };
    expect(view.stride).toBe(1100);
    const viaView = lumaTileSums(view);
    const viaCopy = lumaTileSums(copy);
    expect(byWebAssembly(viaView)).toBe(true);
    for (const sums of [viaView, lumaTileSumsJs(view)])
      for (const k of ['gridH', 'gridV', 'noiseSum', 'noiseCount', 'bright', 'seen'] as const) expect(Array.from(sums[k])).toEqual(Array.from(viaCopy[k]));
    expect(noiseStats(view, viaView)).toEqual(noiseStats(copy, viaCopy));
    expect(Array.from(spectrumPower(view)!)).toEqual(Array.from(spectrumPower(copy)!));
    expect(Array.from(spectrumPower(view, true)!)).toEqual(Array.from(spectrumPower(copy)!));
    // A truncated decode's constant fill below row 300 is cut the same way from a view.
    for (let y = 24 + 300; y < 700; y++) big.data.fill(128, y * 1100, (y + 1) * 1100);
    const cut = decodedRows(view);
    expect(cut.height).toBe(decodedRows({ ...view, data: contiguousPixels(view), stride: undefined }).height);
    expect(cut.height).toBe(Math.floor(300 / 16) * 16 - 16);
    expect(Array.from(contiguousPixels(cut))).toEqual(Array.from(contiguousPixels(view).subarray(0, cut.height * 1000)));
  });

  it('the analyzers read the same numbers whether they share the pass or run it themselves', () => {
    const p = plane(700, 520, 3);
    const sums = lumaTileSums(p);
    expect(gridStats(p, true, sums)).toEqual(gridStats(p, true));
    expect(noiseStats(p, sums)).toEqual(noiseStats(p));
  });
});
