/**
 * The PDF extraction thread loads pdf.js from dist/pdfjs.cjs through a V8 code cache in the cache
 * folder (src/engine/document/pdf/pdfjs-bundle.ts). The first run writes it, later runs read it;
 * both must give the same result, the text included, and one cache file stays.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it, onTestFinished } from 'vitest';
import { newPdfJsHome, verity } from './run-cli.js';

describe('pdf.js through its code cache', () => {
  it('a 12-page PDF: the first run writes the cache, the second reads it, same result and text', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    for (let p = 0; p < 12; p++)
      doc.addPage([612, 792]).drawText(`Page ${p + 1}: the supplier shall deliver the goods described in Schedule A within thirty days of the order.`, { x: 50, y: 700, size: 10, font });
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-pdfjs-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'twelve.pdf');
    writeFileSync(file, await doc.save());
    // pdf.js on every PDF: this simple file would otherwise be read without it.
    const home = newPdfJsHome();
    const strip = (s: string): Record<string, unknown> => {
      const { id: _id, latency_ms: _l, ...rest } = JSON.parse(s) as Record<string, unknown>;
      return rest;
    };
    // A PDF path runs with V8's optimisation delayed once both threads have started (Node 20,
    // src/engine/document/pdf-tiering.ts); its code caches are those of every other run.
    const caches = (): string[] => readdirSync(join(home, 'cache')).filter((f) => f.startsWith('pdfjs-'));

    const first = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(caches()).toHaveLength(1);
    const written = statSync(join(home, 'cache', caches()[0]!)).mtimeMs;

    const second = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    expect(strip(second.stdout)).toEqual(strip(first.stdout));
    // Read, not rewritten: V8 accepted it.
    expect(caches()).toHaveLength(1);
    expect(statSync(join(home, 'cache', caches()[0]!)).mtimeMs).toBe(written);
    const result = strip(first.stdout) as { metadata: { page_count: number }; warnings?: string[] };
    expect(result.metadata.page_count).toBe(12);
    expect(result.warnings).toContain('text was extracted from the first 10 of 12 pages');

    // A PDF path starts the extraction thread before the CLI loads (bin/run-bundle.js); stdin does
    // not. Both give the same result.
    const piped = await verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: readFileSync(file) });
    expect(piped.code, piped.stderr).toBe(0);
    expect(strip(piped.stdout)).toEqual(strip(first.stdout));

    // A thread started for a PDF path that the engine then never uses (read as raw text here) must
    // not keep the process alive: the run ends with the answer about the text.
    const unused = await verity(['verify', 'document', file, '--source', 'raw', '--json'], { home, cwd: dir });
    expect(unused.stderr).not.toMatch(/at .*\.(?:js|cjs):\d+/);
    expect(unused.code).not.toBe(null);
    expect(JSON.parse(unused.stdout || unused.stderr)).toBeTypeOf('object');
  });
});
