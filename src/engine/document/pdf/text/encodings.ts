/**
 * The simple-font encodings the simple reader supports (ISO 32000-1 Annex D: WinAnsi, Standard,
 * MacRoman) as pdf.js 5.4.296
 * uses them, and the glyph names → Unicode it needs for them. WinAnsi is Annex D's table with
 * its notes applied as pdf.js applies them (codes 127, 129, 141, 143, 144, 157 are `bullet`;
 * 160 is `space`, 173 `hyphen`). Names are checked against pdf.js by the tests (every code of
 * every encoding, through pdf.js, for every standard font).
 */
import { WIN_ANSI } from './standard-font-data.js';

export type EncodingTable = readonly string[];

function build(): { winAnsi: string[]; standard: string[]; macRoman: string[]; unicode: Map<string, number> } {
  const winAnsi = new Array<string>(256).fill('');
  const unicode = new Map<string, number>();
  // pdf-lib's WinAnsi table (unicode → [code, name]) is Annex D's; it names 159 `ydieresis`
  // where Annex D and pdf.js say `Ydieresis` (U+0178).
  for (const [u, code, name] of WIN_ANSI) {
    const n = code === 159 ? 'Ydieresis' : name;
    winAnsi[code] = n;
    if (!unicode.has(n) && Number(u) !== 0xa0 && Number(u) !== 0xad) unicode.set(n, Number(u));
  }
  for (const code of [127, 129, 141, 143, 144, 157]) winAnsi[code] = 'bullet';
  winAnsi[160] = 'space';
  winAnsi[173] = 'hyphen';
  unicode.set('Ydieresis', 0x178).set('ydieresis', 0xff);

  // StandardEncoding: ASCII as WinAnsi but for the quotes, and Annex D's upper half (octal).
  const standard = new Array<string>(256).fill('');
  for (let c = 32; c < 127; c++) standard[c] = winAnsi[c]!;
  standard[0o47] = 'quoteright';
  standard[0o140] = 'quoteleft';
  const upper: Record<number, string> = {
    0o241: 'exclamdown', 0o242: 'cent', 0o243: 'sterling', 0o244: 'fraction', 0o245: 'yen', 0o246: 'florin', 0o247: 'section',
    0o250: 'currency', 0o251: 'quotesingle', 0o252: 'quotedblleft', 0o253: 'guillemotleft', 0o254: 'guilsinglleft', 0o255: 'guilsinglright',
    0o256: 'fi', 0o257: 'fl', 0o261: 'endash', 0o262: 'dagger', 0o263: 'daggerdbl', 0o264: 'periodcentered', 0o266: 'paragraph',
    0o267: 'bullet', 0o270: 'quotesinglbase', 0o271: 'quotedblbase', 0o272: 'quotedblright', 0o273: 'guillemotright', 0o274: 'ellipsis',
    0o275: 'perthousand', 0o277: 'questiondown', 0o301: 'grave', 0o302: 'acute', 0o303: 'circumflex', 0o304: 'tilde', 0o305: 'macron',
    0o306: 'breve', 0o307: 'dotaccent', 0o310: 'dieresis', 0o312: 'ring', 0o313: 'cedilla', 0o315: 'hungarumlaut', 0o316: 'ogonek',
    0o317: 'caron', 0o320: 'emdash', 0o341: 'AE', 0o343: 'ordfeminine', 0o350: 'Lslash', 0o351: 'Oslash', 0o352: 'OE',
    0o353: 'ordmasculine', 0o361: 'ae', 0o365: 'dotlessi', 0o370: 'lslash', 0o371: 'oslash', 0o372: 'oe', 0o373: 'germandbls',
  };
  for (const [c, n] of Object.entries(upper)) standard[Number(c)] = n;
  // Adobe Glyph List values of the StandardEncoding names WinAnsi lacks.
  const extra: Record<string, number> = {
    fraction: 0x2044, fi: 0xfb01, fl: 0xfb02, breve: 0x2d8, dotaccent: 0x2d9, ring: 0x2da, hungarumlaut: 0x2dd, ogonek: 0x2db,
    caron: 0x2c7, dotlessi: 0x131, Lslash: 0x141, lslash: 0x142,
  };
  for (const [n, u] of Object.entries(extra)) unicode.set(n, u);

  // MacRomanEncoding as pdf.js has it: Annex D's table plus the Mac OS Roman symbols Annex D
  // leaves out (notequal, infinity, …, apple) and 202 as `space`.
  const macRoman = new Array<string>(256).fill('');
  for (let c = 32; c < 127; c++) macRoman[c] = winAnsi[c]!;
  const macUpper = `Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave
ecircumflex edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex odieresis otilde uacute ugrave ucircumflex udieresis
dagger degree cent sterling section bullet paragraph germandbls registered copyright trademark acute dieresis notequal AE Oslash
infinity plusminus lessequal greaterequal yen mu partialdiff summation product pi integral ordfeminine ordmasculine Omega ae oslash
questiondown exclamdown logicalnot radical florin approxequal Delta guillemotleft guillemotright ellipsis space Agrave Atilde Otilde OE oe
endash emdash quotedblleft quotedblright quoteleft quoteright divide lozenge ydieresis Ydieresis fraction currency guilsinglleft guilsinglright fi fl
daggerdbl periodcentered quotesinglbase quotedblbase perthousand Acircumflex Ecircumflex Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave Oacute Ocircumflex
apple Ograve Uacute Ucircumflex Ugrave dotlessi circumflex tilde macron breve dotaccent ring cedilla hungarumlaut ogonek caron`.split(/\s+/);
  macUpper.forEach((n, i) => (macRoman[128 + i] = n));
  // Adobe Glyph List values of the MacRoman names the tables above lack.
  const macExtra: Record<string, number> = {
    notequal: 0x2260, infinity: 0x221e, lessequal: 0x2264, greaterequal: 0x2265, partialdiff: 0x2202, summation: 0x2211, product: 0x220f,
    pi: 0x3c0, integral: 0x222b, Omega: 0x2126, radical: 0x221a, approxequal: 0x2248, Delta: 0x2206, lozenge: 0x25ca, apple: 0xf8ff,
  };
  for (const [n, u] of Object.entries(macExtra)) unicode.set(n, u);
  return { winAnsi, standard, macRoman, unicode };
}

let tables: ReturnType<typeof build> | undefined;
const get = (): ReturnType<typeof build> => (tables ??= build());

export const winAnsiEncoding = (): EncodingTable => get().winAnsi;
export const standardEncoding = (): EncodingTable => get().standard;
export const macRomanEncoding = (): EncodingTable => get().macRoman;
/** Unicode of a glyph name, for the names above only (undefined: not known here). */
export const glyphUnicode = (name: string): number | undefined => get().unicode.get(name);

/** pdf.js's "symbols fonts": a non-embedded one never takes its /Encoding's base encoding. */
export const SYMBOLS_FONTS = new Set(['Dingbats', 'Symbol', 'ZapfDingbats', 'Wingdings', 'Wingdings-Bold', 'Wingdings-Regular']);
