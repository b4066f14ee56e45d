/**
 * Fonts as pdf.js 5.4.296's text extraction sees them — a code's Unicode text and width — for
 * the fonts whose answer pdf.js derives without looking into a font program:
 *
 * - simple Type1/TrueType fonts that are not embedded (pdf.js in Node has no standard font data
 *   and no system fonts, so it never loads a program for them): the standard 14 by name (their
 *   AFM widths) or any font with /Widths, encoded by WinAnsi, StandardEncoding and /Differences
 *   of known glyph names, or by a /ToUnicode CMap;
 * - embedded simple TrueType fonts with /Widths whose /ToUnicode maps every code shown (pdf.js
 *   then takes the CMap's text whatever the program says, and TrueType widths are not rescaled);
 * - Type0 fonts with /Identity-H over an embedded CIDFontType2, with /W or /DW and a /ToUnicode
 *   that maps every code shown.
 *
 * Anything else (Type3, Type1/CFF programs whose FontMatrix could rescale widths, symbolic
 * encodings, other CMaps, vertical writing, a code the encoding leaves unnamed) is not eligible.
 */
import { canonical, isDict, isRef, type PdfDict, type PdfValue } from '../objects.js';
import type { DocObjects } from './doc-objects.js';
import { SYMBOLS_FONTS, glyphUnicode, macRomanEncoding, standardEncoding, winAnsiEncoding } from './encodings.js';
import { ineligible } from './ineligible.js';
import { checkCffProgram, checkTrueTypeProgram, checkType1Program } from './font-programs.js';
import { STANDARD_FONTS, standardFontMetrics } from './standard-metrics.js';
import { readToUnicode, type UnicodeMap } from './to-unicode.js';

export interface Category {
  isWhitespace: boolean;
  isZeroWidthDiacritic: boolean;
  isInvisibleFormatMark: boolean;
}

export interface Glyph {
  originalCharCode: number;
  unicode: string;
  width: number;
  category: Category;
}

export interface TextFont {
  /**
   * The glyphs of the string's codes, written into `out` from index 0 (the caller's scratch array,
   * reused from string to string: no array made per string); returns how many.
   */
  glyphs(chars: string, out: Glyph[]): number;
}

// pdf.js's getCharUnicodeCategory: leading white-space, a non-spacing mark anywhere, a format
// character at the end (of the whole Unicode string of the glyph, which may be several chars).
const SPECIAL_CHAR = /^(\s)|(\p{Mn})|(\p{Cf})$/u;
const categories = new Map<string, Category>();
function categoryOf(u: string): Category {
  let c = categories.get(u);
  if (!c) {
    const g = u.match(SPECIAL_CHAR);
    c = { isWhitespace: !!g?.[1], isZeroWidthDiacritic: !!g?.[2], isInvisibleFormatMark: !!g?.[3] };
    categories.set(u, c);
  }
  return c;
}

const nameOfValue = (v: PdfValue | undefined): string | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'name' ? v.name : undefined;
const isInt = (v: PdfValue | undefined): v is number => typeof v === 'number' && Number.isInteger(v);

const FLAG_SYMBOLIC = 4;
const FLAG_NONSYMBOLIC = 32;

/** A simple font: one byte per code. */
class SimpleFont implements TextFont {
  private readonly cache: (Glyph | undefined)[] = new Array<Glyph | undefined>(256).fill(undefined);
  constructor(
    private readonly unicodeOf: (code: number) => string,
    private readonly widthOf: (code: number) => number,
  ) {}
  glyphs(chars: string, out: Glyph[]): number {
    let n = 0;
    for (let i = 0; i < chars.length; i++) {
      const code = chars.charCodeAt(i);
      let g = this.cache[code];
      if (!g) {
        const unicode = this.unicodeOf(code);
        g = { originalCharCode: code, unicode, width: this.widthOf(code), category: categoryOf(unicode) };
        this.cache[code] = g;
      }
      out[n++] = g;
    }
    return n;
  }
}

/** A Type0 font with Identity-H: two bytes per code, the code is the CID. */
class IdentityFont implements TextFont {
  private readonly cache = new Map<number, Glyph>();
  constructor(
    private readonly toUnicode: UnicodeMap,
    private readonly widths: (number | undefined)[],
    private readonly defaultWidth: number,
  ) {}
  glyphs(chars: string, out: Glyph[]): number {
    if (chars.length % 2) ineligible('font: odd byte count for Identity-H');
    let n = 0;
    for (let i = 0; i < chars.length; i += 2) {
      const code = (chars.charCodeAt(i) << 8) | chars.charCodeAt(i + 1);
      let g = this.cache.get(code);
      if (!g) {
        const u = this.toUnicode.map[code];
        if (!u) ineligible('font: code without ToUnicode');
        const w = this.widths[code];
        g = { originalCharCode: code, unicode: u, width: typeof w === 'number' ? w : this.defaultWidth, category: categoryOf(u) };
        this.cache.set(code, g);
      }
      out[n++] = g;
    }
    return n;
  }
}

