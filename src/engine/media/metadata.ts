/**
 * Embedded metadata of an image: EXIF (make, model, capture time with its offset, GPS, Software)
 * and XMP/IPTC (DigitalSourceType, CreatorTool, edit history), read with exifr, and PNG text chunks
 * (tEXt, zTXt, iTXt: exifr reads tEXt only) read by png-text.ts.
 * Values are read as exiftool reads them (docs/media.md "Metadata as exiftool reads it"):
 * - strings end at the first NUL (EXIF ASCII fields are NUL-terminated; bytes after it are padding
 *   or garbage, e.g. a Model of `ION230\0F` reads `ION230`);
 * - every date is in ONE form, EXIF's `YYYY:MM:DD HH:MM:SS` (exiftool's default print form), with
 *   sub-seconds and the zone kept when the source has them: EXIF dates as written (`+02:00`
 *   appended from OffsetTimeOriginal), XMP / ISO 8601 dates (`2008-05-30T15:56:01+02:00`)
 *   rewritten to `2008:05:30 15:56:01+02:00`, as exiftool prints XMP dates;
 * - CIFF (old Canon RAW) and maker-note fields are not read: a documented gap.
 */
import { ciffMakeModel } from './ciff.js';
import { createRequire } from 'node:module';
import type { MediaMetadata } from '../../api/results.js';
import { loadCachedExifr } from './cached-modules.js';
import { type PngText, readPngText } from './png-text.js';
import type { StealthInfo } from './stealth-pnginfo.js';

type Exifr = (typeof import('exifr'))['default'];
let exifrModule: Exifr | undefined;
/**
 * exifr through `require`: the package ships only a UMD (CommonJS) entry, which `import()` runs
 * through Node's CommonJS lexer first (~50 ms per process); `require` returns the same exports.
 * With a code-cache folder (the first call's counts), the same file runs through a V8 code cache
 * (cached-modules.ts).
 */
export function loadExifr(codeCacheDir?: string): Exifr {
  exifrModule ??= loadCachedExifr(codeCacheDir) ?? (createRequire(import.meta.url)('exifr') as Exifr);
  return exifrModule;
}

export interface MetadataDetails {
  exif: MediaMetadata['exif'];
  /** EXIF Software (IFD0). */
  software: string | null;
  /** XMP xmp:CreatorTool. */
  creatorTool: string | null;
  /** XMP/IPTC Iptc4xmpExt:DigitalSourceType (a URI or a bare IPTC code). */
  digitalSourceType: string | null;
  createDate: string | null;
  modifyDate: string | null;
  /** XMP xmpMM:History software agents and actions, flattened to text. */
  history: string[];
  /** PNG tEXt/iTXt/zTXt chunks and JPEG/EXIF text fields relevant to generators, by keyword (cut at 20,000 characters, for excerpts). */
  text: Record<string, string>;
  /**
   * Every value of each generator key, whole (each at most 1 MiB, the chunk walk's cap): a key may
   * repeat (a decoy first value must not hide a later declaration), and a ComfyUI workflow can be
   * longer than the excerpt text, so the AI-metadata check reads these, not `text`.
   */
  textAll: Record<string, string[]>;
  /** Text chunks that were skipped or cut short (damaged, oversized), for the result's warnings. */
  warnings: string[];
  /**
   * What the AI-metadata check could not see, when a PNG text chunk under a key it reads was
   * skipped (damaged, a zlib bomb) or text chunks past a cap were not read: the analysis is then
   * incomplete (analyze-image.ts), never "looked and found nothing".
   */
  textNotChecked: string | null;
  /** Decoded EXIF UserComment (charset prefix removed). */
  userComment: string | null;
  /** Whether any EXIF block was found at all (a camera always writes one). */
  hasExif: boolean;
  /** Number of tags exifr found, a rough measure of how much metadata survived. */
  tagCount: number;
  /** Why metadata could not be read, when it could not. */
  error: string | null;
  /** AUTOMATIC1111 stealth PNG info hidden in the pixels' low bits (stealth-pnginfo.ts), when found. */
  stealth: StealthInfo | null;
}

const GENERATOR_TEXT_KEYS = [
  'parameters',
  'prompt',
  'workflow',
  'Dream',
  'sd-metadata',
  'invokeai_metadata',
  'invokeai_graph',
  'Comment',
  'Description',
  'Software',
  'Source',
  'Title',
  'fooocus_scheme',
  'generation_data',
  'ImageDescription',
  'XPComment',
];

