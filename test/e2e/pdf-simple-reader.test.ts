/**
 * The simple-PDF reader in the whole CLI (docs/document.md "The simple-PDF reader"): a simple PDF
 * is read on the CLI thread and the early pdf.js thread is stopped unused; the result is the one
 * pdf.js gives (`document.pdf_reader = pdfjs` forces pdf.js), by path, on stdin and in a batch; a
 * file it cannot read as pdf.js would goes to pdf.js; the page limit holds either way.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

function comparable(stdout: string): Record<string, unknown> {
  const r = JSON.parse(stdout) as Record<string, unknown>;
  delete r.id;
  delete r.latency_ms;
  return r;
}

/** The early thread's report (bin/run-bundle.js prints it with VERITY_DEBUG_EARLY_PDF_THREAD=1). */
function threadStats(stderr: string): Record<string, unknown> | undefined {
  const m = /verity-debug early-pdf-thread (\{.*\})/.exec(stderr);
  return m ? (JSON.parse(m[1]!) as Record<string, unknown>) : undefined;
}

const PARA =
  'The auditors reviewed the ledger entries for the third quarter and found that several invoices had been recorded twice, which inflated the reported revenue by a small but material amount. ';

async function contractPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.setTitle('Quarterly audit – été');
  doc.setAuthor('A. Reviewer');
  doc.setProducer('verity tests');
  doc.setCreationDate(new Date('2025-03-01T10:00:00Z'));
  doc.setModificationDate(new Date('2025-03-02T10:00:00Z'));
  const xmp = `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><xmp:CreateDate>2025-03-01T10:00:00Z</xmp:CreateDate><xmp:ModifyDate>2025-03-02T10:00:00Z</xmp:ModifyDate><pdf:Producer>verity tests</pdf:Producer></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })));
  const fonts = [await doc.embedFont(StandardFonts.TimesRoman), await doc.embedFont(StandardFonts.HelveticaBold)];
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Section ${p + 1}`, { x: 50, y: 750, size: 14, font: fonts[1] });
    for (let l = 0, y = 720; l < 30; l++, y -= 14) page.drawText(PARA.slice((l * 11) % 80, ((l * 11) % 80) + 95), { x: 50, y, size: 10, font: fonts[0] });
  }
  return Buffer.from(await doc.save());
}

