/**
 * The additive picture data (docs/media.md "Tile maps and regions"): the pasted region's bounding
 * box in original-image pixels and per-tile scores of the grid and noise analyses.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MediaRequest } from '../../../src/api/requests.js';
import { MediaResult, type PixelRegion } from '../../../src/api/results.js';
import { verifyMedia } from '../../../src/engine/media/verify.js';
import { largestClusterBox } from '../../../src/engine/media/forensics/tiles.js';
import { cameraJpeg, makePorts, scene, splicedJpeg } from './helpers.js';

const W = 768;
const H = 512;
const verify = (bytes: Buffer) => verifyMedia(MediaRequest.parse({ file: bytes.toString('base64') }), makePorts(), {});

/** Overlap of two rectangles as a share of `b`'s area. */
function overlap(a: PixelRegion, b: PixelRegion): number {
  const w = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const h = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  return (w * h) / (b.width * b.height);
}

describe('media: regions and tile maps', () => {
  it('largestClusterBox: the largest 4-connected group (diagonals do not join), its box and the marked tiles in it; the first of equal groups wins', () => {
    // 6×4 grid:        . X X . . X
    //                  . X . . X X
    //                  X . . . . X
    //                  X X . X . .
    const grid = { cols: 6, rows: 4 };
    const marked = Uint8Array.from([0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0]);
    expect(largestClusterBox(marked, grid)).toEqual({ size: 4, boxTiles: 6, boxMarked: 4, c0: 4, c1: 5, r0: 0, r1: 2 });
    marked[17] = 0; // now three groups of three: the first found (top left) is kept
    expect(largestClusterBox(marked, grid)).toEqual({ size: 3, boxTiles: 4, boxMarked: 3, c0: 1, c1: 2, r0: 0, r1: 1 });
    expect(largestClusterBox(new Uint8Array(24), grid)).toEqual({ size: 0, boxTiles: 0, boxMarked: 0, c0: 0, c1: -1, r0: 0, r1: -1 });
  });

  it('the grid finding of a spliced JPEG names a box that lies on the pasted patch, and the tile map marks it', async () => {
    const { bytes, pasted } = await splicedJpeg();
    const r = await verify(bytes);
    expect(MediaResult.safeParse({ ...r, id: 'vrf_med_0123456789abcdef01234567', latency_ms: 1, credits_used: 1 }).success).toBe(true);
    const grid = r.evidence.find((e) => e.source === 'forensics.jpeg_grid')!;
    expect(grid.finding).toMatch(/second JPEG block grid/);
    const region = grid.region!;
    expect(region).toBeDefined();
    // Whole tiles inside the patch are what the analysis can see: the box lies mostly on the patch
    // and covers most of its interior tiles.
    expect(overlap(pasted, region)).toBeGreaterThan(0.7);
    expect(overlap(region, { x: 256, y: 192, width: 192, height: 128 })).toBeGreaterThan(0.6);
    const f = r.forensics!;
    expect(f).toMatchObject({ tile: 64, cols: 12, rows: 8, analysed: { x: 0, y: 0, width: W, height: H } });
    expect(f.jpeg_grid!.scores).toHaveLength(96);
    expect(f.noise!.scores).toHaveLength(96);
    // Marked tiles sit inside the pasted patch (tile 4,3 = pixels 256..320 × 192..256 is inside it).
    expect(f.jpeg_grid!.marked).toContain(3 * 12 + 4);
    const markedScores = f.jpeg_grid!.marked.map((i) => f.jpeg_grid!.scores[i]!);
    const others = f.jpeg_grid!.scores.filter((_, i) => !f.jpeg_grid!.marked.includes(i)) as number[];
    expect(Math.min(...markedScores)).toBeGreaterThan(0.3);
    expect(others.reduce((a, b) => a + b, 0) / others.length).toBeLessThan(0.3);
  }, 30_000);

  it('a clean photo has tile maps but no finding with a region', async () => {
    const r = await verify(await cameraJpeg(scene(W, H, 1), W, H));
    expect(r.evidence.some((e) => e.region)).toBe(false);
    expect(r.forensics!.jpeg_grid!.scores.every((s) => s === null || (s >= 0 && s <= 1))).toBe(true);
  }, 30_000);
});
