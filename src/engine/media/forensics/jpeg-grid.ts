/**
 * JPEG block-grid analysis (double compression over blocks). Every JPEG leaves faint
 * discontinuities on its 8×8 block boundaries. A region pasted from another JPEG keeps its own
 * grid, usually shifted against the host's, and a re-save cannot erase it; this follows the
 * block-artifact-grid method of Li, Yuan & Yu (2009, "Passive detection of doctored JPEG image via
 * block artifact grid extraction") and the non-aligned double-JPEG model of Bianchi & Piva (2012).
 *
 * Per 64×64 tile we sum horizontal and vertical neighbour differences by position modulo 8 (large
 * differences, i.e. real edges, are ignored). The image's own grid is the phase with the largest
 * total. A tile whose strongest other phase stands out on BOTH axes carries a foreign grid; a
 * connected group of such tiles sharing the same phase pair is reported as a likely splice.
 */
import { lumaTileSums, wasmGridPeaks, type LumaTileSums } from './luma-pass.js';
import { clusterPixelBox, clusterStandsOut, largestClusterBox, roundScore, type BaseRateTest, type PixelBox, type TileMap } from './tiles.js';
import type { LumaPlane, Signal } from './types.js';

/* Differences of GRID_EDGE (luma-pass.ts) or more are scene edges, not compression seams. */
/** A foreign phase must exceed its tile's background by this factor on each axis. */
const FOREIGN_RATIO = 1.3;

export interface GridStats {
  /** Phase (0..7) of the dominant grid, horizontal and vertical; 7 is the aligned JPEG grid. */
  phase: [number, number];
  /** Dominant phase total ÷ median of the other phases: ~1 means no block artifacts. */
  strength: [number, number];
  tiles: number;
  foreignTiles: number;
  cluster: number;
  clusterPhase: [number, number] | null;
  /** The cluster against the image's own foreign-tile rate (tiles.ts clusterStandsOut). */
  baseRate: BaseRateTest | null;
  /** The largest cluster's bounding box in original-image pixels. */
  region: PixelBox | null;
  /**
   * Per tile: how far its strongest foreign phase stands out, (min of the two axes' ratio − 1)
   * capped at 1 (0.3 = the FOREIGN_RATIO threshold); marked = the tiles of the modal phase pair.
   */
  map: TileMap;
}

/** Scratch for the per-tile medians below: ~3000 tiles × 2 axes would otherwise allocate and sort arrays. */
const rest = new Float64Array(8);

/** Median of rest[0..m), as tiles.ts median() computes it (sorted order; mean of the middle pair). */
function medianOfRest(m: number): number {
  for (let i = 1; i < m; i++) {
    const v = rest[i]!;
    let j = i - 1;
    for (; j >= 0 && rest[j]! > v; j--) rest[j + 1] = rest[j]!;
    rest[j + 1] = v;
  }
  if (!m) return 0;
  const h = m >> 1;
  return m % 2 ? rest[h]! : (rest[h - 1]! + rest[h]!) / 2;
}

function peak(a: Float64Array, off: number, exclude: number): { phase: number; ratio: number } {
  let p = -1;
  for (let k = 0; k < 8; k++) if (k !== exclude && (p < 0 || a[off + k]! > a[off + p]!)) p = k;
  let m = 0;
  for (let k = 0; k < 8; k++) if (k !== exclude && k !== p) rest[m++] = a[off + k]!;
  const base = medianOfRest(m);
  return { phase: p, ratio: base > 0 ? a[off + p]! / base : 1 };
}

/**
 * `aligned`: the file is a JPEG, whose own (last) compression grid always starts at the image
 * origin, i.e. phase 7 on both axes; otherwise the dominant phase is taken as the image's own.
 */
function peakAt(a: Float64Array, k: number): number {
  let m = 0;
  for (let j = 0; j < 8; j++) if (j !== k) rest[m++] = a[j]!;
  const base = medianOfRest(m);
  return base > 0 ? a[k]! / base : 1;
}

