/**
 * `verify document FILE` of a PDF: bin/run-bundle.js starts pdf.js's extraction thread before the
 * CLI loads and names the file, and the thread reads it with pdf.js (opening and the first pages'
 * text) before the engine has read
 * the structure and measured the streams (src/engine/document/extraction-thread-main.ts). The
 * engine's verdict still decides: a file it refuses gets no job and the thread is stopped; the job's
 * bytes, not the file opened ahead, are what is read. So every file must give exactly the result
 * of the same file on stdin (no early thread, no speculation), refused or damaged files included,
 * and a refused file's early open must not hold the process or its memory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, inject, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

/** A PDF of numbered objects (object 1 the catalog) with a classic cross-reference table. */
function pdfOf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
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

const flate = (dict: string, data: Buffer): Buffer => {
  const z = deflateSync(data, { level: 9 });
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${z.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), z, Buffer.from('\nendstream', 'latin1')]);
};

const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>';
const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const content = flate('', Buffer.from('BT /F1 12 Tf 72 700 Td (The supplier shall deliver the goods within thirty days.) Tj ET', 'latin1'));

/**
 * Its XMP metadata stream inflates to 96 MB (from ~100 kB): the structure reader's measuring
 * refuses pdf.js the file (past the 64 MB per-stream cap), but the early open has already begun,
 * and pdf.js reads the catalog's /Metadata while opening.
 */
function metadataBomb(): Buffer {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    page,
    font,
    content,
    flate('/Type /Metadata /Subtype /XML', Buffer.alloc(96 * 1024 * 1024, 0x20)),
  ]);
}

/** Where a PDF path's process keeps its code caches: apart on Node 20, whose V8 flags it changes (bin/run-bundle.js). */
const TIERING_FOLDER = process.versions.node.split('.')[0] === '20' ? ['interrupt-budget-540672'] : [];

const strip = (s: string): Record<string, unknown> => {
  const { id: _id, latency_ms: _l, ...rest } = JSON.parse(s) as Record<string, unknown>;
  return rest;
};

