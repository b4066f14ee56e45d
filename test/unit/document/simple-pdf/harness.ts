/**
 * Test harness for the simple PDF text reader: raw PDFs written object by object (with a correct
 * xref table), and pdf.js's own answer for the same bytes — the text of pdfjs-reader.ts's
 * `openPdfJs(bytes).text(n)`, and the raw `getTextContent` items for item-level comparison.
 */
import { deflateSync } from 'node:zlib';
import { expect } from 'vitest';
import { loadPdfJs, openPdfJs } from '../../../../src/engine/document/pdf/pdfjs-reader.js';
import { readSimplePdfFile, readSimplePdfItems } from '../../../../src/engine/document/pdf/text/simple-reader.js';

export interface RawObject {
  /** Dictionary or other value, as PDF source. */
  body: string;
  /** Stream data (written after the dictionary, /Length added). */
  stream?: Buffer | string;
  /** Deflate the stream (adds /Filter /FlateDecode). */
  flate?: boolean;
}

/** Objects numbered from 1 in order; `root` is the catalog's object number. */
export function rawPdf(objects: RawObject[], opts: { root?: number; version?: string } = {}): Buffer {
  const chunks: Buffer<ArrayBufferLike>[] = [Buffer.from(`%PDF-${opts.version ?? '1.7'}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(offset);
    let body = o.body;
    let data: Buffer<ArrayBufferLike> | undefined;
    if (o.stream !== undefined) {
      data = Buffer.isBuffer(o.stream) ? o.stream : Buffer.from(o.stream, 'latin1');
      if (o.flate) data = deflateSync(data);
      const extra = `/Length ${data.length}${o.flate ? ' /Filter /FlateDecode' : ''}`;
      body = body.replace(/>>\s*$/, ` ${extra} >>`);
    }
    const head = Buffer.from(`${i + 1} 0 obj\n${body}\n`, 'latin1');
    const parts: Buffer<ArrayBufferLike>[] = [head];
    if (data) parts.push(Buffer.from('stream\n'), data, Buffer.from('\nendstream\n'));
    parts.push(Buffer.from('endobj\n'));
    const buf = Buffer.concat(parts);
    chunks.push(buf);
    offset += buf.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${opts.root ?? 1} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(chunks);
}

/**
 * A one-page-per-content document: catalog 1, pages 2, then for each page a page object and its
 * content stream, then `extra` objects (fonts etc.) numbered from `3 + 2 * pages.length`.
 */
export function pagesPdf(pages: { content: string; resources: string; pageExtra?: string; flate?: boolean }[], extra: RawObject[], pagesExtra = '/MediaBox [0 0 612 792]'): Buffer {
  const objs: RawObject[] = [
    { body: '<< /Type /Catalog /Pages 2 0 R >>' },
    { body: `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} ${pagesExtra} >>` },
  ];
  pages.forEach((p, i) => {
    objs.push({ body: `<< /Type /Page /Parent 2 0 R /Resources ${p.resources} /Contents ${4 + i * 2} 0 R ${p.pageExtra ?? ''} >>` });
    objs.push({ body: '<< >>', stream: p.content, flate: p.flate });
  });
  return rawPdf([...objs, ...extra]);
}

/** First extra object's number in pagesPdf. */
export const firstExtra = (pageCount: number): number => 3 + 2 * pageCount;

export async function pdfjsText(bytes: Buffer, n = 10): Promise<{ pages: number; text: string }> {
  const doc = await openPdfJs(bytes);
  try {
    return { pages: doc.pages, text: await doc.text(n) };
  } finally {
    await doc.destroy();
  }
}

export async function pdfjsItems(bytes: Buffer, n = 10): Promise<{ str: string; transform: number[]; width: number; height: number; hasEOL: boolean }[][]> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, stopAtErrors: false });
  const doc = await task.promise;
  try {
    const out = [];
    for (let i = 1; i <= Math.min(n, doc.numPages); i++) {
      const page = await doc.getPage(i);
      const c = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
      out.push(c.items.filter((it) => 'str' in it).map((it) => {
        const t = it as { str: string; transform: number[]; width: number; height: number; hasEOL: boolean };
        return { str: t.str, transform: [...t.transform], width: t.width, height: t.height, hasEOL: t.hasEOL };
      }));
    }
    return out;
  } finally {
    await doc.destroy();
  }
}

/** The reader answers, and its items and text are exactly pdf.js's. */
export async function expectSameAsPdfJs(bytes: Buffer, n = 10): Promise<void> {
  const mine = readSimplePdfFile(bytes, n);
  if (!mine.ok) throw new Error(`not eligible: ${mine.reason}`);
  const items = readSimplePdfItems(bytes, n);
  if (!items.ok) throw new Error(`not eligible: ${items.reason}`);
  const theirs = await pdfjsItems(bytes, n);
  expect(items.pages.map((p) => p.map((it) => ({ str: it.str, transform: [...it.transform], width: it.width, height: it.height, hasEOL: it.hasEOL })))).toEqual(theirs);
  const ref = await pdfjsText(bytes, n);
  expect(mine.reading.pages).toBe(ref.pages);
  expect(mine.reading.text).toBe(ref.text);
}

/** The reader declines with a reason matching `reason`. */
export function expectIneligible(bytes: Buffer, reason: RegExp | string): void {
  const r = readSimplePdfFile(bytes);
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.reason).toMatch(reason);
}
