/**
 * PNG text chunks (tEXt, zTXt, iTXt) read straight from the chunk stream, wherever they sit (before
 * or after IDAT). exifr returns tEXt only, so generator settings written compressed (zTXt) or as
 * international text (iTXt: PIL writes it for any non-Latin-1 prompt, compressed or not) were never
 * seen. No maintained npm package does this within bounds: png-chunk-text reads tEXt only, and
 * png-itxt (last released years ago, stream-based, on pako 0.2) inflates without any output limit.
 *
 * Layout (PNG specification, 3rd edition, §11.3.3): each chunk is length (4 bytes, big-endian, ≤
 * 2³¹−1), type (4), data, CRC-32 over type and data. The text chunks' data:
 * - tEXt: keyword, NUL, Latin-1 text;
 * - zTXt: keyword, NUL, compression method (0 = zlib), zlib stream of Latin-1 text;
 * - iTXt: keyword, NUL, compression flag, compression method, language tag, NUL, translated
 *   keyword (UTF-8), NUL, UTF-8 text (a zlib stream when the flag is 1).
 * Keywords are 1–79 printable Latin-1 bytes.
 *
 * Bounded: the walk stops at IEND or after MAX_CHUNKS chunks; each chunk's text is at most 1 MiB
 * (longer uncompressed text is skipped like an oversized inflation); each chunk inflates to at most 1 MiB
 * and all of them together to at most 4 MiB (zlib stops at the cap itself: `maxOutputLength`), and
 * at most MAX_TEXT_CHUNKS text chunks are read. A bad chunk (bad keyword, corrupt or oversized
 * zlib stream) is skipped with a warning, one with a wrong CRC read with a warning; nothing here
 * throws.
 */
import { crc32, inflateSync } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Most text one chunk may inflate to: generator settings and workflows are far smaller. */
export const MAX_CHUNK_TEXT_BYTES = 1 << 20;
/** Most text all chunks together may inflate to. */
export const MAX_TOTAL_TEXT_BYTES = 4 << 20;
/** Chunks walked at most (a 100-megapixel PNG in 8 KiB IDAT chunks has ~40,000). */
const MAX_CHUNKS = 200_000;
/** Text chunks read at most; further ones are skipped with one warning (their keywords still noted). */
const MAX_TEXT_CHUNKS = 256;
/** Warnings kept at most; the rest are counted in one last line (256 bombs must not flood the output). */
const MAX_WARNINGS = 10;

export interface PngText {
  /** Text by keyword; the first chunk with a keyword wins (as exiftool lists it first). */
  text: Record<string, string>;
  /**
   * Every value of a keyword, in file order: a file may repeat a keyword, and a decoy first value
   * must not hide a generator's declaration in a later one (exifr keeps the last).
   */
  all: Record<string, string[]>;
  /** One line per skipped or cut-short chunk, for the result's warnings. */
  warnings: string[];
  /** Keywords of text chunks that were skipped after their keyword was read (their text is unknown). */
  unread: string[];
  /** Why text chunks further on were not looked at (a chunk cap), when they were not. */
  stoppedEarly: string | null;
}

const TEXT_TYPES = new Set(['tEXt', 'zTXt', 'iTXt']);
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** A keyword per the specification: 1–79 bytes of printable Latin-1 (32–126, 161–255). */
function keywordOf(data: Buffer): { keyword: string; rest: number } | string {
  const nul = data.indexOf(0);
  if (nul < 0 || nul > 79) return 'no keyword terminator within 80 bytes';
  if (nul === 0) return 'empty keyword';
  for (let i = 0; i < nul; i++) {
    const b = data[i]!;
    if (b < 32 || (b > 126 && b < 161)) return `keyword byte 0x${b.toString(16).padStart(2, '0')} is not printable Latin-1`;
  }
  return { keyword: data.toString('latin1', 0, nul), rest: nul + 1 };
}

