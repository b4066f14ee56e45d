/**
 * The standard 14 fonts, not embedded (pdf.js in Node has no font data for them): every code of
 * WinAnsiEncoding and of StandardEncoding through pdf.js, each on its own line so that each
 * glyph's width is compared as an item's width, and pdf-lib documents as written in practice.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { readSimplePdfFile } from '../../../../src/engine/document/pdf/text/simple-reader.js';
import { expectIneligible, expectSameAsPdfJs, firstExtra, pagesPdf } from './harness.js';

const TWELVE = [
  'Courier', 'Courier-Bold', 'Courier-Oblique', 'Courier-BoldOblique',
  'Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Helvetica-BoldOblique',
  'Times-Roman', 'Times-Bold', 'Times-Italic', 'Times-BoldItalic',
];

const hex = (c: number): string => c.toString(16).padStart(2, '0');

/** Codes `from`…`to`, one per line, 9 pt, in columns so they stay on the page. */
function everyCode(codes: number[]): string {
  const lines = ['BT /F1 9 Tf'];
  codes.forEach((c, i) => {
    const x = 30 + Math.floor(i / 70) * 150;
    const y = 760 - (i % 70) * 10.5;
    lines.push(`1 0 0 1 ${x} ${y} Tm <${hex(c)}> Tj <${hex(c)}${hex(c)}> Tj`);
  });
  lines.push('ET');
  return lines.join('\n');
}

const codes = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('simple reader: standard 14 fonts', () => {
  for (const name of TWELVE) {
    it(`${name}: every WinAnsi code 32–255, glyph by glyph`, async () => {
      const pdf = pagesPdf(
        [
          { content: everyCode(codes(32, 143)), resources: `<< /Font << /F1 ${firstExtra(2)} 0 R >> >>` },
          { content: everyCode(codes(144, 255)), resources: `<< /Font << /F1 ${firstExtra(2)} 0 R >> >>` },
        ],
        [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /${name} /Encoding /WinAnsiEncoding >>` }],
      );
      await expectSameAsPdfJs(pdf);
    });
  }

  it('StandardEncoding (no /Encoding) for Times-Roman and Helvetica: every named code', async () => {
    const named = [...codes(32, 126), ...[0o241, 0o242, 0o243, 0o244, 0o245, 0o246, 0o247, 0o250, 0o251, 0o252, 0o253, 0o254, 0o255, 0o256, 0o257, 0o261, 0o262, 0o263, 0o264, 0o266, 0o267, 0o270, 0o271, 0o272, 0o273, 0o274, 0o275, 0o277, 0o301, 0o302, 0o303, 0o304, 0o305, 0o306, 0o307, 0o310, 0o312, 0o313, 0o315, 0o316, 0o317, 0o320, 0o341, 0o343, 0o350, 0o351, 0o352, 0o353, 0o361, 0o365, 0o370, 0o371, 0o372, 0o373]];
    for (const name of ['Times-Roman', 'Helvetica', 'Courier']) {
      const pdf = pagesPdf(
        [{ content: everyCode(named.slice(0, 140)), resources: `<< /Font << /F1 ${firstExtra(1)} 0 R >> >>` }],
        [{ body: `<< /Type /Font /Subtype /Type1 /BaseFont /${name} >>` }],
      );
      await expectSameAsPdfJs(pdf);
    }
  });

  it('codes the encoding leaves unnamed (controls, 127–160): drawn as spaces by Type1, as their own number by TrueType', async () => {
    const unnamed = [...codes(1, 31), ...codes(127, 160), 0o260, 0o265, 0o276, 0o300, 0o311, 0o314, 0o321, 0o340, 0o342, 0o360, 0o377];
    const fonts = [
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold /Encoding << /Differences [65 /.notdef 66 /emdash] >> >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 32 /LastChar 34 /Widths [0 500 600] >>',
    ];
    for (const font of fonts) {
      const pdf = pagesPdf([{ content: everyCode([...unnamed, 65, 66, 67]), resources: `<< /Font << /F1 ${firstExtra(1)} 0 R >> >>` }], [{ body: font }]);
      await expectSameAsPdfJs(pdf);
    }
  });

  it('Symbol and ZapfDingbats are not eligible', () => {
    for (const name of ['Symbol', 'ZapfDingbats']) {
      const pdf = pagesPdf([{ content: 'BT /F1 12 Tf 72 700 Td (abc) Tj ET', resources: `<< /Font << /F1 ${firstExtra(1)} 0 R >> >>` }], [
        { body: `<< /Type /Font /Subtype /Type1 /BaseFont /${name} >>` },
      ]);
      expectIneligible(pdf, 'font: symbolic');
    }
  });

  it('reads pdf-lib documents in all 12 text fonts, with accents and punctuation, as pdf.js does', async () => {
    const doc = await PDFDocument.create();
    const samples = [
      'Hello, world. Naïve café — “quotes” and ‘single’ … 50 € • done.',
      'Ærøskøbing, Ñandú, Œuvre, façade, Größe: 3½ × 2¼ ± 0.5°; ©®™ §¶ †‡ ‰ «guillemets» ‹single›',
      'Tabs\tare not drawn; brackets [x] {y} (z) <a> /slash\\ back | pipe ~ tilde ^ caret _ under',
    ];
    for (const name of TWELVE) {
      const font = await doc.embedFont(name as StandardFonts);
      const page = doc.addPage([595, 842]);
      let y = 800;
      for (const size of [7, 10, 12, 18]) {
        for (const s of samples) {
          page.drawText(s.replace('\t', ' '), { x: 40, y, size, font, maxWidth: 520, lineHeight: size * 1.2 });
          y -= size * 3;
        }
      }
    }
    const pdf = Buffer.from(await doc.save());
    await expectSameAsPdfJs(pdf, 12);
  });

  it('reads a 100-page pdf-lib Times-Roman document (page count from /Count, first 10 pages of text)', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    const para = 'The quick brown fox jumps over the lazy dog, while the committee deliberates on the annual budget and its many footnotes. ';
    for (let p = 0; p < 100; p++) {
      const page = doc.addPage();
      page.drawText(`Page ${p + 1}. ${para.repeat(12)}`, { x: 50, y: 740, size: 11, font, maxWidth: 500, lineHeight: 14 });
    }
    const pdf = Buffer.from(await doc.save());
    const r = readSimplePdfFile(pdf);
    expect(r.ok && r.reading.pages).toBe(100);
    await expectSameAsPdfJs(pdf);
  });
});
