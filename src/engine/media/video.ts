/**
 * MP4/MOV container metadata (ISO/IEC 14496-12 boxes, QuickTime user data), read without decoding
 * frames: frame size from the video track header, creation time from `mvhd`, camera make/model
 * and location from `udta` (©mak, ©mod, ©xyz) or Apple `mdta` keys. Plus C2PA (BMFF hash binding).
 */
import type { MediaMetadata } from '../../api/results.js';
import { boxes, type Box } from './bmff-boxes.js';
import { exifDate } from './metadata.js';

const child = (b: Buffer, parent: Box, type: string, skip = 0): Box | undefined => {
  for (const c of boxes(b, parent.body + skip, parent.end)) if (c.type === type) return c;
  return undefined;
};

export interface VideoMetadata {
  metadata: MediaMetadata;
  brand: string | null;
  durationS: number | null;
  software: string | null;
  /** Why the container is cut short (a box runs past the end of the file), or null. */
  truncated: string | null;
  hasMoov: boolean;
  /** `mvhd` creation and modification times (ISO 8601, UTC), when set (not 0). */
  createdAt: string | null;
  modifiedAt: string | null;
  /** Per track: handler type (`vide`, `soun`, …), `tkhd` times, and the edit list's entries. */
  tracks: TrackInfo[];
}

export interface TrackInfo {
  handler: string | null;
  createdAt: string | null;
  modifiedAt: string | null;
  /** `elst` entries as [segment duration, media time] (media time −1 = an empty edit); null without an edit list. */
  edits: Array<[number, number]> | null;
}

const isoTime = (secs: number): string | null => (secs > 0 ? new Date((secs - EPOCH_1904) * 1000).toISOString().replace(/\.000Z$/, 'Z') : null);

/** Version-dependent creation/modification times at the start of mvhd/tkhd/mdhd. */
function boxTimes(b: Buffer, box: Box): [number, number] {
  const v = b[box.body];
  if (v === 1 && box.end - box.body >= 20) return [Number(b.readBigUInt64BE(box.body + 4)), Number(b.readBigUInt64BE(box.body + 12))];
  if (box.end - box.body >= 12) return [b.readUInt32BE(box.body + 4), b.readUInt32BE(box.body + 8)];
  return [0, 0];
}

/** Edit list entries (ISO/IEC 14496-12 8.6.6), at most 64 read. */
function editList(b: Buffer, trak: Box): Array<[number, number]> | null {
  const edts = child(b, trak, 'edts');
  const elst = edts ? child(b, edts, 'elst') : undefined;
  if (!elst || elst.end - elst.body < 8) return null;
  const v = b[elst.body];
  const count = b.readUInt32BE(elst.body + 4);
  const size = v === 1 ? 20 : 12;
  const out: Array<[number, number]> = [];
  for (let i = 0, p = elst.body + 8; i < Math.min(count, 64) && p + size <= elst.end; i++, p += size)
    out.push(v === 1 ? [Number(b.readBigUInt64BE(p)), Number(b.readBigInt64BE(p + 8))] : [b.readUInt32BE(p), b.readInt32BE(p + 4)]);
  return out;
}

/**
 * Whether a top-level box declares more bytes than the file has: the file was cut short (a
 * download or copy interrupted). Boxes of size 0 run to the end of the file by definition.
 */
export function truncation(b: Buffer): string | null {
  let p = 0;
  while (p + 8 <= b.length) {
    let size = b.readUInt32BE(p);
    const type = b.toString('latin1', p + 4, p + 8);
    if (size === 1) {
      if (p + 16 > b.length) return `box '${type}' header cut at byte ${b.length}`;
      const big = b.readBigUInt64BE(p + 8);
      if (big > BigInt(b.length - p)) return `box '${type}' declares ${big} bytes, ${b.length - p} present`;
      size = Number(big);
    } else if (size === 0) return null;
    if (size < 8) return `box '${type}' has an impossible size ${size}`;
    if (p + size > b.length) return `box '${type}' declares ${size} bytes, ${b.length - p} present`;
    p += size;
  }
  return p < b.length ? `${b.length - p} stray bytes after the last box` : null;
}

/** 1904-01-01 epoch of QuickTime/ISO times, in seconds before 1970. */
const EPOCH_1904 = 2082844800;

const exifStyle = (d: Date): string => d.toISOString().replace(/^(\d{4})-(\d\d)-(\d\d)T(\d\d:\d\d:\d\d).*$/, '$1:$2:$3 $4');

/** ISO 6709 "+43.4674+011.8851+120.5/" → {lat, lon, alt}. */
export function parseIso6709(s: string): MediaMetadata['exif']['gps'] {
  const m = /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)?/.exec(s.trim());
  if (!m) return null;
  const lat = Number(m[1]);
  const lon = Number(m[2]);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon, alt: m[3] !== undefined ? Number(m[3]) : null };
}

/** Reads a QuickTime user-data string (©xxx: 2-byte length, 2-byte language, text). */
function udtaString(b: Buffer, box: Box): string | null {
  if (box.end - box.body < 4) return null;
  const len = b.readUInt16BE(box.body);
  const text = b.toString('utf8', box.body + 4, Math.min(box.end, box.body + 4 + len)).replace(/\0+$/, '').trim();
  return text || null;
}

