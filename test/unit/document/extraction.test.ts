import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { docxText } from '../../../src/engine/document/docx/text.js';
import { extractionThreadAvailable, startPdfReading } from '../../../src/engine/document/extraction-thread.js';
import { buildDocx, buildPdf, paragraph } from './build.js';

/** Two text lines on one page and a second line 40 pt lower, to exercise the line/cell layout rules. */
async function layoutPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Invoice', { x: 50, y: 700, size: 12, font });
  page.drawText('1042', { x: 300, y: 700, size: 12, font });
  page.drawText('Total due 1,250.00 EUR', { x: 50, y: 660, size: 12, font });
  doc.addPage([612, 792]).drawText('Second page', { x: 50, y: 700, size: 12, font });
  return Buffer.from(await doc.save());
}

describe('text extraction (pdf.js direct; DOCX main document part)', () => {
  it('runs on the calling thread under the TypeScript sources (no compiled thread entry)', () => {
    expect(extractionThreadAvailable()).toBe(false);
  });

  // The text the AI-text detector was calibrated on came from pdf-parse 2.4.5's getText (pdf.js
  // 5.4.296 underneath); these are its outputs for the two files, recorded before pdf-parse was
  // dropped, so the layout rules stay the same without the package.
  it('lays text out exactly as pdf-parse 2 getText did (the text the AI-text detector saw before)', async () => {
    const clausePage = 'Clause 4.2: payment within 45 days\n\n\n';
    const cases: Array<[Buffer, string]> = [
      [await layoutPdf(), 'Invoice 1042\nTotal due 1,250.00 EUR\n\n\nSecond page\n\n\n'],
      [await buildPdf({ pages: 12, text: 'Clause 4.2: payment within 45 days' }), clausePage.repeat(10)],
    ];
    for (const [pdf, expected] of cases) {
      const doc = await startPdfReading(pdf, 10).opened;
      try {
        expect(await doc.text(10)).toBe(expected);
      } finally {
        await doc.destroy();
      }
    }
  });

  it('keeps distant items on one line apart and starts a new line per baseline, a blank line per page', async () => {
    const doc = await startPdfReading(await layoutPdf(), 10).opened;
    try {
      expect(doc.pages).toBe(2);
      expect(await doc.text(10)).toMatch(/^Invoice\s+1042\nTotal due 1,250\.00 EUR\n\n\nSecond page\n\n\n$/);
    } finally {
      await doc.destroy();
    }
  });

  it('reads only the requested number of pages, and the Info dictionary', async () => {
    const doc = await startPdfReading(await buildPdf({ pages: 3, text: 'Page text here' }), 1).opened;
    try {
      expect(doc.pages).toBe(3);
      expect(doc.info.Producer).toBe('verity-tests');
      expect(await doc.text(1)).toBe('Page text here\n\n\n');
    } finally {
      await doc.destroy();
    }
  });

  it('rejects with pdf.js exception names for bytes that are not a PDF', async () => {
    const reading = startPdfReading(Buffer.from('%PDF-1.7\nthis is not a pdf body at all'), 10);
    await expect(reading.opened).rejects.toMatchObject({ name: expect.stringMatching(/InvalidPDFException|UnknownErrorException|FormatError/) });
  });

  it('extracts DOCX text, paragraphs separated by blank lines', async () => {
    const docx = await buildDocx({ body: paragraph('First paragraph.') + paragraph('Second paragraph.') });
    expect(await docxText(await JSZip.loadAsync(docx))).toBe('First paragraph.\n\nSecond paragraph.\n\n');
  });
});
