/**
 * Document-level shapes: multi-stream contents (tokens spanning streams), object streams, page
 * trees, and what the reader must decline (encryption, edits, inline images, forms, malformed
 * content) — and every shared fixture PDF: either declined or exactly pdf.js's answer.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { readSimplePdfFile } from '../../../../src/engine/document/pdf/text/simple-reader.js';
import { describeFixtures, fixture } from '../../../helpers/fixtures.js';
import { appendUpdate, findObject } from '../build.js';
import { type RawObject, expectIneligible, expectSameAsPdfJs, firstExtra, pagesPdf, pdfjsText, rawPdf } from './harness.js';

const HELV: RawObject = { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' };
const RES = (n: number): string => `<< /Font << /F1 ${firstExtra(n)} 0 R >> >>`;
const one = (content: string, extra: RawObject[] = [HELV]): Buffer => pagesPdf([{ content, resources: RES(1) }], extra);

describe('simple reader: document shapes against pdf.js', () => {
  it('Contents as an array of streams, concatenated with no separator (tokens may span streams)', async () => {
    const objs: RawObject[] = [
      { body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>' },
      { body: '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 8 0 R >> >> /Contents [4 0 R 5 0 R 6 0 R 7 0 R] >>' },
      { body: '<< >>', stream: 'BT /F1 12 Tf 72 700 Td (first stream) Tj 0 -1', flate: true },
      { body: '<< >>', stream: '4 Td (second) Tj T', flate: false },
      { body: '<< >>', stream: '* (third) Tj ET\n' },
      { body: '<< >>', stream: 'BT /F1 10 Tf 72 600 Td [(split) -300 (TJ)] TJ ET', flate: true },
      HELV,
    ];
    await expectSameAsPdfJs(rawPdf(objs));
  });

  it('pdf-lib documents with and without object streams, several pages, page tree with intermediate nodes', async () => {
    for (const useObjectStreams of [true, false]) {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.HelveticaBold);
      for (let i = 0; i < 14; i++) doc.addPage().drawText(`Page ${i + 1} of many: lorem ipsum dolor sit amet.`, { x: 60, y: 700 - i * 10, size: 13, font });
      await expectSameAsPdfJs(Buffer.from(await doc.save({ useObjectStreams })), 10);
      await expectSameAsPdfJs(Buffer.from(await doc.save({ useObjectStreams })), 3);
    }
    const objs: RawObject[] = [
      { body: '<< /Type /Catalog /Pages 2 0 R >>' },
      { body: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 /MediaBox [0 0 300 300] /Resources << /Font << /F1 10 0 R >> >> >>' },
      { body: '<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 /Rotate 90 >>' },
      { body: '<< /Type /Page /Parent 2 0 R /Contents 9 0 R >>' },
      { body: '<< /Type /Page /Parent 3 0 R /Contents 7 0 R >>' },
      { body: '<< /Type /Page /Parent 3 0 R /Contents 8 0 R /Rotate 0 /CropBox [10 10 200 200] >>' },
      { body: '<< >>', stream: 'BT /F1 12 Tf 20 250 Td (first page, inherited resources) Tj 0 -20 Td (and rotation) Tj ET' },
      { body: '<< >>', stream: 'BT /F1 12 Tf 20 250 Td (second page) Tj 0 -20 Td (cropped) Tj ET' },
      { body: '<< >>', stream: 'BT /F1 12 Tf 20 250 Td (third page) Tj ET' },
      HELV,
    ];
    await expectSameAsPdfJs(rawPdf(objs));
    const r = readSimplePdfFile(rawPdf(objs), 2);
    expect(r.ok && r.reading.pages).toBe(3);
    expect(r.ok && r.reading.text).toBe((await pdfjsText(rawPdf(objs), 2)).text);
    expect(readSimplePdfFile(rawPdf(objs), 0)).toEqual({ ok: true, reading: { pages: 3, text: '' } });
  });

  it('images and font-less ExtGStates are ignored as pdf.js ignores them', async () => {
    const content = 'q 100 0 0 100 72 500 cm /Im1 Do Q /GS1 gs BT /F1 12 Tf 72 700 Td (before) Tj ET q /Im1 Do Q BT /F1 12 Tf 72 690 Td (after) Tj ET';
    const pdf = pagesPdf([{ content, resources: `<< /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> /ExtGState << /GS1 << /CA 0.5 >> >> >>` }], [
      HELV,
      { body: '<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 >>', stream: Buffer.from([128]) },
    ]);
    await expectSameAsPdfJs(pdf);
  });
});

describe('simple reader: form XObjects against pdf.js', () => {
  it('forms read in place: own and inherited resources, /Matrix, nesting, reuse, state carried in and not out', async () => {
    const TIMES: RawObject = { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Bold /Encoding /WinAnsiEncoding >>' };
    const content = `BT /F1 12 Tf 72 700 Td (before the form) Tj ET
/Fm1 Do
BT /F1 12 Tf 72 600 Td (between) Tj ET
q 1 0 0 1 0 -200 cm /Fm1 Do Q
BT /F1 10 Tf 72 650 Td (text state goes in:) Tj /Fm2 Do ( and continues here) Tj ET
/Fm3 Do (after Fm3, same font as before it) Tj
/Im0 Do`;
    const pdf = pagesPdf([{ content, resources: '<< /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R /Fm2 7 0 R /Fm3 8 0 R /Im0 10 0 R >> >>' }], [
      HELV,
      // Fm1: own resources where /F1 is Times, a Matrix, and a nested form.
      { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 600 800] /Matrix [1 0 0 1 20 -30] /Resources << /Font << /F1 9 0 R >> /XObject << /Fm2 7 0 R >> >> >>', stream: 'BT /F1 11 Tf 72 560 Td (inside Fm1, Times) Tj ET q 0.5 0 0 0.5 100 100 cm /Fm2 Do Q' },
      // Fm2: no resources (the caller's), no BT: uses the text state it is given.
      { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 600 800] >>', stream: '( [Fm2 text]) Tj 0 -14 Td (Fm2 second line) Tj' },
      // Fm3: Tf of the same name and size as the caller's keeps the caller's font (pdf.js skips the reload).
      { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 600 800] /Resources << /Font << /F1 9 0 R >> >> >>', stream: 'BT /F1 10 Tf 72 500 Td (Fm3, F1 at 10 as outside) Tj /F1 11 Tf ( now Times) Tj ET q Q' },
      TIMES,
      { body: '<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 >>', stream: Buffer.from([1]) },
    ]);
    await expectSameAsPdfJs(pdf);
    const r = readSimplePdfFile(pdf);
    const text = r.ok ? r.reading.text : '';
    for (const s of ['inside Fm1, Times', 'Fm2 second line', 'Fm3, F1 at 10 as outside', 'now Times', 'after Fm3']) expect(text).toContain(s);
  });
});

describe('simple reader: declines what it cannot reproduce', () => {
  it('inline images, ExtGState fonts, forms that contain themselves', () => {
    expectIneligible(one('BI /W 1 /H 1 /CS /G /BPC 8 ID \x80 EI BT /F1 12 Tf 72 700 Td (x) Tj ET'), 'content: inline image');
    expectIneligible(
      pagesPdf([{ content: '/GS1 gs BT 72 700 Td (x) Tj ET', resources: '<< /ExtGState << /GS1 << /Font [5 0 R 12] >> >> >>' }], [HELV]),
      'extgstate: Font',
    );
    expectIneligible(
      pagesPdf([{ content: 'BT /F1 12 Tf 72 700 Td (x) Tj ET /Fm1 Do', resources: '<< /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >>' }], [
        HELV,
        { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Fm1 6 0 R >> >> >>', stream: '/Fm1 Do' },
      ]),
      'form XObject: contains itself',
    );
  });

  it('malformed or unusual content: unknown operators, wrong operand counts, odd numbers, text without a font', () => {
    expectIneligible(one('BT /F1 12 Tf 72 700 Td (x) Tj foo ET'), 'content: unknown operator');
    expectIneligible(one('BT /F1 12 Tf 72 700 Td 5 (x) Tj ET'), 'content: operand count');
    expectIneligible(one('BT /F1 12 Tf 72 700 Td (x) ET'), 'content: operand count');
    expectIneligible(one('BT /F1 12 Tf 72 --700 Td (x) Tj ET'), 'content: number');
    expectIneligible(one('BT /F1 12 Tf 72 7e2 Td (x) Tj ET'), 'content: number');
    expectIneligible(one('BT /F1 12 Tf 72 700 Td (unterminated Tj ET'), 'content: unterminated string');
    expectIneligible(one('BT /F1 12 Tf 72 700 Td (x) Tj ) ET'), 'content: lexing');
    expectIneligible(one('BT 72 700 Td (x) Tj ET'), 'content: text shown without a font');
    expectIneligible(one('BT /F9 12 Tf 72 700 Td (x) Tj ET'), 'font: missing resource');
    expectIneligible(one('BT /F1 12 Tf 72 700 Td [(a) /N (b)] TJ ET'), 'content: operand type');
  });

  it('encrypted files, edited files (the xref picks the version), broken structure', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage().drawText('Original text', { x: 50, y: 700, size: 12, font });
    const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
    await expectSameAsPdfJs(pdf);
    const page = findObject(pdf, /\/Type \/Page\b/);
    const contentsNum = Number(/\/Contents \[?\s*(\d+) 0 R/.exec(page.body)![1]);
    const fontName = /\/Font\s*<<\s*\/([^\s/<>]+)/.exec(pdf.toString('latin1'))![1]!;
    const edit = `BT /${fontName} 12 Tf 50 700 Td (Edited text) Tj ET`;
    // An incremental update: the xref's newest entry picks the new version, as in pdf.js.
    const edited = appendUpdate(pdf, [{ num: contentsNum, body: `<< /Length ${edit.length} >>\nstream\n${edit}\nendstream` }]);
    await expectSameAsPdfJs(edited);
    expect(readSimplePdfFile(edited).ok && (readSimplePdfFile(edited) as { reading: { text: string } }).reading.text).toContain('Edited text');
    const withEncrypt = Buffer.from(pdf.toString('latin1').replace('/Root', '/Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >> /Root'), 'latin1');
    expectIneligible(withEncrypt, 'encrypted');
    expectIneligible(pdf.subarray(0, pdf.length - 40), /structure warnings|xref chain/);
  });

  it('bounded: a page\'s content past 16 MB, a reading\'s content to interpret past 1 MB (the reader cannot be interrupted)', () => {
    const big = (mb: number): string => `BT /F1 12 Tf 72 700 Td (x) Tj ET${' '.repeat(mb * 1024 * 1024)}`;
    expectIneligible(pagesPdf([{ content: big(17), resources: RES(1), flate: true }], [HELV]), 'content: too large');
    const three = [0, 1, 2].map(() => ({ content: big(12), resources: RES(3), flate: true }));
    expectIneligible(pagesPdf(three, [HELV]), 'content: too much to read');
    const small = [0, 1, 2].map(() => ({ content: big(0.4), resources: RES(3), flate: true }));
    expectIneligible(pagesPdf(small, [HELV]), 'content: too much to read');
  });

  it('page trees pdf.js would read differently: wrong /Count, cycles, linearization /N', () => {
    const base = (pagesBody: string, extra: RawObject[] = []): Buffer =>
      rawPdf([
        { body: '<< /Type /Catalog /Pages 2 0 R >>' },
        { body: pagesBody },
        { body: '<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>' },
        { body: '<< >>', stream: 'BT /F1 12 Tf 72 700 Td (x) Tj ET' },
        HELV,
        ...extra,
      ]);
    expectIneligible(base('<< /Type /Pages /Kids [3 0 R] /Count 2 >>'), 'page tree: count mismatch');
    expectIneligible(base('<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>'), 'page tree: cycle');
    expectIneligible(base('<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>', [{ body: '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>' }]), /page tree: (cycle|Parent mismatch)/);
    const lin = rawPdf([
      { body: '<< /Linearized 1 /L 999 /N 3 /O 4 /E 100 /T 100 /H [1 1] >>' },
      { body: '<< /Type /Catalog /Pages 3 0 R >>' },
      { body: '<< /Type /Pages /Kids [4 0 R] /Count 1 >>' },
      { body: '<< /Type /Page /Parent 3 0 R /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>' },
      { body: '<< >>', stream: 'BT /F1 12 Tf 72 700 Td (x) Tj ET' },
      HELV,
    ], { root: 2 });
    expectIneligible(lin, 'page tree: linearization /N differs from /Count');
  });
});

/** Every shared fixture: declined, or exactly pdf.js's pages and text (when pdf.js opens it at all). */
describeFixtures('simple reader: shared fixture PDFs are declined or read exactly as pdf.js reads them', () => {
  const dirs = ['pdf', 'pdf-signatures'];
  const files = dirs.flatMap((d) => {
    try {
      return readdirSync(fixture(d)).filter((f) => f.endsWith('.pdf')).map((f) => fixture(d, f));
    } catch {
      return [];
    }
  });
  it('has fixtures to read', () => expect(files.length).toBeGreaterThan(0));
  for (const file of files) {
    it(file.split('/').slice(-2).join('/'), async () => {
      const bytes = readFileSync(file);
      const mine = readSimplePdfFile(bytes);
      if (!mine.ok) return;
      const ref = await pdfjsText(bytes);
      expect(mine.reading).toEqual(ref);
    });
  }
});