export function readVideoMetadata(b: Buffer, format: string): VideoMetadata {
  const out: VideoMetadata = {
    metadata: { width: 0, height: 0, format, exif: { make: null, model: null, datetime_original: null, gps: null } },
    brand: null,
    durationS: null,
    software: null,
    truncated: truncation(b),
    hasMoov: false,
    createdAt: null,
    modifiedAt: null,
    tracks: [],
  };
  const top = [...boxes(b, 0, b.length)];
  const ftyp = top.find((x) => x.type === 'ftyp');
  if (ftyp && ftyp.end - ftyp.body >= 4) out.brand = b.toString('latin1', ftyp.body, ftyp.body + 4).trim();
  const moov = top.find((x) => x.type === 'moov');
  if (!moov) return out;
  out.hasMoov = true;
  const mvhd = child(b, moov, 'mvhd');
  if (mvhd && mvhd.end - mvhd.body >= 24) {
    const v = b[mvhd.body]!;
    const created = v === 1 ? Number(b.readBigUInt64BE(mvhd.body + 4)) : b.readUInt32BE(mvhd.body + 4);
    const timescale = b.readUInt32BE(mvhd.body + (v === 1 ? 20 : 12));
    const duration = v === 1 ? Number(b.readBigUInt64BE(mvhd.body + 24)) : b.readUInt32BE(mvhd.body + 16);
    if (created > 0) out.metadata.exif.datetime_original = exifStyle(new Date((created - EPOCH_1904) * 1000));
    const [c, m] = boxTimes(b, mvhd);
    out.createdAt = isoTime(c);
    out.modifiedAt = isoTime(m);
    if (timescale > 0) out.durationS = Math.round((duration / timescale) * 1000) / 1000;
  }
  for (const trak of boxes(b, moov.body, moov.end)) {
    if (trak.type !== 'trak') continue;
    const tkhd = child(b, trak, 'tkhd');
    if (!tkhd) continue;
    const mdia = child(b, trak, 'mdia');
    const hdlr = mdia ? child(b, mdia, 'hdlr') : undefined;
    const [tc, tm] = boxTimes(b, tkhd);
    out.tracks.push({
      handler: hdlr && hdlr.end - hdlr.body >= 12 ? b.toString('latin1', hdlr.body + 8, hdlr.body + 12) : null,
      createdAt: isoTime(tc),
      modifiedAt: isoTime(tm),
      edits: editList(b, trak),
    });
    const v = b[tkhd.body]!;
    const off = tkhd.body + (v === 1 ? 88 : 76);
    if (off + 8 > tkhd.end) continue;
    const w = b.readUInt32BE(off) / 65536;
    const h = b.readUInt32BE(off + 4) / 65536;
    if (w > 0 && h > 0 && !out.metadata.width) {
      out.metadata.width = Math.round(w);
      out.metadata.height = Math.round(h);
    }
  }
  const udta = child(b, moov, 'udta');
  if (udta)
    for (const u of boxes(b, udta.body, udta.end)) {
      const key = u.type;
      if (key === '\u00a9mak') out.metadata.exif.make ??= udtaString(b, u);
      else if (key === '\u00a9mod') out.metadata.exif.model ??= udtaString(b, u);
      else if (key === '\u00a9swr' || key === '\u00a9too') out.software ??= udtaString(b, u);
      else if (key === '\u00a9xyz') {
        const s = udtaString(b, u);
        if (s) out.metadata.exif.gps ??= parseIso6709(s);
      }
    }
  readAppleKeys(b, moov, out);
  return out;
}

/** Apple `meta` with `keys` (mdta names) and `ilst` (values by 1-based key index). */
function readAppleKeys(b: Buffer, moov: Box, out: VideoMetadata): void {
  const meta = child(b, moov, 'meta');
  if (!meta) return;
  // QuickTime `meta` has no version/flags; ISO `meta` does. Try both.
  for (const skip of [0, 4]) {
    const keys = child(b, meta, 'keys', skip);
    const ilst = child(b, meta, 'ilst', skip);
    if (!keys || !ilst) continue;
    const names: string[] = [];
    for (const k of boxes(b, keys.body + 8, keys.end)) names.push(b.toString('utf8', k.body, k.end));
    for (const item of boxes(b, ilst.body, ilst.end)) {
      const idx = b.readUInt32BE(item.start + 4);
      const name = names[idx - 1];
      const data = child(b, item, 'data');
      if (!name || !data || data.end - data.body < 8) continue;
      const value = b.toString('utf8', data.body + 8, data.end).replace(/\0+$/, '').trim();
      if (!value) continue;
      if (name === 'com.apple.quicktime.make') out.metadata.exif.make ??= value;
      else if (name === 'com.apple.quicktime.model') out.metadata.exif.model ??= value;
      else if (name === 'com.apple.quicktime.software') out.software ??= value;
      else if (name === 'com.apple.quicktime.creationdate') out.metadata.exif.datetime_original = exifDate(value);
      else if (name === 'com.apple.quicktime.location.ISO6709') out.metadata.exif.gps ??= parseIso6709(value);
    }
    return;
  }
}