/** A page whose text is drawn with a Type 3 font: pdf.js draws its glyphs itself; the simple reader leaves it to pdf.js. */
function type3Pdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    null,
    '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 750 750] /FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /a 6 0 R >> /Encoding << /Type /Encoding /Differences [97 /a] >> /FirstChar 97 /LastChar 97 /Widths [1000] /Resources << >> >>',
    null,
  ];
  const content = 'BT /F1 12 Tf 20 150 Td (aaa aaa) Tj ET';
  const glyph = '1000 0 0 0 750 750 d1 0 0 750 750 re f';
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    const data = i === 3 ? content : i === 5 ? glyph : undefined;
    out += data === undefined ? `${i + 1} 0 obj\n${body}\nendobj\n` : `${i + 1} 0 obj\n<< /Length ${data.length} >>\nstream\n${data}\nendstream\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info << /Producer (hand) >> >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('the simple-PDF reader answers as pdf.js would, and leaves the rest to pdf.js', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-simple-pdf-'));
  const folder = join(dir, 'batch');
  mkdirSync(folder);
  const pdfjsHome = newHome();
  const env = { VERITY_DEBUG_EARLY_PDF_THREAD: '1' };
  let simple: string;
  let type3: string;
  beforeAll(async () => {
    simple = join(folder, 'simple.pdf');
    writeFileSync(simple, await contractPdf(12));
    type3 = join(folder, 'type3.pdf');
    writeFileSync(type3, type3Pdf());
    const set = await verity(['config', 'set', 'document.pdf_reader', 'pdfjs'], { home: pdfjsHome });
    expect(set.code, set.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a 12-page text PDF: read without pdf.js (on the early thread, which never loads pdf.js), the same result as pdf.js gives', async () => {
    const ours = await verity(['verify', 'document', simple, '--json'], { env });
    expect(ours.code, ours.stderr).toBe(0);
    const stats = threadStats(ours.stderr)!;
    expect(stats).toMatchObject({ go: true, readAhead: true, decodedBytes: 0, simple: true });
    expect(stats.ahead).toBeUndefined();
    const theirs = await verity(['verify', 'document', simple, '--json'], { env, home: pdfjsHome });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(threadStats(theirs.stderr)).toMatchObject({ ahead: 'opened', readAhead: true });
    expect(threadStats(theirs.stderr)?.simple).toBeUndefined();
    const a = comparable(ours.stdout);
    expect(a).toEqual(comparable(theirs.stdout));
    // What pdf.js read is in the result: the page count, Info and XMP, and the warning on the pages read.
    expect(a).toMatchObject({ metadata: { page_count: 12, author: 'A. Reviewer', producer: 'verity tests' } });
    expect((a as { warnings: string[] }).warnings).toContain('text was extracted from the first 10 of 12 pages');
  });

  it('on stdin (no early thread): read on the CLI thread, no pdf.js thread started', async () => {
    const stdin = await verity(['verify', 'document', '-', '--json'], { input: readFileSync(simple), env: { VERITY_DEBUG_PDF_THREADS: '1' } });
    expect(stdin.code, stdin.stderr).toBe(0);
    expect(stdin.stderr).toContain('verity-debug pdf-threads-started 0');
    const type3Run = await verity(['verify', 'document', '-', '--json'], { input: readFileSync(type3), env: { VERITY_DEBUG_PDF_THREADS: '1' } });
    expect(type3Run.stderr).toContain('verity-debug pdf-threads-started 1');
  });

  it('the same result on stdin and in a batch', async () => {
    const byPath = comparable((await verity(['verify', 'document', simple, '--json'])).stdout);
    const stdin = await verity(['verify', 'document', '-', '--json'], { input: readFileSync(simple) });
    expect(stdin.code, stdin.stderr).toBe(0);
    expect(comparable(stdin.stdout)).toEqual(byPath);
    const batch = await verity(['verify', 'batch', folder, '--type', 'document']);
    expect(batch.code, batch.stderr).toBe(0);
    const lines = batch.stdout.trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; status: string; result?: Record<string, unknown> });
    const line = lines.find((l) => l.custom_id === 'simple.pdf');
    expect(line?.status).toBe('succeeded');
    const { id: _id, latency_ms: _ms, ...rest } = line!.result!;
    expect(rest).toEqual(byPath);
  }, 60_000);

  it('a Type 3 font goes to pdf.js (the thread answers), with the same result either way', async () => {
    const ours = await verity(['verify', 'document', type3, '--json'], { env });
    expect(ours.code, ours.stderr).toBe(0);
    expect(threadStats(ours.stderr)).toMatchObject({ ahead: 'opened', readAhead: true });
    expect(threadStats(ours.stderr)?.simple).toBeUndefined();
    const theirs = await verity(['verify', 'document', type3, '--json'], { home: pdfjsHome });
    expect(comparable(ours.stdout)).toEqual(comparable(theirs.stdout));
  });

  it('over the page limit: PAYLOAD_TOO_LARGE, as with pdf.js', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let p = 0; p < 2001; p++) doc.addPage([200, 200]).drawText(`page ${p + 1}`, { x: 20, y: 100, size: 10, font });
    const file = join(dir, 'many.pdf');
    writeFileSync(file, Buffer.from(await doc.save()));
    const ours = await verity(['verify', 'document', file, '--json']);
    const theirs = await verity(['verify', 'document', file, '--json'], { home: pdfjsHome });
    expect(ours.code).not.toBe(0);
    expect(ours.code).toBe(theirs.code);
    expect(ours.stdout + ours.stderr).toContain('PAYLOAD_TOO_LARGE');
    expect(ours.stdout + ours.stderr).toContain('the PDF has 2001 pages; the limit is 2000');
  });

  it('the early thread answers a job from its simple reading only for the same bytes and when allowed (built thread module)', async () => {
    const mod = (await import(join(inject('verityRoot'), 'dist', 'engine', 'document', 'extraction-thread.js'))) as typeof import('../../src/engine/document/extraction-thread.js');
    const job = (path: string, bytes: Buffer, simpleReader?: boolean) => {
      const run = mod.startEarlyPdfThread(undefined, { path, maxBytes: 1_050_000 })!.take()!;
      const copy = new ArrayBuffer(bytes.length);
      new Uint8Array(copy).set(bytes);
      run.send({ kind: 'pdf', bytes: copy, textPages: 10, simpleReader });
      return run;
    };
    const answer = async (run: ReturnType<typeof job>) => {
      try {
        return { pages: (await run.opened).pages, text: await run.text, simple: run.stats.simple };
      } finally {
        run.stop();
      }
    };
    const same = await answer(job(simple, readFileSync(simple)));
    expect(same.simple).toBe(true);
    expect(same.pages).toBe(12);
    // pdf.js asked for: the same reading, by pdf.js.
    const forced = await answer(job(simple, readFileSync(simple), false));
    expect(forced.simple).toBeUndefined();
    expect(forced).toEqual({ ...same, simple: undefined });
    // The job carries other bytes than the file read ahead: those bytes are read, by pdf.js.
    const other = await answer(job(simple, readFileSync(type3)));
    expect(other.simple).toBeUndefined();
    expect(other.pages).toBe(1);
  });

  it('the calling thread takes the structure the early thread read (same bytes only), equal to its own reading (built thread module)', async () => {
    const root = inject('verityRoot');
    const mod = (await import(join(root, 'dist', 'engine', 'document', 'extraction-thread.js'))) as typeof import('../../src/engine/document/extraction-thread.js');
    const { readPdfStructure } = (await import(join(root, 'dist', 'engine', 'document', 'pdf', 'structure.js'))) as typeof import('../../src/engine/document/pdf/structure.js');
    const { InflateBudget } = (await import(join(root, 'dist', 'engine', 'document', 'budget.js'))) as typeof import('../../src/engine/document/budget.js');
    const ahead = async (bytes: Buffer) => {
      const buffer = new SharedArrayBuffer(mod.SIGNALS_LENGTH * 4);
      const signals = new Int32Array(buffer);
      const early = mod.startEarlyPdfThread(undefined, { path: simple, maxBytes: 1_050_000, signals: buffer })!;
      try {
        // (Atomics.waitAsync: Node 16+, not in this project's TypeScript lib.)
        const begun = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string } }).waitAsync(signals, mod.STRUCTURE_SLOT, 0);
        if (begun.async) await begun.value;
        const reader = mod.preparePdfReader(undefined, early);
        const s = await reader.structureAhead(bytes);
        return { s, stats: { ...early.stats } };
      } finally {
        early.discard();
      }
    };
    const bytes = readFileSync(simple);
    const same = await ahead(bytes);
    expect(same.stats.structureFromThread).toBe(true);
    // A structured clone, equal to reading it here once its budget is an InflateBudget again.
    expect({ ...same.s!, inflateBudget: InflateBudget.restore(same.s!.inflateBudget) }).toStrictEqual(readPdfStructure(bytes));
    // The caller's bytes differ from the file the thread read: not used.
    const other = await ahead(readFileSync(type3));
    expect(other.s).toBeUndefined();
    expect(other.stats.structureFromThread).toBeUndefined();

    // A thread that never begins a structure (no such file to read ahead): nothing to wait for.
    const none = mod.startEarlyPdfThread(undefined, { path: join(dir, 'no-such.pdf'), maxBytes: 1_050_000 })!;
    try {
      const reader = mod.preparePdfReader(undefined, none);
      expect(reader.structureAhead(bytes)).toBeUndefined();
      expect(reader.simpleAhead).toBe(true);
    } finally {
      none.discard();
    }

    // A thread that has ended before the file is given to it: the caller reads a simple PDF itself
    // (a job sent there would fail, and the text with it).
    const early = mod.startEarlyPdfThread(undefined, { path: simple, maxBytes: 1_050_000 })!;
    const run = early.take()!;
    run.stop();
    await run.text.catch(() => undefined);
    const reader = mod.preparePdfReader(undefined, { ...early, take: () => run });
    expect(reader.simpleAhead).toBe(false);
  });

  it('two fonts pdf.js could alias: the reader declines, the early thread has pdf.js read the file, the same text as pdf.js (built thread module)', async () => {
    const root = inject('verityRoot');
    const mod = (await import(join(root, 'dist', 'engine', 'document', 'extraction-thread.js'))) as typeof import('../../src/engine/document/extraction-thread.js');
    const reading = (await import(join(root, 'dist', 'engine', 'document', 'pdf', 'simple-reading.js'))) as typeof import('../../src/engine/document/pdf/simple-reading.js');
    const { readPdfStructure } = (await import(join(root, 'dist', 'engine', 'document', 'pdf', 'structure.js'))) as typeof import('../../src/engine/document/pdf/structure.js');
    const { openPdfJs } = (await import(join(root, 'dist', 'engine', 'document', 'pdf', 'pdfjs-reader.js'))) as typeof import('../../src/engine/document/pdf/pdfjs-reader.js');
    const pdfjs = async (file: string) => {
      const d = await openPdfJs(readFileSync(file));
      try {
        return { pages: d.pages, text: await d.text(10) };
      } finally {
        await d.destroy();
      }
    };
    // Two fonts sharing one FontDescriptor with the same Widths and encoding but other ToUnicode
    // maps: pdf.js may show the second with the first one's font, so the reader declines a
    // document that uses both.
    const cmap = (to: string) =>
      `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <${to}> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end`;
    const font = (tu: number) => `<< /Type /Font /Subtype /TrueType /BaseFont /Arial /FirstChar 65 /LastChar 65 /Widths [600] /Encoding /WinAnsiEncoding /FontDescriptor 4 0 R /ToUnicode ${tu} 0 R >>`;
    const pageOf = (f: number, contents: number) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << /Font << /F1 ${f} 0 R >> >> /Contents ${contents} 0 R >>`;
    const stream = (data: string) => `<< /Length ${data.length} >>\nstream\n${data}\nendstream`;
    const { rawPdf } = await import('../helpers/raw-pdf.js');
    const aliasing = join(dir, 'aliasing.pdf');
    writeFileSync(
      aliasing,
      rawPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [10 0 R 11 0 R] /Count 2 >>',
        '<< /Producer (t) >>',
        '<< /Type /FontDescriptor /FontName /Arial /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>',
        font(6),
        stream(cmap('0041')),
        font(8),
        stream(cmap('0042')),
        stream('BT /F1 12 Tf 20 150 Td (AAAA) Tj ET'),
        pageOf(5, 9),
        pageOf(7, 9),
      ]),
    );
    const one = readFileSync(aliasing);
    expect(reading.readLikePdfJs(one, readPdfStructure(one), 10)).toEqual({ notLikePdfJs: 'font: shared FontDescriptor' });
    const run = mod.startEarlyPdfThread(undefined, { path: aliasing, maxBytes: 1_050_000 })!.take()!;
    const copy = new ArrayBuffer(one.length);
    new Uint8Array(copy).set(one);
    run.send({ kind: 'pdf', bytes: copy, textPages: 10 });
    try {
      expect({ pages: (await run.opened).pages, text: await run.text }).toEqual(await pdfjs(aliasing));
      expect(run.stats.simple).toBeUndefined();
    } finally {
      run.stop();
    }
  });
});
