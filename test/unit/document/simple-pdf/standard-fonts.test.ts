import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, it } from 'vitest';
import { expectSameAsPdfJs } from './harness.js';

describe('simple reader: pdf-lib documents in the standard fonts', () => {
  it('reads a pdf-lib page of Helvetica text as pdf.js does', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage();
    page.drawText('Hello, world. Naïve café — “quotes” and ‘single’ … 50 € • done.', { x: 50, y: 700, size: 12, font });
    page.drawText('Second line, further down.', { x: 50, y: 680, size: 12, font });
    await expectSameAsPdfJs(Buffer.from(await doc.save()));
  });
});
