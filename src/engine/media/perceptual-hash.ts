/**
 * Perceptual hashes computed with sharp, for near-duplicate search in the known-media index:
 * - pHash (Zauner 2010, "Implementation and benchmarking of perceptual image hash functions"):
 *   32×32 grey, 2-D DCT-II, the 8×8 lowest frequencies without DC, each bit = coefficient > median.
 *   Survives resizing, recompression and small crops (a few Hamming bits).
 * - dHash (Krawetz 2013, "Kind of like that"): 9×8 grey, bit = pixel brighter than its right
 *   neighbour. Cheap; used to compare an EXIF thumbnail with its image.
 * Hashes are 64 bits written as 16 hex digits.
 */
import { coversWholeImage, lumaThumbnail, readHeader, type ImageHeader } from './decode.js';
import type { LumaPlane } from './forensics/types.js';

const N = 32;
/** cos((2x+1)uπ/2N) for the 8 lowest frequencies, computed once. */
const COS: Float64Array = (() => {
  const c = new Float64Array(8 * N);
  for (let u = 0; u < 8; u++) for (let x = 0; x < N; x++) c[u * N + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N));
  return c;
})();

const bitsToHex = (bits: boolean[]): string => {
  let hex = '';
  for (let i = 0; i < bits.length; i += 4)
    hex += ((bits[i] ? 8 : 0) | (bits[i + 1] ? 4 : 0) | (bits[i + 2] ? 2 : 0) | (bits[i + 3] ? 1 : 0)).toString(16);
  return hex;
};

/** pHash of 32×32 grey pixels. */
export function pHashOfPixels(px: Uint8Array): string {
  // Separable DCT: rows first (32×8), then columns (8×8).
  const rows = new Float64Array(N * 8);
  for (let y = 0; y < N; y++)
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let x = 0; x < N; x++) s += px[y * N + x]! * COS[u * N + x]!;
      rows[y * 8 + u] = s;
    }
  const coeffs: number[] = [];
  for (let v = 0; v < 8; v++)
    for (let u = 0; u < 8; u++) {
      let s = 0;
      for (let y = 0; y < N; y++) s += rows[y * 8 + u]! * COS[v * N + y]!;
      coeffs.push(s);
    }
  const ac = coeffs.slice(1);
  const median = [...ac].sort((a, b) => a - b)[Math.floor(ac.length / 2)]!;
  // 63 AC bits plus a leading zero keep the hash at 64 bits.
  return bitsToHex([false, ...ac.map((c) => c > median)]);
}

/** dHash of 9×8 grey pixels. */
export function dHashOfPixels(px: Uint8Array): string {
  const bits: boolean[] = [];
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) bits.push(px[y * 9 + x + 1]! > px[y * 9 + x]!);
  return bitsToHex(bits);
}

/**
 * Applies EXIF orientation (1–8) to a square n×n grid, so the hash is of what a viewer shows.
 * Resizing to a square ignores the aspect ratio, so resize-then-orient equals orient-then-resize.
 */
export function orientSquare(px: Uint8Array, n: number, orientation: number): Uint8Array {
  if (orientation <= 1 || orientation > 8) return px;
  const out = new Uint8Array(n * n);
  const m = n - 1;
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      const [sy, sx] =
        orientation === 2 ? [y, m - x]
          : orientation === 3 ? [m - y, m - x]
          : orientation === 4 ? [m - y, x]
          : orientation === 5 ? [x, y]
          : orientation === 6 ? [m - x, y]
          : orientation === 7 ? [m - x, m - y]
          : [x, m - y];
      out[y * n + x] = px[sy * n + sx]!;
    }
  return out;
}

/**
 * pHash of the image as displayed. Media verification passes the plane it already decoded (when
 * it covers the whole image); the known-media index passes only the file. Both resize the same
 * luma proxy, so hashes of one file agree within a bit or two.
 */
export async function pHash(bytes: Buffer, decoded?: { plane: LumaPlane; header: ImageHeader }): Promise<string> {
  const header = decoded?.header ?? (await readHeader(bytes));
  const source = decoded && coversWholeImage(decoded.plane, header) ? { plane: decoded.plane } : { bytes, header };
  return pHashOfPixels(orientSquare(await lumaThumbnail(source, N, N), N, header.orientation));
}

/** dHash in stored orientation (what an EXIF thumbnail was made from). */
export async function dHash(bytes: Buffer, decoded?: { plane: LumaPlane; header: ImageHeader }): Promise<string> {
  const header = decoded?.header ?? (await readHeader(bytes));
  const source = decoded && coversWholeImage(decoded.plane, header) ? { plane: decoded.plane } : { bytes, header };
  return dHashOfPixels(await lumaThumbnail(source, 9, 8));
}

const POP = Array.from({ length: 16 }, (_, i) => (i & 1) + ((i >> 1) & 1) + ((i >> 2) & 1) + ((i >> 3) & 1));

/** Hamming distance between two equal-length hex hashes. */
export function hamming(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) d += POP[parseInt(a[i]!, 16) ^ parseInt(b[i]!, 16)]!;
  return d + 4 * Math.abs(a.length - b.length);
}