/**
 * pdf.js's _simpleFontToUnicode for the glyph names encodings.ts knows. A code whose name it does
 * not know is listed in `unknown` (pdf.js may map it through the full Adobe Glyph List or a
 * `uniXXXX` form): showing such a code is not eligible.
 */
function simpleToUnicode(encoding: readonly string[], differences: (string | undefined)[]): { map: (string | undefined)[]; unknown: Set<number> } {
  const enc = encoding.slice();
  differences.forEach((n, code) => {
    if (n !== undefined && n !== '.notdef') enc[code] = n;
  });
  const map: (string | undefined)[] = [];
  const unknown = new Set<number>();
  enc.forEach((name, code) => {
    if (!name) return;
    const u = glyphUnicode(name);
    if (u !== undefined) map[code] = String.fromCharCode(u);
    else unknown.add(code);
  });
  return { map, unknown };
}

export class FontLoader {
  private readonly byRef = new Map<number, TextFont>();
  private readonly direct = new WeakMap<PdfDict, TextFont>();
  private readonly descriptorOwners = new Map<string, PdfDict[]>();
  constructor(private readonly objs: DocObjects) {}

  /** The font a resource name points to: a reference (cached by object, as pdf.js caches by reference) or a direct dictionary. */
  load(v: PdfValue | undefined): TextFont {
    if (isDict(v)) {
      let f = this.direct.get(v);
      if (!f) this.direct.set(v, (f = this.translate(v)));
      return f;
    }
    if (!isRef(v)) ineligible('font: not a dictionary');
    let f = this.byRef.get(v.num);
    if (!f) {
      const dict = this.objs.dict(v);
      if (!dict) ineligible('font: not a dictionary');
      f = this.translate(dict);
      this.byRef.set(v.num, f);
    }
    return f;
  }

