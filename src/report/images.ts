/**
 * The report's pictures, made with sharp and embedded as data: URIs: the photo downscaled (the
 * file must stay small: a 12 MP photo becomes ~1600 px wide, a few hundred KB), the per-tile heat
 * maps at one pixel per tile (the browser scales them up without smoothing), the EXIF thumbnail,
 * and the stand-alone heat-map PNG of `--heatmap`. Stored orientation throughout: the engine's
 * coordinates are in stored pixels (EXIF rotation not applied).
 */
import type { MediaForensics, MediaResult } from '../api/results.js';
import { findDecoder } from '../engine/media/ffmpeg.js';
import { frameThumbnails } from '../engine/media/video-frames.js';

type SharpFn = (typeof import('sharp'))['default'];
let sharpP: Promise<SharpFn> | undefined;
const loadSharp = (): Promise<SharpFn> => (sharpP ??= import('sharp').then((m) => m.default));

/** Longest side of the embedded photo. */
export const PHOTO_SIDE = 1600;
/** Longest side of the stand-alone heat map. */
export const HEATMAP_SIDE = 2048;
/** The same pixel limit the engine reads images with (100 MP). */
const MAX_INPUT_PIXELS = 100_000_000;

/** Viridis (perceptually uniform, readable with colour-vision deficiencies), 5 stops. */
const VIRIDIS: [number, number, number][] = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
export function viridis(t: number): [number, number, number] {
  const x = Math.max(0, Math.min(1, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const a = VIRIDIS[i]!;
  const b = VIRIDIS[i + 1]!;
  return [0, 1, 2].map((k) => Math.round(a[k]! + (b[k]! - a[k]!) * f)) as [number, number, number];
}
export const VIRIDIS_CSS = `linear-gradient(to right, ${VIRIDIS.map((c) => `rgb(${c.join(',')})`).join(', ')})`;

export interface Photo {
  uri: string;
  width: number;
  height: number;
  bytes: number;
}

/** The input image as a JPEG data URI no larger than PHOTO_SIDE; null when it cannot be decoded here (e.g. HEIC without a decoder). */
export async function photo(bytes: Buffer): Promise<Photo | null> {
  const sharp = await loadSharp();
  try {
    const out = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'none', page: 0, pages: 1 })
      .resize(PHOTO_SIDE, PHOTO_SIDE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 80, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    return { uri: `data:image/jpeg;base64,${out.data.toString('base64')}`, width: out.info.width, height: out.info.height, bytes: out.data.length };
  } catch {
    return null;
  }
}

/**
 * A saved result is untrusted input: tile maps are drawn only when their size is consistent and
 * bounded (the engine's grid is at most 64 × 64 tiles: 4096 px / 64), never allocating from a
 * forged cols × rows.
 */
export const MAX_TILES = 65_536;
export const drawableMap = (f: MediaForensics, map: { scores: unknown[] } | undefined): boolean =>
  !!map && f.cols > 0 && f.rows > 0 && f.cols * f.rows <= MAX_TILES && map.scores.length === f.cols * f.rows;

/** RGBA of one tile: viridis by score, more opaque for stronger and marked tiles; transparent when unmeasured or below 0.1. */
function tileColour(score: number | null | undefined, marked: boolean): [number, number, number, number] {
  if (score === null || score === undefined || (score < 0.1 && !marked)) return [0, 0, 0, 0];
  const [r, g, b] = viridis(score);
  return [r, g, b, Math.round(255 * (marked ? 0.9 : 0.15 + 0.45 * score))];
}

/** One tile map as a PNG data URI, one pixel per tile. */
export async function tileMapPng(f: MediaForensics, map: NonNullable<MediaForensics['jpeg_grid']>): Promise<string> {
  const sharp = await loadSharp();
  const n = f.cols * f.rows;
  const px = Buffer.alloc(n * 4);
  const marked = new Set(map.marked);
  for (let i = 0; i < n; i++) px.set(tileColour(map.scores[i], marked.has(i)), i * 4);
  const png = await sharp(px, { raw: { width: f.cols, height: f.rows, channels: 4 } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** The EXIF (IFD1) thumbnail as a data URI, or null. */
export async function exifThumbnail(bytes: Buffer): Promise<string | null> {
  try {
    const exifr = (await import('exifr')).default;
    const t = (await exifr.thumbnail(bytes)) as Uint8Array | undefined;
    if (!t || t.length < 100) return null;
    const sharp = await loadSharp();
    const jpeg = await sharp(Buffer.from(t), { failOn: 'none' }).resize(320, 320, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
    return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  } catch {
    return null;
  }
}

/**
 * `--heatmap FILE.png`: the overlay alone, at the image's aspect (longest side ≤ HEATMAP_SIDE),
 * transparent where nothing was found: each tile coloured by the stronger of its grid and noise
 * scores (viridis), and every region a finding names outlined in vermillion.
 */
export async function heatmapPng(result: MediaResult): Promise<Buffer> {
  const sharp = await loadSharp();
  const W = result.metadata.width || result.forensics?.analysed.width || 1;
  const H = result.metadata.height || result.forensics?.analysed.height || 1;
  const scale = Math.min(1, HEATMAP_SIDE / Math.max(W, H));
  const w = Math.max(1, Math.round(W * scale));
  const h = Math.max(1, Math.round(H * scale));
  const layers: { input: Buffer; left: number; top: number }[] = [];
  const f = result.forensics;
  if (f && (drawableMap(f, f.jpeg_grid) || drawableMap(f, f.noise))) {
    const n = f.cols * f.rows;
    const px = Buffer.alloc(n * 4);
    const grid = drawableMap(f, f.jpeg_grid) ? f.jpeg_grid : undefined;
    const noise = drawableMap(f, f.noise) ? f.noise : undefined;
    const marked = new Set([...(grid?.marked ?? []), ...(noise?.marked ?? [])]);
    for (let i = 0; i < n; i++) {
      const s = Math.max(grid?.scores[i] ?? -1, noise?.scores[i] ?? -1);
      px.set(tileColour(s < 0 ? null : s, marked.has(i)), i * 4);
    }
    const tw = Math.max(1, Math.round(f.cols * f.tile * scale));
    const th = Math.max(1, Math.round(f.rows * f.tile * scale));
    const tiles = await sharp(px, { raw: { width: f.cols, height: f.rows, channels: 4 } }).resize(tw, th, { kernel: 'nearest' }).png().toBuffer();
    const left = Math.round(f.analysed.x * scale);
    const top = Math.round(f.analysed.y * scale);
    if (left < w && top < h) layers.push({ input: await sharp(tiles).extract({ left: 0, top: 0, width: Math.min(tw, w - left), height: Math.min(th, h - top) }).toBuffer(), left, top });
  }
  const boxes = result.evidence.filter((e) => e.region).map((e) => e.region!);
  if (boxes.length) {
    const sw = Math.max(2, Math.round(Math.max(w, h) / 300));
    const rects = boxes
      .map((b) => `<rect x="${Math.round(b.x * scale)}" y="${Math.round(b.y * scale)}" width="${Math.max(1, Math.round(b.width * scale))}" height="${Math.max(1, Math.round(b.height * scale))}" fill="none" stroke="#D55E00" stroke-width="${sw}" stroke-dasharray="${sw * 3},${sw * 2}"/>`)
      .join('');
    layers.push({ input: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${rects}</svg>`), left: 0, top: 0 });
  }
  return sharp({ create: { width: w, height: h, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).composite(layers).png().toBuffer();
}

/**
 * The sampled frames of a video as small JPEG data URIs, by frame index, for the report's frame
 * strip: decoded again from the input file with ffmpeg from PATH (none → null: the strip then
 * shows the scores without pictures).
 */
export async function frameStripImages(input: Buffer, indices: number[]): Promise<Map<number, string> | null> {
  const decoder = findDecoder({});
  if (!decoder) return null;
  const got = await frameThumbnails(input, decoder, indices, { timeoutMs: 20_000 });
  if (!got) return null;
  const sharp = await loadSharp();
  const out = new Map<number, string>();
  for (const [i, rgb] of got.frames) {
    const jpg = await sharp(rgb, { raw: { width: got.width, height: got.height, channels: 3 } }).jpeg({ quality: 70 }).toBuffer();
    out.set(i, `data:image/jpeg;base64,${jpg.toString('base64')}`);
  }
  return out;
}