/** Reads every text chunk of a PNG; returns nothing for other files. */
export function readPngText(bytes: Buffer): PngText {
  // Prototype-free maps: a keyword such as "constructor" or "__proto__" is just a keyword.
  const out: PngText = { text: Object.create(null) as Record<string, string>, all: Object.create(null) as Record<string, string[]>, warnings: [], unread: [], stoppedEarly: null };
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return out;
  let dropped = 0;
  const warn = (w: string): void => {
    if (out.warnings.length < MAX_WARNINGS) out.warnings.push(w);
    else dropped++;
  };
  let inflatedTotal = 0;
  let textChunks = 0;
  let at = 8;
  for (let n = 0; ; n++) {
    if (n >= MAX_CHUNKS) {
      out.stoppedEarly = `the PNG has more than ${MAX_CHUNKS} chunks and text chunks past them were not read`;
      warn(`PNG text: stopped after ${MAX_CHUNKS} chunks; text chunks further on were not read`);
      break;
    }
    if (at + 12 > bytes.length) {
      if (at < bytes.length) {
        warn(`PNG text: the file ends inside a chunk header at byte ${at} (truncated)`);
        // Fewer bytes than the smallest text chunk (12 + a keyword and its NUL): nothing unread.
        if (bytes.length - at >= 14) out.stoppedEarly = `the PNG's chunks break off at byte ${at}, before its end chunk, so text chunks after it were not read`;
      }
      break;
    }
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (length > 0x7fffffff || at + 12 + length > bytes.length) {
      // Either an impossible length (over 2^31 - 1 is invalid by the specification) or a cut file:
      // whatever followed is unread, and a generator chunk could be there, so the reading is
      // incomplete either way (a cut file's pixels say so too).
      const why = length > 0x7fffffff ? `declares an invalid length (${length})` : `declares ${length} bytes, more than the file holds`;
      warn(`PNG text: chunk "${printable(type)}" at byte ${at} ${why}; chunks after it were not read`);
      out.stoppedEarly = `a PNG chunk at byte ${at} ${why}, so text chunks after it were not read`;
      break;
    }
    const dataStart = at + 8;
    const dataEnd = dataStart + length;
    at = dataEnd + 4;
    if (type === 'IEND') break;
    if (!TEXT_TYPES.has(type)) continue;
    if (++textChunks > MAX_TEXT_CHUNKS) {
      // Past the cap only the keyword is read (≤ 80 bytes): the caller treats an unread chunk
      // under a generator key as "not checked", and any other as harmless.
      if (textChunks === MAX_TEXT_CHUNKS + 1) warn(`PNG text: more than ${MAX_TEXT_CHUNKS} text chunks; the text of the rest was not read`);
      const k = keywordOf(bytes.subarray(dataStart, Math.min(dataEnd, dataStart + 80)));
      if (typeof k !== 'string') out.unread.push(k.keyword);
      continue;
    }
    const where = `${type} chunk at byte ${dataStart - 8}`;
    const data = bytes.subarray(dataStart, dataEnd);
    const k = keywordOf(data);
    // A wrong CRC is reported but the chunk is still read, as exiftool and exifr read it: damage
    // does not make a generator's declaration untrue, and the bounds below hold either way.
    if (crc32(bytes.subarray(dataStart - 4, dataEnd)) !== bytes.readUInt32BE(dataEnd))
      warn(`PNG text: ${where}${typeof k === 'string' ? '' : ` ("${k.keyword}")`} is damaged: its CRC does not match (read anyway)`);
    if (typeof k === 'string') {
      warn(`PNG text: ${where} skipped: ${k}`);
      continue;
    }
    const label = `${where} ("${k.keyword}")`;
    const skip = (reason: string): void => {
      warn(`PNG text: ${label} skipped: ${reason}`);
      out.unread.push(k.keyword);
    };
    let value: string;
    // Uncompressed text is held to the same 1 MiB per chunk as inflated text: the detectors parse
    // whole values (a ComfyUI workflow), and a 19 MB tEXt "prompt" cost seconds and 700 MB.
    const tooLong = (n: number): boolean => {
      if (n <= MAX_CHUNK_TEXT_BYTES) return false;
      skip(`its text is longer than ${MAX_CHUNK_TEXT_BYTES >> 20} MiB`);
      return true;
    };
    if (type === 'tEXt') {
      if (tooLong(data.length - k.rest)) continue;
      value = data.toString('latin1', k.rest);
    }
    else {
      const compressed = type === 'zTXt' ? true : data[k.rest] === 1;
      const method = type === 'zTXt' ? data[k.rest] : data[k.rest + 1];
      if (k.rest + (type === 'zTXt' ? 1 : 2) > data.length) {
        skip('it ends before its compression fields');
        continue;
      }
      if (compressed && method !== 0) {
        skip(`unknown compression method ${method}`);
        continue;
      }
      let body: Buffer;
      if (type === 'zTXt') body = data.subarray(k.rest + 1);
      else {
        // Language tag and translated keyword, each NUL-terminated, then the text.
        const langEnd = data.indexOf(0, k.rest + 2);
        const transEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
        if (transEnd < 0) {
          skip('its language tag or translated keyword is not terminated');
          continue;
        }
        body = data.subarray(transEnd + 1);
      }
      if (compressed) {
        const cap = Math.min(MAX_CHUNK_TEXT_BYTES, MAX_TOTAL_TEXT_BYTES - inflatedTotal);
        if (cap <= 0) {
          skip(`the file's compressed text already reached ${MAX_TOTAL_TEXT_BYTES >> 20} MiB`);
          continue;
        }
        try {
          body = inflateSync(body, { maxOutputLength: cap });
        } catch (err) {
          const tooLarge = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError;
          // zlib produced (and dropped) that much before it stopped: it counts against the file's
          // total, so a file of many bombs stops costing inflations early.
          if (tooLarge) inflatedTotal += cap;
          skip(
            tooLarge
              ? `it inflates past ${cap === MAX_CHUNK_TEXT_BYTES ? `${MAX_CHUNK_TEXT_BYTES >> 20} MiB (a decompression bomb or not text)` : `the ${MAX_TOTAL_TEXT_BYTES >> 20} MiB left for the file's text`}`
              : `its zlib stream is corrupt (${(err as Error).message})`,
          );
          continue;
        }
        inflatedTotal += body.length;
      } else if (tooLong(body.length)) continue;
      value = type === 'zTXt' ? body.toString('latin1') : utf8.decode(body);
    }
    if (!(k.keyword in out.text)) out.text[k.keyword] = value;
    (out.all[k.keyword] ??= []).push(value);
  }
  if (dropped) out.warnings.push(`PNG text: … and ${dropped} more warning${dropped > 1 ? 's' : ''} about text chunks`);
  return out;
}

const printable = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?');