  private translate(dict: PdfDict): TextFont {
    const o = this.objs;
    const subtype = nameOfValue(o.get(dict.entries.get('Subtype')));
    if (subtype === 'Type0') return this.type0(dict);
    if (subtype === 'Type3') ineligible('font: Type3');
    if (subtype !== 'Type1' && subtype !== 'TrueType') ineligible(`font: ${subtype ?? 'no Subtype'}`);
    if (dict.entries.has('FontMatrix')) ineligible('font: FontMatrix');
    const fc = o.get(dict.entries.get('FirstChar'));
    const firstChar = isInt(fc) ? fc : 0;
    const descriptorRef = dict.entries.get('FontDescriptor');
    const descriptor = o.dict(descriptorRef);
    if (descriptorRef !== undefined && !descriptor) ineligible('font: bad FontDescriptor');
    const baseFont = nameOfValue(o.get(dict.entries.get('BaseFont')));
    if (descriptor) this.claimDescriptor(descriptorRef, dict);

    let name: string;
    let flags: number;
    let embedded = false;
    let nameUnsure = false;
    if (!descriptor) {
      if (baseFont === undefined) ineligible('font: no BaseFont');
      if (!STANDARD_FONTS.has(baseFont)) ineligible('font: non-standard font without FontDescriptor');
      if (SYMBOLS_FONTS.has(baseFont)) ineligible('font: symbolic');
      name = baseFont;
      flags = FLAG_NONSYMBOLIC; // pdf.js's simulated flags for the 12 non-symbolic standard fonts
    } else {
      const fontNameV = o.get(descriptor.entries.get('FontName'));
      const fontName = nameOfValue(fontNameV);
      if (fontNameV !== undefined && fontName === undefined) ineligible('font: FontName not a name');
      const fl = o.get(descriptor.entries.get('Flags'));
      flags = isInt(fl) ? fl : 0;
      const files = ['FontFile', 'FontFile2', 'FontFile3'].filter((k) => descriptor.entries.has(k));
      if (files.length > 1) ineligible('font: several font files');
      const file = files[0];
      if (file === 'FontFile2') {
        if (subtype !== 'TrueType') ineligible('font: FontFile2 in a Type1 font');
        checkTrueTypeProgram(o.stream(descriptor.entries.get(file)).data);
      } else if (file === 'FontFile') {
        if (subtype !== 'Type1') ineligible('font: FontFile in a TrueType font');
        checkType1Program(o.stream(descriptor.entries.get(file)).data);
      } else if (file === 'FontFile3') {
        const { dict: fd, data } = o.stream(descriptor.entries.get(file));
        if (subtype !== 'Type1' || nameOfValue(o.get(fd.entries.get('Subtype'))) !== 'Type1C') ineligible('font: FontFile3 other than Type1C');
        checkCffProgram(data);
      }
      embedded = file !== undefined;
      if (fontName !== undefined && fontName === baseFont) name = fontName;
      else if (embedded && (fontName !== undefined || baseFont !== undefined)) {
        // pdf.js picks between the two names with tables this reader lacks; an embedded font with
        // a full /ToUnicode only needs the name where its encoding is consulted.
        name = '';
        nameUnsure = true;
      } else ineligible('font: FontName differs from BaseFont');
    }

    // Encoding (extractDataStructures).
    const differences: (string | undefined)[] = [];
    let baseEncodingName: string | undefined;
    const encV = o.get(dict.entries.get('Encoding'));
    if (encV !== undefined) {
      if (isDict(encV)) {
        baseEncodingName = nameOfValue(o.get(encV.entries.get('BaseEncoding')));
        const diffs = o.get(encV.entries.get('Differences'));
        if (encV.entries.has('Differences')) {
          if (!Array.isArray(diffs)) ineligible('font: bad Differences');
          let index = 0;
          for (const e of diffs) {
            if (typeof e === 'number') index = e;
            else {
              const n = nameOfValue(e);
              if (n === undefined) ineligible('font: bad Differences');
              if (!Number.isInteger(index) || index < 0 || index > 255) ineligible('font: Differences index');
              differences[index++] = n;
            }
          }
        }
      } else {
        baseEncodingName = nameOfValue(encV);
        if (baseEncodingName === undefined) ineligible('font: bad Encoding');
      }
      if (baseEncodingName !== 'MacRomanEncoding' && baseEncodingName !== 'MacExpertEncoding' && baseEncodingName !== 'WinAnsiEncoding') baseEncodingName = undefined;
    }
    const nonEmbedded = !embedded;
    const symbolsName = SYMBOLS_FONTS.has(name);
    if (baseEncodingName && nonEmbedded && symbolsName) baseEncodingName = undefined;
    // The base encoding, when it is one this reader has; otherwise why not. An embedded font
    // whose /ToUnicode maps every code shown never consults it, so only a consultation declines.
    let encoding: readonly string[] | undefined;
    let encodingReason = '';
    if (baseEncodingName) {
      if (baseEncodingName === 'WinAnsiEncoding') encoding = winAnsiEncoding();
      else if (baseEncodingName === 'MacRomanEncoding') encoding = macRomanEncoding();
      else encodingReason = `font: ${baseEncodingName}`;
    } else {
      let symbolic = !!(flags & FLAG_SYMBOLIC);
      const nonsymbolic = !!(flags & FLAG_NONSYMBOLIC);
      if (subtype === 'TrueType' && symbolic && nonsymbolic && differences.length !== 0) symbolic = false;
      encoding = standardEncoding();
      if (subtype === 'TrueType' && !nonsymbolic) encoding = winAnsiEncoding();
      if (symbolic || symbolsName) {
        // MacRoman, unless pdf.js swaps in a Symbol/Dingbats/Wingdings encoding for a font without a program.
        encoding = macRomanEncoding();
        if (!embedded && /Symbol|Dingbats|Wingdings/i.test(name)) {
          encoding = undefined;
          encodingReason = 'font: symbolic';
        }
      } else if (nameUnsure) {
        // Which name pdf.js took decides whether it counts as a "symbols font".
        encoding = undefined;
        encodingReason = 'font: FontName differs from BaseFont';
      }
    }
    const hasEncoding = !!baseEncodingName || differences.length > 0;
    const baseName = (code: number): string => (encoding ? (encoding[code] ?? '') : ineligible(encodingReason));

    // ToUnicode (readToUnicode, buildToUnicode, amendFallbackToUnicode).
    const tu = this.toUnicode(dict);
    const fallback = simpleToUnicode(encoding ?? [], differences);
    const included = !!tu && tu.length > 0;
    if (!included && embedded) ineligible('font: no ToUnicode for embedded font');
    const glyphName = (code: number): string => differences[code] ?? baseName(code);
    const unicodeOf = (code: number): string => {
      // Embedded fonts have a non-empty /ToUnicode (checked above): pdf.js then never amends the
      // map from the program (adjustType1ToUnicode/adjustTrueTypeToUnicode stop at an included map),
      // so a code the CMap lacks takes the encoding's glyph name or its own number, as for any font.
      // Should pdf.js fail to read a Type1/CFF program, it draws codes the encoding leaves unnamed as spaces.
      if (embedded && subtype === 'Type1' && glyphName(code) === '') ineligible('font: code outside the encoding');
      const fromCMap = included && tu.map[code] !== undefined;
      let u = fromCMap ? tu.map[code] : undefined;
      if (!fromCMap && (!included || hasEncoding)) {
        // _simpleFontToUnicode's answer for this code: its /Differences name (unless .notdef), else the base encoding's.
        const d = differences[code];
        if ((d === undefined || d === '.notdef') && !encoding) ineligible(encodingReason);
        if (fallback.unknown.has(code)) ineligible('font: unknown glyph name');
        u = fallback.map[code];
      }
      // pdf.js: a code without Unicode shows as the character of the same number.
      return u || String.fromCharCode(code);
    };
    // Widths (translateFont's no-descriptor branch, or extractWidths).
    const widths: (number | undefined)[] = [];
    let defaultWidth = 0;
    const widthsV = o.get(dict.entries.get('Widths'));
    if (Array.isArray(widthsV)) {
      let j = firstChar;
      for (const w of widthsV) {
        const v = o.get(w);
        if (typeof v === 'number') widths[j] = v;
        j++;
      }
      if (descriptor) {
        const mw = o.get(descriptor.entries.get('MissingWidth'));
        defaultWidth = typeof mw === 'number' ? mw : 0;
      } else defaultWidth = standardFontMetrics(name).defaultWidth;
    } else {
      if (embedded) ineligible('font: embedded font without Widths');
      if (baseFont === undefined || !STANDARD_FONTS.has(baseFont)) ineligible('font: no Widths for a non-standard font');
      if (SYMBOLS_FONTS.has(baseFont)) ineligible('font: symbolic');
      const m = standardFontMetrics(baseFont);
      defaultWidth = m.defaultWidth;
      for (let code = 0; code < 256; code++) {
        const d = differences[code];
        const dw = d !== undefined ? m.widths.get(d) : undefined;
        if (dw) {
          widths[code] = dw;
          continue;
        }
        const e = baseName(code);
        const ew = e ? m.widths.get(e) : undefined;
        if (ew) widths[code] = ew;
      }
    }
    const widthOf = (code: number): number => {
      const w = widths[code];
      return typeof w === 'number' ? w : defaultWidth;
    };
    if (!embedded && subtype === 'Type1') {
      // pdf.js with no program for a Type1 font (_charToGlyph, missingFile): a code its encoding
      // leaves unnamed is drawn as a space, and a zero width becomes the font's "space width": the
      // first non-zero width of codes 32, U+2212, 49, 105, 73 (pdf.js looks the glyph names up as
      // char codes, since its reverse Unicode lookup never matches), else the default width.
      const spaceWidth = (): number => {
        for (const code of [0x20, 0x2212, 0x31, 0x69, 0x49]) if (widths[code]) return widths[code]!;
        return defaultWidth;
      };
      return new SimpleFont(
        (code) => (glyphName(code) === '' ? ' ' : unicodeOf(code)),
        (code) => (glyphName(code) === '' ? widthOf(code) || spaceWidth() : widthOf(code)),
      );
    }
    return new SimpleFont(unicodeOf, widthOf);
  }

