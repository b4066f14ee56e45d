/**
 * pdf.js's legacy build replaces Array.prototype.push and JSON.parse with core-js polyfills when it
 * loads; pdfjs-reader.ts puts the built-ins back (see restoreNatives). In its own file so that
 * pdf.js is loaded here for the first time in this worker.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { loadPdfJs, openPdfJs } from '../../../src/engine/document/pdf/pdfjs-reader.js';

describe('pdf.js leaves the built-ins it polyfills as they were', () => {
  it('Array.prototype.push and JSON.parse are still the engine’s own after loading, and pdf.js still reads text', async () => {
    const push = Array.prototype.push;
    const parse = JSON.parse;
    await loadPdfJs();
    expect(Array.prototype.push).toBe(push);
    expect(JSON.parse).toBe(parse);
    // What pdf.js adds that Node 20 lacks stays (its code uses it).
    expect(typeof (Promise as unknown as { withResolvers?: unknown }).withResolvers).toBe('function');

    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([300, 300]).drawText('The committee approved the budget on Tuesday.', { x: 20, y: 150, size: 10, font });
    const opened = await openPdfJs(Buffer.from(await doc.save()));
    try {
      expect(await opened.text(1)).toContain('The committee approved the budget on Tuesday.');
    } finally {
      await opened.destroy();
    }
  });
});
