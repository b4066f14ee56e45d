/**
 * The extraction thread reads a small built-in PDF while it waits for its job
 * (src/engine/document/pdf/pdfjs-warm-up.ts). That document must be one pdf.js really reads
 * (otherwise the warm-up silently warms nothing), and reading it first must not change how the
 * next document reads.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { openPdfJs } from '../../../src/engine/document/pdf/pdfjs-reader.js';
import { warmUpPdf } from '../../../src/engine/document/pdf/pdfjs-warm-up.js';

async function textOf(bytes: Buffer, pages: number): Promise<{ pages: number; text: string }> {
  const doc = await openPdfJs(bytes);
  try {
    return { pages: doc.pages, text: await doc.text(pages) };
  } finally {
    await doc.destroy();
  }
}

describe('the extraction thread’s warm-up document', () => {
  it('is a one-page PDF whose Flate-compressed Tj and TJ text pdf.js reads', async () => {
    const r = await textOf(warmUpPdf(), 1);
    expect(r.pages).toBe(1);
    expect(r.text).toContain('Line 0: the parties agree to the terms set out in schedule 0.');
    expect(r.text).toContain('Line 7: the parties agree to the terms set out in schedule 7.');
    expect(r.text).toMatch(/Kerned\s*text,\s*spaced/);
  });

  it('a document read after it reads as it did before it', async () => {
    const doc = await PDFDocument.create();
    const times = await doc.embedFont(StandardFonts.TimesRoman);
    const courier = await doc.embedFont(StandardFonts.Courier);
    for (let p = 0; p < 3; p++) {
      const page = doc.addPage([612, 792]);
      page.drawText(`Page ${p + 1}: the supplier shall deliver the goods described in Schedule A.`, { x: 50, y: 700, size: 11, font: times });
      page.drawText(`Invoice ${1000 + p}\tdue in 45 days`, { x: 300, y: 680, size: 9, font: courier });
    }
    const bytes = Buffer.from(await doc.save());
    const before = await textOf(bytes, 3);
    await textOf(warmUpPdf(), 1);
    expect(await textOf(bytes, 3)).toEqual(before);
    expect(before.text).toContain('Page 3: the supplier shall deliver');
  });
});