  private type0(dict: PdfDict): TextFont {
    const o = this.objs;
    const enc = nameOfValue(o.get(dict.entries.get('Encoding')));
    if (enc !== 'Identity-H') ineligible(enc === 'Identity-V' ? 'font: vertical' : 'font: CMap other than Identity-H');
    const df = o.get(dict.entries.get('DescendantFonts'));
    const cid = o.dict(Array.isArray(df) ? df[0] : df);
    if (!cid) ineligible('font: no descendant font');
    const sub = nameOfValue(o.get(cid.entries.get('Subtype')));
    if (sub !== 'CIDFontType2') ineligible(`font: Type0 over ${sub ?? 'unknown'}`);
    if (cid.entries.has('FontMatrix') || dict.entries.has('FontMatrix')) ineligible('font: FontMatrix');
    const descriptorRef = cid.entries.get('FontDescriptor');
    const descriptor = o.dict(descriptorRef);
    if (!descriptor) ineligible('font: Type0 without FontDescriptor');
    this.claimDescriptor(descriptorRef, dict);
    if (!descriptor.entries.has('FontFile2') || descriptor.entries.has('FontFile') || descriptor.entries.has('FontFile3')) ineligible('font: Type0 not embedded as TrueType');
    checkTrueTypeProgram(this.objs.stream(descriptor.entries.get('FontFile2')).data);
    // pdf.js needs a font name (FontName or BaseFont); with the program read, it does not use it for text.
    const fontNameV = o.get(descriptor.entries.get('FontName'));
    if (fontNameV !== undefined && nameOfValue(fontNameV) === undefined) ineligible('font: FontName not a name');
    if (nameOfValue(fontNameV) === undefined && nameOfValue(o.get(cid.entries.get('BaseFont'))) === undefined) ineligible('font: no font name');
    // pdf.js reads the descendant's /ToUnicode first, then the Type0 dictionary's.
    const tu = this.toUnicode(cid.entries.has('ToUnicode') ? cid : dict);
    if (!tu || tu.length === 0) ineligible('font: Type0 without ToUnicode');
    const dw = o.get(cid.entries.get('DW'));
    const defaultWidth = typeof dw === 'number' ? Math.ceil(dw) : 1000;
    const widths: (number | undefined)[] = [];
    const w = o.get(cid.entries.get('W'));
    if (w !== undefined) {
      if (!Array.isArray(w)) ineligible('font: bad W');
      for (let i = 0; i < w.length; i++) {
        let start = o.get(w[i++]);
        if (!isInt(start)) ineligible('font: bad W');
        const code = o.get(w[i]);
        if (Array.isArray(code)) {
          for (const c of code) {
            const width = o.get(c);
            if (typeof width === 'number') widths[start] = width;
            start++;
          }
        } else if (isInt(code)) {
          const width = o.get(w[++i]);
          if (typeof width !== 'number') ineligible('font: bad W');
          if (code - start > 0x10000) ineligible('font: bad W');
          for (let j = start; j <= code; j++) widths[j] = width;
        } else ineligible('font: bad W');
        if (start > 0x10000) ineligible('font: bad W');
      }
    }
    return new IdentityFont(tu, widths, defaultWidth);
  }