/**
 * Keys only image generators write. A chunk under one of these that could not be read leaves the
 * check incomplete even when another chunk with the key was read (the unread one may be the
 * declaration); under the everyday keys of GENERATOR_TEXT_KEYS (Comment, Title, Software, …) only
 * when no chunk with the key was read.
 */
const AI_ONLY_TEXT_KEYS = new Set(['parameters', 'prompt', 'workflow', 'Dream', 'sd-metadata', 'invokeai_metadata', 'invokeai_graph', 'fooocus_scheme', 'generation_data']);

const text = (v: unknown): string | null => {
  if (typeof v === 'string') return v.split('\0', 1)[0]!.trim() || null;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && 'value' in (v as object)) return text((v as { value: unknown }).value);
  return null;
};

/**
 * EXIF UserComment: 8-byte charset code then data. A1111 writes `UNICODE\0` + UTF-16 (big-endian
 * via piexif); cameras write `ASCII\0\0\0` or all zeros. Endianness is guessed from where the zero
 * bytes fall, since ASCII-range text in UTF-16 has one zero byte per character.
 */
export function decodeUserComment(raw: unknown): string | null {
  if (typeof raw === 'string') return raw.trim() || null;
  if (!(raw instanceof Uint8Array) || raw.length <= 8) return null;
  const head = Buffer.from(raw.subarray(0, 8)).toString('latin1');
  const body = Buffer.from(raw.subarray(8));
  let s: string;
  if (head.startsWith('UNICODE')) {
    let zerosEven = 0;
    let zerosOdd = 0;
    for (let i = 0; i < Math.min(body.length, 400); i++) if (body[i] === 0) (i % 2 === 0 ? zerosEven++ : zerosOdd++);
    const le = zerosOdd > zerosEven;
    const b = Buffer.from(body.subarray(0, body.length - (body.length % 2)));
    if (!le) b.swap16();
    s = b.toString('utf16le');
  } else {
    s = body.toString('utf8');
  }
  s = s.replace(/\0/g, '').trim();
  return s.length ? s : null;
}

/**
 * One date form for every source: EXIF's `YYYY:MM:DD HH:MM:SS[.fff][±hh:mm|Z]`. ISO 8601 / XMP
 * dates (`-` and `T`, zone `±hhmm` or `±hh:mm`) are rewritten; EXIF-form dates pass unchanged;
 * anything else is returned as written (never invented).
 */
export function exifDate(v: string | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})-(\d\d)(?:-(\d\d))?(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?\s*(Z|[+-]\d\d:?\d\d)?$/.exec(v.trim());
  if (!m) return v;
  const date = `${m[1]}:${m[2]}${m[3] ? `:${m[3]}` : ''}`;
  if (!m[4]) return date;
  const zone = m[8] ? (m[8] === 'Z' ? 'Z' : `${m[8].slice(0, 3)}:${m[8].slice(-2)}`) : '';
  return `${date} ${m[4]}:${m[5]}:${m[6] ?? '00'}${m[7] ?? ''}${zone}`;
}

function gpsOf(o: Record<string, unknown>): MediaMetadata['exif']['gps'] {
  const lat = o.latitude;
  const lon = o.longitude;
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  let alt: number | null = null;
  const rawAlt = o.GPSAltitude;
  if (typeof rawAlt === 'number' && Number.isFinite(rawAlt)) {
    const ref = o.GPSAltitudeRef;
    const below = ref === 1 || (ref instanceof Uint8Array && ref[0] === 1);
    alt = below ? -rawAlt : rawAlt;
  }
  return { lat: Math.round(lat * 1e7) / 1e7, lon: Math.round(lon * 1e7) / 1e7, alt };
}

function historyOf(v: unknown): string[] {
  const out: string[] = [];
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      const agent = text(o.softwareAgent ?? o.SoftwareAgent);
      const action = text(o.action ?? o.Action);
      if (agent || action) out.push([action, agent].filter(Boolean).join(' by '));
      else Object.values(o).forEach(visit);
    } else if (typeof x === 'string' && x.trim()) out.push(x.trim());
  };
  visit(v);
  return out.slice(0, 50);
}

export const emptyExif = (): MediaMetadata['exif'] => ({ make: null, model: null, datetime_original: null, gps: null });