describe('the extraction thread opens a named PDF ahead of its job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-speculative-'));

  it('the PDF path runs with V8 optimisation delayed (Node 20), its code caches apart: each folder written once, then read by the runs of its kind', async () => {
    const doc = await PDFDocument.create();
    const f = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([612, 792]).drawText('The supplier shall deliver the goods within thirty days of the order.', { x: 50, y: 700, size: 12, font: f });
    const file = join(dir, 'one-page.pdf');
    writeFileSync(file, await doc.save());
    const home = newHome();
    const folder = (sub: string[]): Record<string, number> =>
      Object.fromEntries(
        readdirSync(join(home, 'cache', ...sub))
          .filter((n) => n.endsWith('.v8cache'))
          .map((n) => [n.split('-')[0]!, statSync(join(home, 'cache', ...sub, n)).mtimeMs]),
      );
    const named = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    expect(named.code, named.stderr).toBe(0);
    // The CLI bundle, pdf.js and sharp (the embedded-image analysis loads it with the engine's images).
    const apart = folder(TIERING_FOLDER);
    expect(Object.keys(apart)).toEqual(expect.arrayContaining(['cli', 'pdfjs']));
    // The same file on stdin runs with V8's defaults and its caches in the usual folder.
    const piped = await verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: readFileSync(file) });
    expect(strip(piped.stdout)).toEqual(strip(named.stdout));
    const usual = folder([]);
    expect(Object.keys(usual)).toEqual(expect.arrayContaining(['cli', 'pdfjs']));
    // Run in turn, neither kind rewrites (or makes V8 reject) the other's caches.
    for (const run of [() => verity(['verify', 'document', file, '--json'], { home, cwd: dir }), () => verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: readFileSync(file) })]) {
      const r = await run();
      expect(strip(r.stdout)).toEqual(strip(named.stdout));
    }
    expect(folder(TIERING_FOLDER)).toEqual(apart);
    expect(folder([])).toEqual(usual);
  });

  it('a file the measuring refuses: the result of the same file on stdin, the thread stopped, memory bounded', async () => {
    const file = join(dir, 'metadata-bomb.pdf');
    writeFileSync(file, metadataBomb());
    const home = newHome();
    const named = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    const piped = await verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: readFileSync(file) });
    expect(named.code, named.stderr).toBe(piped.code);
    expect(strip(named.stdout)).toEqual(strip(piped.stdout));
    const result = strip(named.stdout) as { warnings?: string[]; metadata: { page_count: number } };
    expect(result.warnings?.some((w) => w.startsWith('decompression stopped'))).toBe(true);
    // pdf.js was not run for the result: the page count is the structure reader's.
    expect(result.metadata.page_count).toBe(1);

    // The early open decodes at most one stream to pdf.js's 64 MB cap before it is stopped.
    if (existsSync('/usr/bin/time')) {
      const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, join(inject('verityRoot'), 'bin', 'verity.js'), 'verify', 'document', file, '--json'], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, VERITY_HOME: home },
        encoding: 'utf8',
        timeout: 25_000,
      });
      expect(strip(r.stdout)).toEqual(strip(piped.stdout));
      const peakKb = Number(r.stderr.trim().split('\n').at(-1));
      expect(peakKb).toBeGreaterThan(0);
      expect(peakKb).toBeLessThan(400 * 1024);
    }
  });

  it('damaged or refused files read as on stdin: no cross-reference table, a broken catalog, no PDF after the header, too many pages', async () => {
    const good = pdfOf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page, font, content]);
    const files: [string, Buffer][] = [
      ['no-xref.pdf', good.subarray(0, good.lastIndexOf(Buffer.from('xref\n')))],
      ['bad-catalog.pdf', Buffer.from(good.toString('latin1').replace('/Type /Catalog /Pages 2 0 R', '/Type /Catalog /Pages 9 0 R'), 'latin1')],
      ['header-only.pdf', Buffer.from('%PDF-1.7\nthis is not a PDF body\n', 'latin1')],
      // Over the page limit (2,000): refused once pdf.js has counted the pages, while the thread reads ahead.
      [
        'too-many-pages.pdf',
        pdfOf([
          '<< /Type /Catalog /Pages 2 0 R >>',
          `<< /Type /Pages /Kids [${Array.from({ length: 2001 }, (_, i) => `${i + 5} 0 R`).join(' ')}] /Count 2001 >>`,
          font,
          content,
          ...Array.from({ length: 2001 }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>'),
        ]),
      ],
    ];
    const home = newHome();
    for (const [name, bytes] of files) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const named = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
      const piped = await verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: bytes });
      expect(named.code, `${name}: ${named.stderr}`).toBe(piped.code);
      expect(named.stderr.replace(/\S*verity-e2e\S*/g, '')).toEqual(piped.stderr.replace(/\S*verity-e2e\S*/g, ''));
      if (named.code === 0) expect(strip(named.stdout), name).toEqual(strip(piped.stdout));
      if (name === 'too-many-pages.pdf') expect(named.stderr).toMatch(/2001 pages/);
    }
  });

  it('the job carries other bytes than the file opened ahead: the job is read (built thread module)', async () => {
    const mod = (await import(join(inject('verityRoot'), 'dist', 'engine', 'document', 'extraction-thread.js'))) as typeof import('../../src/engine/document/extraction-thread.js');
    const make = async (pages: number, words: string): Promise<Buffer> => {
      const doc = await PDFDocument.create();
      const f = await doc.embedFont(StandardFonts.Helvetica);
      for (let p = 0; p < pages; p++) doc.addPage([612, 792]).drawText(`${words} ${p + 1}`, { x: 50, y: 700, size: 12, font: f });
      return Buffer.from(await doc.save());
    };
    const fileA = join(dir, 'a.pdf');
    writeFileSync(fileA, await make(3, 'Alpha page'));
    const b = await make(2, 'Bravo page');
    const read = async (path: string, bytes: Buffer): Promise<{ pages: number; text: string }> => {
      const early = mod.startEarlyPdfThread(undefined, { path, maxBytes: 1_050_000 })!;
      const run = early.take()!;
      const copy = new ArrayBuffer(bytes.length);
      new Uint8Array(copy).set(bytes);
      run.send({ kind: 'pdf', bytes: copy, textPages: 10 });
      try {
        return { pages: (await run.opened).pages, text: await run.text };
      } finally {
        run.stop();
      }
    };
    const same = await read(fileA, readFileSync(fileA));
    expect(same.pages).toBe(3);
    expect(same.text).toContain('Alpha page 3');
    // The file changed (or another file was named): the job's bytes are read, not the file's.
    const other = await read(fileA, b);
    expect(other.pages).toBe(2);
    expect(other.text).toContain('Bravo page 2');
    expect(other.text).not.toContain('Alpha');
    // A file over the size the host allows, or one that does not exist: no early open, same reading.
    expect(await read(join(dir, 'missing.pdf'), b)).toEqual(other);
    const small = mod.startEarlyPdfThread(undefined, { path: fileA, maxBytes: 10 })!.take()!;
    const copy = new ArrayBuffer(b.length);
    new Uint8Array(copy).set(b);
    small.send({ kind: 'pdf', bytes: copy, textPages: 10 });
    expect((await small.opened).pages).toBe(2);
    small.stop();

    // Stopped while it opens a file (the measuring refused it): the thread ends, nothing is left waiting.
    const bomb = join(dir, 'bomb-for-stop.pdf');
    writeFileSync(bomb, metadataBomb());
    const stopped = mod.startEarlyPdfThread(undefined, { path: bomb, maxBytes: 1_050_000 })!;
    const run = stopped.take()!;
    stopped.discard();
    run.stop();
    await expect(run.opened).rejects.toThrow('the extraction thread was stopped');
  });
});
