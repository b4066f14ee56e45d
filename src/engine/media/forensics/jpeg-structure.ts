/**
 * JPEG marker walk: quantization tables (DQT), frame type (SOF), and which application segments
 * are present. Quality is estimated the IJG way (libjpeg's `jpeg_quality_scaling`): the standard
 * Annex K tables scaled by S = q < 50 ? 5000/q : 200 − 2q. An exact match means the file was last
 * written by an encoder using libjpeg's standard tables (GIMP, ImageMagick, PIL, libvips, many
 * web services); camera firmware and Photoshop use their own tables (Farid 2006, "Digital image
 * ballistics from JPEG quantization"; Kee, Johnson & Farid 2011).
 */

/** ITU T.81 Annex K.1 luminance and K.2 chrominance tables, natural (row-major) order. */
const STD_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
  18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100,
  103, 99,
];
const STD_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];
/** Zig-zag scan position → natural index (T.81 figure A.6). DQT stores tables in zig-zag order. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56,
  57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

export interface JpegStructure {
  /** Tables by id (0 = luminance, 1 = chrominance usually), natural order. */
  tables: Map<number, number[]>;
  progressive: boolean;
  /** APPn segment labels found, e.g. `APP1:Exif`, `APP13:Photoshop`, `APP11:JUMBF`. */
  segments: string[];
  comments: string[];
  /** Whether an EOI marker terminates the entropy-coded data (false → truncated file). */
  hasEoi: boolean;
}

export function parseJpeg(bytes: Uint8Array): JpegStructure | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const s: JpegStructure = { tables: new Map(), progressive: false, segments: [], comments: [], hasEoi: false };
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) {
      i++;
      continue;
    }
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd9) {
      s.hasEoi = true;
      break;
    }
    if (marker >= 0xd0 && marker <= 0xd7) {
      i += 2;
      continue;
    }
    const len = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    if (len < 2 || i + 2 + len > bytes.length) break;
    const seg = bytes.subarray(i + 4, i + 2 + len);
    if (marker === 0xdb) readDqt(seg, s.tables);
    else if (marker === 0xc2 || marker === 0xc6 || marker === 0xca || marker === 0xce) s.progressive = true;
    else if (marker === 0xfe) s.comments.push(Buffer.from(seg).toString('latin1').replace(/\0+$/, '').slice(0, 2000));
    else if (marker >= 0xe0 && marker <= 0xef) s.segments.push(`APP${marker - 0xe0}:${appLabel(seg)}`);
    if (marker === 0xda) {
      // Entropy-coded data follows; look for EOI at the very end (allowing trailing padding).
      const tail = bytes.subarray(Math.max(i, bytes.length - 4096));
      for (let k = tail.length - 2; k >= 0; k--)
        if (tail[k] === 0xff && tail[k + 1] === 0xd9) {
          s.hasEoi = true;
          break;
        }
      break;
    }
    i += 2 + len;
  }
  return s;
}

function appLabel(seg: Uint8Array): string {
  const head = Buffer.from(seg.subarray(0, 32)).toString('latin1');
  if (head.startsWith('Exif')) return 'Exif';
  if (head.startsWith('http://ns.adobe.com/xap/1.0/')) return 'XMP';
  if (head.startsWith('http://ns.adobe.com/xmp/extension/')) return 'XMP-extended';
  if (head.startsWith('Photoshop 3.0')) return 'Photoshop';
  if (head.startsWith('ICC_PROFILE')) return 'ICC';
  if (head.startsWith('JFIF')) return 'JFIF';
  if (head.startsWith('Adobe')) return 'Adobe';
  if (head.startsWith('Ducky')) return 'Ducky';
  if (head.startsWith('JP')) return 'JUMBF';
  if (head.startsWith('MPF')) return 'MPF';
  return head.replace(/[^\x20-\x7e]/g, '').slice(0, 12) || 'data';
}

function readDqt(seg: Uint8Array, out: Map<number, number[]>): void {
  let p = 0;
  while (p < seg.length) {
    const pq = seg[p]! >> 4;
    const tq = seg[p]! & 15;
    p++;
    const size = pq ? 128 : 64;
    if (p + size > seg.length) return;
    const t = new Array<number>(64).fill(0);
    for (let k = 0; k < 64; k++) {
      const v = pq ? (seg[p + 2 * k]! << 8) | seg[p + 2 * k + 1]! : seg[p + k]!;
      t[ZIGZAG[k]!] = v;
    }
    out.set(tq, t);
    p += size;
  }
}

const scaled = (base: number[], q: number): number[] => {
  const s = q < 50 ? Math.floor(5000 / q) : 200 - 2 * q;
  return base.map((b) => Math.min(255, Math.max(1, Math.floor((b * s + 50) / 100))));
};

export interface QualityEstimate {
  /** Best-fitting IJG quality 1..100. */
  quality: number;
  /** Mean absolute difference between the file's luminance table and the IJG table at `quality`. */
  meanError: number;
  /** True when luminance (and chrominance, if present) equal the IJG tables exactly. */
  standard: boolean;
}

/** Fits the IJG quality scale to the file's tables. */
export function estimateQuality(tables: Map<number, number[]>): QualityEstimate | null {
  const luma = tables.get(0);
  if (!luma) return null;
  const chroma = tables.get(1);
  let best: QualityEstimate = { quality: 50, meanError: Infinity, standard: false };
  for (let q = 1; q <= 100; q++) {
    const t = scaled(STD_LUMA, q);
    let err = 0;
    for (let k = 0; k < 64; k++) err += Math.abs(t[k]! - luma[k]!);
    err /= 64;
    if (err < best.meanError) {
      let standard = err === 0;
      if (standard && chroma) {
        const c = scaled(STD_CHROMA, q);
        standard = c.every((v, k) => v === chroma[k]);
      }
      best = { quality: q, meanError: err, standard };
    }
  }
  return best;
}
