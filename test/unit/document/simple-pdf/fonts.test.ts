/**
 * Fonts beyond the standard 14: non-embedded TrueType with a descriptor, /Differences, /ToUnicode
 * CMaps (ranges, arrays, carries, ligatures, surrogates, marks, invisible and compatibility
 * characters), an embedded TrueType program (Liberation Sans, shipped with pdfjs-dist) as a simple
 * font and as a Type0 Identity-H font — each compared with pdf.js — and the fonts the reader must
 * decline.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'vitest';
import { type RawObject, expectIneligible, expectSameAsPdfJs, firstExtra, pagesPdf } from './harness.js';

const require = createRequire(import.meta.url);
const TTF = readFileSync(require.resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'));
/** A bare CFF program (pdfjs-dist ships its Foxit fonts as CFF despite the .pfb name). */
const CFF = readFileSync(require.resolve('pdfjs-dist/standard_fonts/FoxitSerif.pfb'));

const hex = (s: string): string => Buffer.from(s, 'latin1').toString('hex');
const u16 = (cp: number): string => Buffer.from(String.fromCodePoint(cp), 'utf16le').swap16().toString('hex');
const cmap = (body: string): RawObject => ({
  body: '<< >>',
  stream: `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <00> <FF> endcodespacerange
${body}
endcmap CMapName currentdict /CMap defineresource pop end end`,
  flate: true,
});
const widths = (n: number, w = 500): string => `[${Array.from({ length: n }, (_, i) => w + (i % 7) * 10).join(' ')}]`;

/** One page with font F1 = extra[0] (and more extras after it). */
const page = (content: string, extra: RawObject[]): Buffer => pagesPdf([{ content, resources: `<< /Font << /F1 ${firstExtra(1)} 0 R >> >>` }], extra);
const F = firstExtra(1);

