/**
 * The Info strings and the XMP packet as pdf.js 5.4 reports them (its `documentInfo` and
 * `Catalog.metadata`, read through `getMetadata()` in pdfjs-reader.ts), taken from the structure
 * reader's objects instead. For the simple-PDF reader (text/simple-reader.ts), which answers in
 * place of pdf.js only when every part of its answer is the one pdf.js would give: where this
 * module cannot be sure (a filter it does not decode, a packet pdf.js would rewrite), it says so
 * and pdf.js reads the file as before.
 */
import { isDict, isRef, type PdfString, type PdfValue } from './objects.js';
import type { PdfStructure } from './structure.js';
import type { DocObjects } from './text/doc-objects.js';
import { ineligible } from './text/ineligible.js';

export interface NotLikePdfJs {
  notLikePdfJs: string;
}

/** The Info keys pdf.js reports as text when their value is a string (verity reads these). */
const TEXT_KEYS = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];

/**
 * PDFDocEncoding (ISO 32000-1 Annex D.2) where it differs from Latin-1: 0x18–0x1F and 0x80–0xA0;
 * 0x9F is undefined and, as every byte pdf.js has no entry for, stays the byte itself.
 */
const PDF_DOC_ENCODING: ReadonlyMap<number, number> = new Map([
  [0x18, 0x02d8], [0x19, 0x02c7], [0x1a, 0x02c6], [0x1b, 0x02d9], [0x1c, 0x02dd], [0x1d, 0x02db], [0x1e, 0x02da], [0x1f, 0x02dc],
  [0x80, 0x2022], [0x81, 0x2020], [0x82, 0x2021], [0x83, 0x2026], [0x84, 0x2014], [0x85, 0x2013], [0x86, 0x0192], [0x87, 0x2044],
  [0x88, 0x2039], [0x89, 0x203a], [0x8a, 0x2212], [0x8b, 0x2030], [0x8c, 0x201e], [0x8d, 0x201c], [0x8e, 0x201d], [0x8f, 0x2018],
  [0x90, 0x2019], [0x91, 0x201a], [0x92, 0x2122], [0x93, 0xfb01], [0x94, 0xfb02], [0x95, 0x0141], [0x96, 0x0152], [0x97, 0x0160],
  [0x98, 0x0178], [0x99, 0x017d], [0x9a, 0x0131], [0x9b, 0x0142], [0x9c, 0x0153], [0x9d, 0x0161], [0x9e, 0x017e], [0xa0, 0x20ac],
]);

const ESC = 0x1b;

/**
 * A PDF text string (§7.9.2.2) decoded as pdf.js decodes it: a UTF-16BE, UTF-16LE or UTF-8 byte
 * order mark selects that encoding (an odd trailing byte of UTF-16 dropped; a language escape,
 * ESC … ESC, removed); bytes that are not valid in it, or no mark, mean PDFDocEncoding, where an
 * escape sequence is skipped too. `raw` holds the string's bytes as Latin-1 characters.
 */
export function pdfJsTextString(raw: string): string {
  const mark = bomEncoding(raw);
  if (mark) {
    let body = raw;
    if (mark !== 'utf-8' && body.length % 2 === 1) body = body.slice(0, -1);
    try {
      const decoded = new TextDecoder(mark, { fatal: true }).decode(Buffer.from(body, 'latin1'));
      return decoded.includes('\x1b') ? decoded.replace(/\x1b[^\x1b]*(?:\x1b|$)/g, '') : decoded;
    } catch {
      // not valid in the marked encoding: read as PDFDocEncoding below, as pdf.js does
    }
  }
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === ESC) {
      while (++i < raw.length && raw.charCodeAt(i) !== ESC);
      continue;
    }
    const mapped = PDF_DOC_ENCODING.get(c);
    out += mapped ? String.fromCharCode(mapped) : raw[i];
  }
  return out;
}

function bomEncoding(raw: string): 'utf-16be' | 'utf-16le' | 'utf-8' | undefined {
  if (raw.startsWith('\xfe\xff')) return 'utf-16be';
  if (raw.startsWith('\xff\xfe')) return 'utf-16le';
  if (raw.startsWith('\xef\xbb\xbf')) return 'utf-8';
  return undefined;
}

/**
 * The trailer's Info dictionary's text entries, as pdf.js's `documentInfo` gives them. Objects are
 * taken where the xref says (`objs`, text/doc-objects.ts), as pdf.js takes them: an object pdf.js
 * would not find there (another generation, not in the xref) throws Ineligible. pdf.js fetches
 * every entry of the dictionary, and one that fails fails its whole reading, so every reference in
 * it is followed here.
 */
export function pdfJsInfo(objs: DocObjects, s: PdfStructure): Record<string, string> {
  const out: Record<string, string> = {};
  const info = objs.get(s.trailer?.entries.get('Info'));
  if (!isDict(info)) return out;
  const values = new Map<string, PdfValue | undefined>();
  for (const [key, v] of info.entries) values.set(key, objs.get(v));
  for (const key of TEXT_KEYS) {
    const v = values.get(key);
    if (!isString(v)) continue;
    if (v.wideEscape) ineligible('info: octal escape above 255');
    out[key] = pdfJsTextString(v.bytes);
  }
  return out;
}

const isString = (v: PdfValue | undefined): v is PdfString => !!v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'string';
const nameValue = (objs: DocObjects, v: PdfValue | undefined): string | undefined => {
  const r = objs.get(v);
  return r && typeof r === 'object' && !Array.isArray(r) && r.kind === 'name' ? r.name : undefined;
};

/**
 * The catalog's XMP packet as pdf.js's `getMetadata()` returns it from `getRaw()`: only when the
 * catalog names it by reference and its dictionary says /Type /Metadata /Subtype /XML; the bytes
 * read as UTF-8 (not valid UTF-8, or empty: no packet), then anything before the first `<`
 * removed. null when pdf.js reports none. The stream is decoded strictly (objs.stream: Flate to its
 * end, or unfiltered with an exact /Length); pdf.js would report none for a stream it fails to
 * decode, which this reader cannot tell apart, so it declines (throws Ineligible).
 */
export function pdfJsXmp(objs: DocObjects, s: PdfStructure): string | null | NotLikePdfJs {
  const root = objs.dict(s.trailer?.entries.get('Root'));
  if (!root) return { notLikePdfJs: 'catalog: not a dictionary' };
  const ref = root.entries.get('Metadata');
  if (!isRef(ref)) return null;
  const { dict } = objs.streamDict(ref);
  if (nameValue(objs, dict.entries.get('Type')) !== 'Metadata' || nameValue(objs, dict.entries.get('Subtype')) !== 'XML') return null;
  const { data } = objs.stream(ref);
  let text: string;
  try {
    // pdf.js reads the bytes through decodeURIComponent(escape(…)): strict UTF-8 that keeps a BOM.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    return null;
  }
  if (!text) return null;
  const packet = text.replace(/^[^<]+/, '');
  // pdf.js rewrites octal-escaped UTF-16 text after `>\\376\\377`; not reproduced here.
  if (/>\\376\\377[^<]/.test(packet)) return { notLikePdfJs: 'XMP: escaped UTF-16 text pdf.js rewrites' };
  return packet;
}