/** Reads metadata with exifr; a malformed block yields what could be read plus `error`, never a throw. */
export async function readMetadataDetails(bytes: Buffer, codeCacheDir?: string): Promise<MetadataDetails> {
  const details: MetadataDetails = {
    exif: emptyExif(),
    software: null,
    creatorTool: null,
    digitalSourceType: null,
    createDate: null,
    modifyDate: null,
    history: [],
    text: {},
    textAll: {},
    warnings: [],
    textNotChecked: null,
    userComment: null,
    hasExif: false,
    tagCount: 0,
    error: null,
    stealth: null,
  };
  let o: Record<string, unknown> | undefined;
  try {
    const exifr = loadExifr(codeCacheDir);
    o = (await exifr.parse(bytes, {
      tiff: true,
      exif: true,
      gps: true,
      ifd1: false,
      xmp: true,
      iptc: true,
      icc: false,
      jfif: false,
      ihdr: true,
      makerNote: false,
      userComment: true,
      reviveValues: false,
      translateValues: false,
      translateKeys: true,
      mergeOutput: true,
    })) as Record<string, unknown> | undefined;
  } catch (err) {
    details.error = err instanceof Error ? err.message : String(err);
  }
  if (o) readExifrFields(details, o);
  // No EXIF make: a Canon CIFF block in APP0 (early PowerShots) names the camera, as exiftool reads it.
  if (!details.exif.make) {
    const ciff = ciffMakeModel(bytes);
    if (ciff) {
      details.exif.make = ciff.make;
      details.exif.model ??= ciff.model;
      details.hasExif = true;
    }
  }
  readGeneratorText(details, readPngText(bytes), o);
  return details;
}

/** The fields exifr gives (all but the generator text). */
function readExifrFields(details: MetadataDetails, o: Record<string, unknown>): void {
  details.tagCount = Object.keys(o).length;
  const dto = exifDate(text(o.DateTimeOriginal));
  const offset = text(o.OffsetTimeOriginal);
  details.exif = {
    make: text(o.Make),
    model: text(o.Model),
    datetime_original: dto ? (offset && /^[+-]\d\d:\d\d$/.test(offset) && !/(Z|[+-]\d\d:\d\d)$/.test(dto) ? `${dto}${offset}` : dto) : null,
    gps: gpsOf(o),
  };
  details.hasExif = ['Make', 'Model', 'DateTimeOriginal', 'ExposureTime', 'FNumber', 'ISO', 'ExifVersion'].some((k) => o[k] !== undefined);
  details.software = text(o.Software);
  details.creatorTool = text(o.CreatorTool);
  details.digitalSourceType = text(o.DigitalSourceType) ?? text(o.digitalsourcetype);
  details.createDate = exifDate(text(o.CreateDate) ?? text(o.DateTimeDigitized));
  details.modifyDate = exifDate(text(o.ModifyDate));
  details.history = historyOf(o.History);
  details.userComment = decodeUserComment(o.userComment ?? o.UserComment);
}

/**
 * The text the AI-metadata check reads, per generator key: every value the PNG chunk walk found
 * (all three chunk types, before or after IDAT, in file order, each ≤ 1 MiB), then exifr's when it
 * is another one (its merged output: the same tEXt value, or for Software/Description-like keys
 * EXIF's), compared as text() normalises (cut at NUL, trimmed). `text` holds the first, cut for
 * excerpts. Chunks the walk could not read under these keys make the check incomplete.
 */
function readGeneratorText(details: MetadataDetails, png: PngText, o: Record<string, unknown> | undefined): void {
  details.warnings.push(...png.warnings);
  for (const k of GENERATOR_TEXT_KEYS) {
    const values = (png.all[k] ?? []).map((x) => text(x)).filter((x): x is string => !!x);
    const fromExifr = o ? text(o[k])?.slice(0, 1 << 20) : undefined;
    if (fromExifr && !values.includes(fromExifr)) values.push(fromExifr);
    if (!values.length) continue;
    details.textAll[k] = values;
    details.text[k] = values[0]!.slice(0, 20_000);
  }
  const missed = [...new Set(png.unread)].filter((k) => AI_ONLY_TEXT_KEYS.has(k) || (GENERATOR_TEXT_KEYS.includes(k) && !(k in details.text)));
  const parts = [
    ...(missed.length ? [`the PNG text chunk${missed.length > 1 ? 's' : ''} ${missed.map((k) => `"${k}"`).join(', ')} could not be read`] : []),
    ...(png.stoppedEarly ? [png.stoppedEarly] : []),
  ];
  if (parts.length) details.textNotChecked = `${parts.join(', and ')}, so AI-generator settings there were not checked`;
}