describe('simple reader: fonts against pdf.js', () => {
  it('non-embedded TrueType with a FontDescriptor (WinAnsi, Standard by flags, /Widths, MissingWidth)', async () => {
    const text = `BT /F1 12 Tf 72 700 Td <${hex('Arial text: café, naïve — 12 €')}> Tj 0 -20 Td <${hex('quote\'s `tick`')}> Tj ET`;
    for (const [enc, flags] of [['/Encoding /WinAnsiEncoding', 32], ['', 32], ['', 0], ['/Encoding /WinAnsiEncoding', 4 + 32]] as const) {
      await expectSameAsPdfJs(
        page(text, [
          { body: `<< /Type /Font /Subtype /TrueType /BaseFont /Arial ${enc} /FirstChar 32 /LastChar 255 /Widths ${widths(224)} /FontDescriptor ${F + 1} 0 R >>` },
          { body: `<< /Type /FontDescriptor /FontName /Arial /Flags ${flags} /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 /MissingWidth 333 >>` },
        ]),
      );
    }
  });

  it('MacRomanEncoding (by name, and as the default of symbolic fonts), every code 32–255', async () => {
    const lines = ['BT /F1 9 Tf'];
    for (let c = 32; c < 256; c++) lines.push(`1 0 0 1 ${30 + Math.floor((c - 32) / 75) * 180} ${780 - ((c - 32) % 75) * 10} Tm <${c.toString(16)}> Tj`);
    const text = `${lines.join('\n')} ET`;
    await expectSameAsPdfJs(page(text, [{ body: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /MacRomanEncoding >>' }]));
    await expectSameAsPdfJs(
      page(text, [
        { body: `<< /Type /Font /Subtype /TrueType /BaseFont /Glyphs /FirstChar 32 /LastChar 255 /Widths ${widths(224)} /FontDescriptor ${F + 1} 0 R >>` },
        { body: '<< /Type /FontDescriptor /FontName /Glyphs /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>' },
      ]),
    );
  });

  it('/Differences over WinAnsi and over StandardEncoding, with .notdef entries', async () => {
    const text = `BT /F1 14 Tf 72 700 Td <${hex('ABCabc')}${'8081828384'}> Tj 0 -20 Td [<41> -500 <61>] TJ ET`;
    for (const base of ['/BaseEncoding /WinAnsiEncoding', '']) {
      await expectSameAsPdfJs(
        page(text, [
          { body: `<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding ${base} /Differences [65 /B /.notdef /emdash 97 /fi /fl /Lslash 128 /quotedblleft /quotedblright /bullet /Euro /dotlessi] >> >>` },
        ]),
      );
    }
  });

  it('a /ToUnicode CMap on a non-embedded font: bfchar, bfrange (string, array, carry), ligatures, surrogates, marks, invisible and compatibility characters', async () => {
    const tu = cmap(`9 beginbfchar
<41> <${u16(0x1f600)}>
<42> <006600660069>
<43> <0301>
<44> <200B>
<45> <00A0>
<46> <FB01>
<47> <0020>
<48> <>
<49> <00>
endbfchar
3 beginbfrange
<50> <55> <0050>
<56> <58> [<0041> <0042> <0043>]
<60> <63> <00FE>
endbfrange`);
    const text = `BT /F1 12 Tf 72 700 Td <${hex('ABCDEFGHI')}> Tj 0 -20 Td <${hex('PQRSTUVWX')}> Tj 0 -20 Td <${hex('`abc')}> Tj 0 -20 Td <${hex('xyz A C B')}> Tj ET`;
    await expectSameAsPdfJs(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode ${F + 1} 0 R >>` }, tu]));
    await expectSameAsPdfJs(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode ${F + 1} 0 R >>` }, tu]));
  });

  it('an embedded TrueType program as a simple font, with /ToUnicode for every code shown', async () => {
    const tu = cmap(`1 beginbfrange
<20> <7E> <0020>
endbfrange
2 beginbfchar
<E9> <00E9>
<97> <2014>
endbfchar`);
    const text = `BT /F1 11 Tf 72 700 Td <${hex('Embedded Liberation Sans: caf\xe9 \x97 done.')}> Tj 0 -14 Td [<${hex('Ke')}> 80 <${hex('rn')}> -400 <${hex('ing')}>] TJ ET`;
    await expectSameAsPdfJs(
      page(text, [
        { body: `<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+LiberationSans /FirstChar 32 /LastChar 255 /Widths ${widths(224, 480)} /Encoding /WinAnsiEncoding /FontDescriptor ${F + 1} 0 R /ToUnicode ${F + 3} 0 R >>` },
        { body: `<< /Type /FontDescriptor /FontName /ABCDEF+LiberationSans /Flags 32 /FontBBox [-203 -303 1050 910] /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 729 /StemV 80 /FontFile2 ${F + 2} 0 R >>` },
        { body: `<< /Length1 ${TTF.length} >>`, stream: TTF, flate: true },
        tu,
      ]),
    );
  });

  it('embedded Type1 (a program pdf.js may or may not read) and CFF programs, with /ToUnicode and /Differences', async () => {
    const tu = cmap(`1 beginbfrange
<20> <7E> <0020>
endbfrange
1 beginbfchar
<01> <FB01>
endbfchar`);
    const text = `BT /F1 11 Tf 72 700 Td <${hex('Type1 and CFF: office ')}01${hex(' done.')}> Tj 0 -14 Td [<${hex('Ke')}> 80 <${hex('rn')}> -400 <${hex('ing')}>] TJ ET`;
    const font = (file: string, flags: number): RawObject[] => [
      { body: `<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Serif /FirstChar 1 /LastChar 126 /Widths ${widths(126, 450)} /Encoding << /Differences [1 /fi] >> /FontDescriptor ${F + 1} 0 R /ToUnicode ${F + 3} 0 R >>` },
      { body: `<< /Type /FontDescriptor /FontName /ABCDEF+Serif /Flags ${flags} /FontBBox [-200 -300 1000 900] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 ${file} ${F + 2} 0 R >>` },
    ];
    const type1Program = '%!PS-AdobeFont-1.0: ABCDEF+Serif 001.000\n12 dict begin\n/FontName /ABCDEF+Serif def\n/FontMatrix [0.001 0 0 0.001 0 0] readonly def\n/Encoding StandardEncoding def\ncurrentdict end\ncurrentfile eexec\n';
    for (const flags of [32, 4, 6]) {
      await expectSameAsPdfJs(page(text, [...font('/FontFile3', flags), { body: '<< /Subtype /Type1C >>', stream: CFF, flate: true }, tu]));
      await expectSameAsPdfJs(page(text, [...font('/FontFile', flags), { body: `<< /Length1 ${type1Program.length} /Length2 64 /Length3 0 >>`, stream: type1Program + '\xd9\xd6'.repeat(32) }, tu]));
    }
  });

  const type0 = (toUnicode: string, w = '[3 [278 355] 36 [667 667 722] 68 70 556]', extra = ''): RawObject[] => [
    { body: `<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+LiberationSans /Encoding /Identity-H /DescendantFonts [${F + 1} 0 R] /ToUnicode ${F + 4} 0 R ${extra} >>` },
    { body: `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+LiberationSans /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${F + 2} 0 R /W ${w} /DW 1000.4 /CIDToGIDMap /Identity >>` },
    { body: `<< /Type /FontDescriptor /FontName /ABCDEF+LiberationSans /Flags 32 /FontBBox [-203 -303 1050 910] /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 729 /StemV 80 /FontFile2 ${F + 3} 0 R >>` },
    { body: `<< /Length1 ${TTF.length} >>`, stream: TTF, flate: true },
    {
      body: '<< >>',
      stream: `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
${toUnicode}
endcmap CMapName currentdict /CMap defineresource pop end end`,
    },
  ];

  it('Type0 /Identity-H over an embedded CIDFontType2, /W and /DW, /ToUnicode (code 0x0020 takes word spacing, as in pdf.js)', async () => {
    const tu = `3 beginbfrange
<0003> <0004> <0020>
<0024> <0026> <0041>
<0044> <0046> <0061>
endbfrange
2 beginbfchar
<0020> <002A>
<0100> <00E9>
endbfchar`;
    const text = `BT /F1 12 Tf 72 700 Td 5 Tw <00240044000300250045000400260046> Tj 0 -20 Td [<0024> -200 <0044> 50 <0003>] TJ <0020 0100 0020> Tj ET`;
    await expectSameAsPdfJs(page(text, type0(tu)));
  });

  it('declines fonts whose text pdf.js takes from somewhere this reader does not read', () => {
    const text = 'BT /F1 12 Tf 72 700 Td (abc) Tj ET';
    const desc = (file: string): RawObject => ({ body: `<< /Type /FontDescriptor /FontName /X /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 ${file} >>` });
    expectIneligible(page(text, [{ body: '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1 1] /FontMatrix [1 0 0 1 0 0] /CharProcs << >> /Encoding << /Differences [97 /a] >> /FirstChar 97 /LastChar 99 /Widths [1 1 1] /Resources << >> >>' }]), 'font: Type3');
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /TrueType /BaseFont /X /FirstChar 97 /LastChar 99 /Widths [1 1 1] /FontDescriptor ${F + 1} 0 R >>` }, desc(`/FontFile2 ${F + 2} 0 R`), { body: '<< >>', stream: TTF, flate: true }]), 'font: no ToUnicode for embedded font');
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 97 /LastChar 99 /Widths [1 1 1] /FontDescriptor ${F + 1} 0 R >>` }, desc(`/FontFile ${F + 2} 0 R`), { body: '<< >>', stream: 'x' }]), 'font: bad Type1 program');
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 97 /LastChar 99 /Widths [1 1 1] /FontDescriptor ${F + 1} 0 R >>` }, desc(`/FontFile3 ${F + 2} 0 R`), { body: '<< /Subtype /Type1C >>', stream: 'x' }]), 'font: bad CFF program');
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 97 /LastChar 99 /Widths [1 1 1] /FontDescriptor ${F + 1} 0 R >>` }, desc(`/FontFile3 ${F + 2} 0 R`), { body: '<< /Subtype /OpenType >>', stream: 'x' }]), 'font: FontFile3 other than Type1C');
    // A Type1 program whose FontMatrix is not the standard one: pdf.js rescales the widths.
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 97 /LastChar 99 /Widths [1 1 1] /FontDescriptor ${F + 1} 0 R /ToUnicode ${F + 3} 0 R >>` }, desc(`/FontFile ${F + 2} 0 R`), { body: '<< >>', stream: '%!PS-AdobeFont-1.0: X\n/FontMatrix [0.002 0 0 0.002 0 0] readonly def\ncurrentfile eexec\n' }, cmap('1 beginbfrange <61> <63> <0061> endbfrange')]), 'font: Type1 FontMatrix');
    expectIneligible(page(text, [{ body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /MacExpertEncoding >>' }]), 'font: MacExpertEncoding');
    expectIneligible(page(text, [{ body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [97 /uni05D0] >> >>' }]), 'font: unknown glyph name');
    expectIneligible(page(text, [{ body: '<< /Type /Font /Subtype /Type1 /BaseFont /Arial >>' }]), 'font: non-standard font without FontDescriptor');
    expectIneligible(page('BT /F1 12 Tf 72 700 Td <00240044> Tj ET', type0('1 beginbfchar <0024> <0041> endbfchar')), 'font: code without ToUnicode');
    expectIneligible(page('BT /F1 12 Tf 72 700 Td <0024> Tj ET', type0('1 beginbfchar <0024> <0041> endbfchar').map((o, i) => (i === 0 ? { body: o.body.replace('Identity-H', 'Identity-V') } : o))), 'font: vertical');
    expectIneligible(page('BT /F1 12 Tf 72 700 Td <002400> Tj ET', type0('1 beginbfchar <0024> <0041> endbfchar')), 'font: odd byte count for Identity-H');
    // Hebrew through a ToUnicode CMap: pdf.js's bidi would reorder it.
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode ${F + 1} 0 R >>` }, cmap('1 beginbfrange <61> <63> <05D0> endbfrange')]), 'unicode: RTL');
    expectIneligible(page(text, [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode ${F + 1} 0 R >>` }, cmap('1 begincidrange <61> <63> 5 endcidrange')]), 'unicode: ToUnicode begincidrange');
  });
});