/** Per tile, the strongest phase other than `exclude` and its ratio: peak() for every tile. */
function tilePeaksJs(a: Float64Array, n: number, exclude: number): { phase: Int32Array; ratio: Float64Array } {
  const phase = new Int32Array(n);
  const ratio = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const p = peak(a, t * 8, exclude);
    phase[t] = p.phase;
    ratio[t] = p.ratio;
  }
  return { phase, ratio };
}

export function gridStats(plane: LumaPlane, aligned = false, sums: LumaTileSums = lumaTileSums(plane)): GridStats {
  const grid = { cols: sums.cols, rows: sums.rows };
  const n = grid.cols * grid.rows;
  const hs = sums.gridH;
  const vs = sums.gridV;
  // The WebAssembly pass's sums come with the same per-tile arithmetic compiled (luma-pass.ts).
  const wasm = wasmGridPeaks(sums);
  let gh: Float64Array;
  let gv: Float64Array;
  if (wasm) {
    gh = wasm.totals('h');
    gv = wasm.totals('v');
  } else {
    gh = new Float64Array(8);
    gv = new Float64Array(8);
    for (let t = 0; t < n; t++)
      for (let k = 0; k < 8; k++) {
        gh[k] = gh[k]! + hs[t * 8 + k]!;
        gv[k] = gv[k]! + vs[t * 8 + k]!;
      }
  }
  const H = aligned ? { phase: 7, ratio: peakAt(gh, 7) } : peak(gh, 0, -1);
  const V = aligned ? { phase: 7, ratio: peakAt(gv, 7) } : peak(gv, 0, -1);
  const hp = wasm ? wasm.peaks('h', H.phase) : tilePeaksJs(hs, n, H.phase);
  const vp = wasm ? wasm.peaks('v', V.phase) : tilePeaksJs(vs, n, V.phase);
  const marked = new Uint8Array(n);
  // Phase pairs as numbers h × 8 + v (not "h,v" strings: one allocation per foreign tile), counted
  // in a typed array; the modal pair is the most frequent, ties to the one seen first in tile order.
  const pairCount = new Int32Array(64);
  const pairFirst = new Int32Array(64).fill(n);
  const pairOf = new Int8Array(n).fill(-1);
  let foreign = 0;
  const scores: number[] = new Array(n);
  const hRatio = hp.ratio;
  const vRatio = vp.ratio;
  const hPhase = hp.phase;
  const vPhase = vp.phase;
  for (let t = 0; t < n; t++) {
    const hr = hRatio[t]!;
    const vr = vRatio[t]!;
    scores[t] = roundScore(Math.min(hr, vr) - 1);
    if (hr > FOREIGN_RATIO && vr > FOREIGN_RATIO) {
      foreign++;
      const key = hPhase[t]! * 8 + vPhase[t]!;
      pairOf[t] = key;
      const seen = pairCount[key]!;
      pairCount[key] = seen + 1;
      if (seen === 0) pairFirst[key] = t;
    }
  }
  let modal = -1;
  for (let k = 0; k < 64; k++)
    if (pairCount[k]! > 0 && (modal < 0 || pairCount[k]! > pairCount[modal]! || (pairCount[k] === pairCount[modal] && pairFirst[k]! < pairFirst[modal]!))) modal = k;
  const markedList: number[] = [];
  if (modal >= 0) for (let t = 0; t < n; t++) if (pairOf[t] === modal) {
    marked[t] = 1;
    markedList.push(t);
  }
  const box = modal >= 0 ? largestClusterBox(marked, grid) : null;
  const cluster = box?.size ?? 0;
  return {
    baseRate: box ? clusterStandsOut(box, n, foreign) : null,
    phase: [H.phase, V.phase],
    strength: [H.ratio, V.ratio],
    tiles: n,
    foreignTiles: foreign,
    cluster,
    clusterPhase: modal >= 0 ? [modal >> 3, modal & 7] : null,
    region: box ? clusterPixelBox(box, plane) : null,
    map: { scores, marked: markedList },
  };
}

