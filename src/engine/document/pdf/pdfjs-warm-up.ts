/**
 * A short read of a small built-in PDF, run by the extraction thread while it waits for its job
 * (extraction-thread-main.ts). The first document a thread reads pays one-time costs on top of its
 * own work: pdf.js's lazily built tables (glyph names to Unicode, the standard fonts' metrics),
 * the first run of its parser, lexer, Flate path and text layout (V8 allocates their feedback and
 * compiles the hot ones), the message channel between its two halves. Measured on the 100-page
 * benchmark PDF (10 pages of text, one thread, median of 10 alternating runs): ~256 ms to open it
 * and read the text cold, ~216 ms after this warm-up, which itself costs ~45 ms. The warm-up runs
 * only in time the thread would otherwise spend idle (pdf.js loaded, no job yet: the main thread
 * is still reading the file's structure), so it moves that cost off the critical path; a job that
 * arrives during it waits for it to finish, which costs about what it saves.
 *
 * The document is plain data shaped like most PDFs' text: a page with a Flate-compressed content
 * stream, a standard font, Tj and TJ text. pdf.js keeps nothing from it that changes how a later
 * document reads (its tables are pure lookups; each document has its own caches).
 */
import { deflateSync } from 'node:zlib';

/** The warm-up document: one page of text in Helvetica, its content stream Flate-compressed. */
export function warmUpPdf(): Buffer {
  let text = 'BT /F1 10 Tf 50 760 Td 12 TL\n';
  for (let i = 0; i < 8; i++) text += `(Line ${i}: the parties agree to the terms set out in schedule ${i}.) Tj T*\n[(Kerned) -120 (text,) 250 (spaced)] TJ T*\n`;
  const content = deflateSync(Buffer.from(`${text}ET\n`, 'latin1'));
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    Buffer.concat([Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(at);
    parts.push(chunk);
    at += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
