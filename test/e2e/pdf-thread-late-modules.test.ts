/**
 * The PDF thread's text is read after V8's flags have changed for the run (Node 20:
 * src/engine/document/pdf-tiering.ts), and V8 checks every code cache, Node's own built-in modules'
 * included, against a hash of the flags: a built-in module the thread first needs while it reads
 * the pages is compiled from source. The web streams pdf.js reads every page's text through were
 * such a module (2.9 ms instead of 0.7, on the critical path); the thread now loads them before
 * the gate (extraction-thread-main.ts). This runs the built CLI with a probe preloaded into both
 * threads (NODE_OPTIONS=--require) that lists the built-in modules the PDF thread loads between
 * opening the file and sending the text: none.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-pdf-late-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// CommonJS, loaded by --require in the CLI's thread and (inherited) in the PDF thread.
const PROBE = `
const { isMainThread, parentPort } = require('node:worker_threads');
if (!isMainThread) {
  const fs = require('node:fs');
  let opened = -1;
  const post = parentPort.postMessage;
  parentPort.postMessage = function (m, transfer) {
    if (m && (m.type === 'ahead' || m.type === 'opened') && opened < 0) opened = process.moduleLoadList.length;
    if (m && m.type === 'text' && opened >= 0) fs.writeFileSync(process.env.LATE_MODULES_OUT, JSON.stringify(process.moduleLoadList.slice(opened)));
    return post.call(this, m, transfer);
  };
}
`;

describe('the PDF thread while it reads the pages', () => {
  it('loads no built-in module between opening the file and sending its text', async () => {
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, PROBE);
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    for (let p = 0; p < 3; p++) doc.addPage([612, 792]).drawText(`Page ${p + 1}: the supplier shall deliver the goods within thirty days of the order.`, { x: 50, y: 700, size: 11, font });
    const file = join(dir, 'three-pages.pdf');
    writeFileSync(file, await doc.save());
    const out = join(dir, 'late.json');
    const home = newHome();
    // Twice: the first run writes the code caches; the second is the ordinary run.
    for (const run of [1, 2]) {
      rmSync(out, { force: true });
      const r = await verity(['verify', 'document', file, '--json'], { home, env: { NODE_OPTIONS: `--require ${probe}`, LATE_MODULES_OUT: out } });
      expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).metadata.page_count).toBe(3);
      expect(JSON.parse(readFileSync(out, 'utf8')), `run ${run}`).toEqual([]);
    }
  });
});