export function jpegGridSignal(plane: LumaPlane, isJpeg: boolean, sums?: LumaTileSums): Signal {
  const s = gridStats(plane, isJpeg, sums);
  const signal = judgeGrid(s, isJpeg);
  signal.tileMap = s.map;
  return signal;
}

function judgeGrid(s: GridStats, isJpeg: boolean): Signal {
  const blocky = s.strength[0] > 1.08 && s.strength[1] > 1.08;
  const br = s.baseRate;
  const nums = `grid phase (${s.phase[0]},${s.phase[1]}), strength ${s.strength[0].toFixed(2)}/${s.strength[1].toFixed(2)}; ${s.foreignTiles} of ${s.tiles} tiles with a foreign grid, largest consistent cluster ${s.cluster}${br ? ` (box density ${br.boxDensity.toFixed(2)} vs the image's own rate ${br.baseRate.toFixed(3)}, binomial tail 10^${br.log10P.toFixed(1)}, threshold 10^${br.log10Threshold.toFixed(1)})` : ''}`;
  if (s.cluster >= 3 && s.cluster > s.tiles * 0.5) {
    return {
      analyzer: 'forensics.jpeg_grid',
      kind: 'manipulation',
      probability: 0.2,
      confidence: 0.5,
      group: 'reencoding',
      finding: `Most of the image carries a second JPEG block grid at phase (${s.clusterPhase![0]},${s.clusterPhase![1]}) besides its own: it was JPEG-compressed, cropped off the 8-pixel lattice and compressed again (${nums})`,
    };
  }
  if (s.cluster >= 3 && br?.standsOut) {
    const probability = Math.min(0.8, 0.35 + 0.05 * s.cluster);
    return {
      analyzer: 'forensics.jpeg_grid',
      kind: 'manipulation',
      probability,
      confidence: 0.6,
      finding: `A region of ${s.cluster} connected 64×64 tiles carries a second JPEG block grid at phase (${s.clusterPhase![0]},${s.clusterPhase![1]}), shifted against the image's own: typical of a region pasted from another JPEG (${nums})`,
      flag: 'image_manipulated',
      ...(s.region ? { region: s.region } : {}),
    };
  }
  if (s.cluster >= 3)
    return {
      analyzer: 'forensics.jpeg_grid',
      kind: 'manipulation',
      probability: 0,
      confidence: 0.4,
      finding: `Tiles with a foreign grid phase occur across the image at about the rate of the largest cluster: scene texture or processing (HDR, sharpening, noise reduction), not a pasted region (${nums})`,
    };
  const misaligned = blocky && (s.phase[0] !== 7 || s.phase[1] !== 7);
  if (misaligned)
    return {
      analyzer: 'forensics.jpeg_grid',
      kind: 'manipulation',
      probability: isJpeg ? 0.2 : 0.15,
      confidence: 0.5,
      group: 'reencoding',
      finding: `The whole image carries a JPEG block grid off the 8-pixel lattice: it was cropped or shifted after an earlier JPEG compression (${nums})`,
    };
  if (!isJpeg && blocky)
    return {
      analyzer: 'forensics.jpeg_grid',
      kind: 'manipulation',
      probability: 0.05,
      confidence: 0.4,
      group: 'reencoding',
      finding: `This non-JPEG file shows JPEG block artifacts: it was JPEG-compressed before being converted (${nums})`,
    };
  return {
    analyzer: 'forensics.jpeg_grid',
    kind: 'manipulation',
    probability: 0,
    confidence: blocky ? 0.5 : 0.25,
    finding: blocky
      ? `One consistent JPEG block grid, no region with a foreign grid (${nums})`
      : `Block artifacts too weak to test for a foreign grid (high quality or never JPEG-compressed; ${nums})`,
  };
}
