/**
 * Seeded random pages over every kind of font the reader supports at once — standard 14 in
 * WinAnsi and StandardEncoding, a TrueType font without a program (MacRoman by its symbolic
 * flag), a /ToUnicode font whose codes map to ligatures, combining marks, no-break and zero-width
 * characters and a surrogate pair, and a Type0 /Identity-H font over an embedded TrueType program —
 * with marked content, images, ExtGStates, paths, rendering modes and skewed matrices between the
 * text operators; every page compared item by item with pdf.js.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'vitest';
import { type RawObject, expectSameAsPdfJs, pagesPdf } from './harness.js';
import { rng } from '../../../helpers/seeded-random.js';

const require = createRequire(import.meta.url);
const TTF = readFileSync(require.resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'));


const PAGES = 2;
const X = 3 + 2 * PAGES; // first extra object
const RES = `<< /Font << /F1 ${X} 0 R /F2 ${X + 1} 0 R /F3 ${X + 2} 0 R /F4 ${X + 3} 0 R /F5 ${X + 5} 0 R /F6 ${X + 7} 0 R >> /XObject << /Im1 ${X + 12} 0 R /Fm1 ${X + 13} 0 R >> /ExtGState << /G1 << /CA 0.5 /ca 0.7 >> >> >>`;
const u16 = (s: string): string => Buffer.from(s, 'utf16le').swap16().toString('hex');
const EXTRA: RawObject[] = [
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Italic /Encoding /WinAnsiEncoding >>' },
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' },
  { body: `<< /Type /Font /Subtype /TrueType /BaseFont /Glyphs /FirstChar 32 /LastChar 255 /Widths [${Array.from({ length: 224 }, (_, i) => 300 + (i * 37) % 500).join(' ')}] /FontDescriptor ${X + 4} 0 R >>` },
  { body: '<< /Type /FontDescriptor /FontName /Glyphs /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 /MissingWidth 444 >>' },
  { body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding /ToUnicode ${X + 6} 0 R >>` },
  {
    body: '<< >>',
    stream: `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def
1 begincodespacerange <00> <FF> endcodespacerange
7 beginbfchar
<41> <${u16('ffi')}>
<42> <0301>
<43> <00A0>
<44> <200B>
<45> <${u16('\u{1F600}')}>
<46> <FB01>
<47> <2003>
endbfchar
1 beginbfrange <61> <7A> <0061> endbfrange
endcmap end end`,
    flate: true,
  },
  { body: `<< /Type /Font /Subtype /Type0 /BaseFont /AAAAAA+LiberationSans /Encoding /Identity-H /DescendantFonts [${X + 8} 0 R] /ToUnicode ${X + 11} 0 R >>` },
  { body: `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /AAAAAA+LiberationSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${X + 9} 0 R /W [1 [250 260 270 280 290 300 310 320 330 340] 20 40 555] /DW 600 /CIDToGIDMap /Identity >>` },
  { body: `<< /Type /FontDescriptor /FontName /AAAAAA+LiberationSans /Flags 32 /FontBBox [-203 -303 1050 910] /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 729 /StemV 80 /FontFile2 ${X + 10} 0 R >>` },
  { body: `<< /Length1 ${TTF.length} >>`, stream: TTF, flate: true },
  { body: '<< >>', stream: `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Y def\n1 begincodespacerange <0000> <FFFF> endcodespacerange\n2 beginbfrange <0001> <001A> <0041> <0020> <0030> <0061> endbfrange\nendcmap end end` },
  { body: '<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 >>', stream: Buffer.from([77]) },
  { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 600 800] /Matrix [0.9 0 0 0.9 30 -20] >>', stream: 'BT /F2 9 Tf 40 300 Td (form text, in Times) Tj 0 -11 Td [(kern) -300 (ed)] TJ ET q 2 Tc BT /F5 8 Tf 60 280 Td <41424344> Tj ET Q' },
];

const WORDS = ['the', 'quick', 'Brown', 'fox', 'café', 'naïve', '—', '“q”', '…', '12.50', '€', 'AB', 'CDEFG', ' ', '  ', 'µ±', '\xa0x'];

function randomContent(r: () => number): string {
  const pick = <T,>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const num = (lo: number, hi: number, dp = 2): string => (lo + r() * (hi - lo)).toFixed(dp);
  let font = 1;
  const str = (): string => {
    if (font === 6) return `<${Array.from({ length: 1 + Math.floor(r() * 12) }, () => (r() < 0.15 ? 0x20 : r() < 0.5 ? 1 + Math.floor(r() * 26) : 0x21 + Math.floor(r() * 16)).toString(16).padStart(4, '0')).join('')}>`;
    const words = Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(WORDS)).join(pick([' ', ' ', '', '  ']));
    return `<${Buffer.from(words, 'latin1').toString('hex')}>`;
  };
  const out: string[] = [];
  let depth = 0;
  // q/Q save and restore the font too: the generator follows, so each string suits the font it is shown in.
  const saved: number[] = [];
  const setFont = (): string => {
    font = 1 + Math.floor(r() * 6);
    return `/F${font} ${pick(['8', '10', '12', '9.5', '15', '1'])} Tf`;
  };
  for (let i = 0; i < 50; i++) {
    const k = r();
    if (k < 0.04 && depth < 4) {
      out.push('q');
      saved.push(font);
      depth++;
    } else if (k < 0.08 && depth > 0) {
      out.push('Q');
      font = saved.pop()!;
      depth--;
    } else if (k < 0.11) out.push(`${pick(['1 0 0 1', '1.5 0 0 1.5', '0 1 -1 0', '0.96 0.28 -0.28 0.96', '1 0.1 0.2 1'])} ${num(-20, 200)} ${num(-20, 200)} cm`);
    else if (k < 0.17) out.push(`BT ${setFont()} ${num(0, 600)} ${num(0, 800)} Td`);
    else if (k < 0.2) out.push('ET');
    else if (k < 0.23) out.push(`${num(-1, 2)} Tc`);
    else if (k < 0.26) out.push(`${num(-3, 8)} Tw`);
    else if (k < 0.28) out.push(`${pick(['100', '90', '130', '-100'])} Tz`);
    else if (k < 0.3) out.push(`${num(-4, 4)} Ts`);
    else if (k < 0.33) out.push(`${num(8, 20)} TL T*`);
    else if (k < 0.38) out.push(`${num(-40, 120)} ${num(-30, 10)} Td`);
    else if (k < 0.4) out.push(`${pick(['1 0 0 1', '0 1 -1 0', '1 0.2 0 1', '-1 0 0 1'])} ${num(0, 600)} ${num(0, 800)} Tm`);
    else if (k < 0.46) out.push(setFont());
    else if (k < 0.48) out.push(pick(['/Span BMC', '/P << /MCID 3 >> BDC', 'EMC', '/Artifact BMC', '/Tag MP', '/Tag << /A 1 >> DP']));
    else if (k < 0.5) out.push(pick(['q 50 0 0 50 100 100 cm /Im1 Do Q', '/Fm1 Do', 'q 1 0 0 1 10 -40 cm /Fm1 Do Q', '/G1 gs', '2 Tr', '0 Tr', '0.5 g 10 10 50 50 re f', '1 0 0 RG 0 0 m 100 100 l S', '[2 1] 0 d']));
    else if (k < 0.65) out.push(`[${Array.from({ length: 1 + Math.floor(r() * 5) }, () => (r() < 0.5 ? str() : pick(['-250', '-1000', '120', '-60', '0', '-30', '500', num(-400, 100, 0)]))).join(' ')}] TJ`);
    else if (k < 0.7) out.push(`${str()} '`);
    else if (k < 0.72) out.push(`${num(0, 3)} ${num(0, 1)} ${str()} "`);
    else out.push(`${str()} Tj`);
  }
  while (depth-- > 0) out.push('Q');
  return `BT /F1 11 Tf 72 720 Td\n${out.join('\n')}\nET`;
}

describe('simple reader: random pages over every supported font kind, against pdf.js', () => {
  for (let seed = 1; seed <= Number(process.env.SIMPLE_PDF_SEEDS ?? 60); seed++) {
    it(`seed ${seed}`, async () => {
      const r = rng(1000 + seed);
      const pages = Array.from({ length: PAGES }, () => ({ content: randomContent(r), resources: RES, flate: r() < 0.5 }));
      await expectSameAsPdfJs(pagesPdf(pages, EXTRA));
    });
  }
});
