/**
 * Perceptual hashes computed with sharp, for near-duplicate search in the known-media index:
 * - pHash (Zauner 2010, "Implementation and benchmarking of perceptual image hash functions"):
 *   32×32 grey, 2-D DCT-II, the 8×8 lowest frequencies without DC, each bit = coefficient > median.
 *   Survives resizing, recompression and small crops (a few Hamming bits).
 * - dHash (Krawetz 2013, "Kind of like that"): 9×8 grey, bit = pixel brighter than its right
 *   neighbour. Cheap; used to compare an EXIF thumbnail with its image.
 * Hashes are 64 bits written as 16 hex digits.
 */
import { greyThumbnail } from './decode.js';

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

export async function pHash(bytes: Buffer): Promise<string> {
  return pHashOfPixels(await greyThumbnail(bytes, N, N));
}

export async function dHash(bytes: Buffer, orient = true): Promise<string> {
  return dHashOfPixels(await greyThumbnail(bytes, 9, 8, orient));
}

const POP = Array.from({ length: 16 }, (_, i) => (i & 1) + ((i >> 1) & 1) + ((i >> 2) & 1) + ((i >> 3) & 1));

/** Hamming distance between two equal-length hex hashes. */
export function hamming(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) d += POP[parseInt(a[i]!, 16) ^ parseInt(b[i]!, 16)]!;
  return d + 4 * Math.abs(a.length - b.length);
}