  /**
   * pdf.js aliases a font dictionary to an earlier one that shares its FontDescriptor when a hash
   * of some of their entries (encoding, FirstChar/LastChar, ToUnicode bytes, Widths, W) matches,
   * and then shows the second with the first one's font. Sharing is fine here when those entries
   * certainly differ (no alias) or the two dictionaries are identical (an alias changes nothing).
   */
  private claimDescriptor(ref: PdfValue | undefined, font: PdfDict): void {
    if (!isRef(ref)) return;
    const key = `${ref.num}`;
    const owners = this.descriptorOwners.get(key) ?? [];
    for (const other of owners) {
      if (other === font || canonical(other) === canonical(font)) continue;
      if (this.hashInputs(other) !== this.hashInputs(font)) continue;
      ineligible('font: shared FontDescriptor');
    }
    owners.push(font);
    this.descriptorOwners.set(key, owners);
  }

  /**
   * Parts of pdf.js's font hash this reader computes exactly as pdf.js feeds them in: the raw
   * /Encoding (a name, a reference as a reference, a dictionary's names and Differences),
   * FirstChar-LastChar, and the /Widths entries. Two fonts that differ here hash differently in
   * pdf.js; two that agree may or may not (ToUnicode bytes and the like are not compared).
   */
  private hashInputs(d: PdfDict): string {
    const o = this.objs;
    const fc = o.get(d.entries.get('FirstChar'));
    const lc = o.get(d.entries.get('LastChar'));
    const widths = o.get(d.entries.get('Widths'));
    const enc = d.entries.get('Encoding');
    const encKey = isDict(enc) ? [...enc.entries.values()].map((v) => canonical(v)).join(' ') : canonical(enc);
    return `${isInt(fc) ? fc : '-'}-${isInt(lc) ? lc : '-'}|${Array.isArray(widths) ? widths.map((v) => canonical(v)).join(',') : '-'}|${encKey}`;
  }

  private toUnicode(dict: PdfDict): UnicodeMap | undefined {
    const v = dict.entries.get('ToUnicode');
    if (v === undefined) return undefined;
    const resolved = this.objs.get(v);
    if (nameOfValue(resolved) !== undefined) ineligible('unicode: ToUnicode name');
    return readToUnicode(this.objs.stream(v).data);
  }
}
