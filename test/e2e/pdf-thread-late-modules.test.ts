/**
 * The PDF thread's reading runs after V8's flags have changed for the run (Node 20:
 * src/engine/document/pdf-tiering.ts), and V8 checks every code cache, Node's own built-in modules'
 * included, against a hash of the flags: a built-in module the thread first needs after the change
 * is compiled from source. The web streams pdf.js reads every page's text through were such a
 * module (2.9 ms instead of 0.7, on the critical path); the thread now loads them under V8's
 * defaults (extraction-thread-main.ts). This runs the built CLI with a probe preloaded into both
 * threads (NODE_OPTIONS=--require) that lists the built-in modules the PDF thread loads between
 * V8's flags changing for the run (or, where they never change — Node 22 and later — opening the
 * file) and sending the text: none. Two files: one the simple-PDF reader answers (the flags change
 * right after its code is loaded, before the structure is read), one it declines, which pdf.js then
 * reads on the same thread. Node's own report of the code caches V8 rejected (NODE_DEBUG_NATIVE)
 * covers the CLI's thread as well: it loads the run's built-in modules before the gate
 * (bin/run-bundle.js PDF_RUN_BUILTINS), and none is compiled from source there either.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-pdf-late-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// CommonJS, loaded by --require in the CLI's thread and (inherited) in the PDF thread. The window
// opens where this thread changes V8's flags (to the run's budget, or back from a default-flags
// scope), else (Node 22+, which keeps V8's defaults, or no change seen here) at the thread's first
// 'ahead' or 'opened' message; modules loaded while a scope has put V8's default back
// (pdf-tiering.ts withDefaultFlags) are not counted. `gate`: the threads that had arrived at the
// tiering gate when the text was sent (workerData.tiering, pdf-tiering.ts; absent on Node 22+).
const PROBE = `
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
if (!isMainThread) {
  const fs = require('node:fs');
  const v8 = require('node:v8');
  let from = -1;
  let defaults = false;
  const late = [];
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = function (flags) {
    const m = /--interrupt-budget=(\\d+)/.exec(flags);
    if (m) {
      if (from >= 0 && !defaults) late.push(...process.moduleLoadList.slice(from));
      defaults = Number(m[1]) === 67584;
      from = process.moduleLoadList.length;
    }
    return setFlags.call(this, flags);
  };
  const post = parentPort.postMessage;
  parentPort.postMessage = function (m, transfer) {
    if (m && (m.type === 'ahead' || m.type === 'opened') && from < 0) from = process.moduleLoadList.length;
    if (m && m.type === 'text' && from >= 0) {
      if (!defaults) late.push(...process.moduleLoadList.slice(from));
      const gate = workerData && workerData.tiering ? workerData.tiering.gate[0] : null;
      fs.writeFileSync(process.env.LATE_MODULES_OUT, JSON.stringify({ gate, late }));
    }
    return post.call(this, m, transfer);
  };
}
`;

async function pdf(name: string, symbolFont: boolean): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  // A symbolic font: the simple-PDF reader declines the file (pdf.js reads it).
  const dingbats = symbolFont ? await doc.embedFont(StandardFonts.ZapfDingbats) : undefined;
  for (let p = 0; p < 3; p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Page ${p + 1}: the supplier shall deliver the goods within thirty days of the order.`, { x: 50, y: 700, size: 11, font });
    if (dingbats) page.drawText('\u2713', { x: 50, y: 680, size: 11, font: dingbats });
  }
  const file = join(dir, name);
  writeFileSync(file, await doc.save());
  return file;
}

describe('the PDF thread while it reads the pages', () => {
  for (const [label, symbolFont, reader] of [
    ['a file the simple-PDF reader answers', false, 'simple'],
    ['a file it declines, read by pdf.js', true, 'pdfjs'],
  ] as const)
    it(`loads no built-in module once the run's flags are set: ${label}`, async () => {
      const file = await pdf(`${reader}.pdf`, symbolFont);
      const out = join(dir, `${reader}.json`);
      const home = newHome();
      // Twice: the first run writes the code caches; the second is the ordinary run.
      for (const run of [1, 2]) {
        rmSync(out, { force: true });
        // NODE_DEBUG_NATIVE=CODE_CACHE: Node says on stderr which of its built-in modules' code
        // caches V8 rejected (compiled from source instead), in either thread.
        const r = await verity(['verify', 'document', file, '--json'], {
          home,
          env: { NODE_OPTIONS: `--require ${join(dir, 'probe.cjs')}`, LATE_MODULES_OUT: out, VERITY_DEBUG_EARLY_PDF_THREAD: '1', NODE_DEBUG_NATIVE: 'CODE_CACHE' },
        });
        expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
        // None, the CLI thread's included: it loads the run's built-in modules before it arrives at
        // the gate (bin/run-bundle.js PDF_RUN_BUILTINS).
        expect(r.stderr.split('\n').filter((l) => / is rejected/i.test(l)), `run ${run}`).toEqual([]);
        expect(JSON.parse(r.stdout).metadata.page_count).toBe(3);
        // Which reader answered (extraction-thread.ts ThreadStats.simple).
        const stats = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('verity-debug early-pdf-thread '))!.slice('verity-debug early-pdf-thread '.length)) as { simple?: boolean };
        expect(!!stats.simple, `run ${run}`).toBe(reader === 'simple');
        const seen = JSON.parse(readFileSync(out, 'utf8')) as { gate: number | null; late: string[] };
        // Node 20: both threads had arrived at the gate before the text was read, the simple
        // reader's thread too (the run's flags: pdf-tiering.ts); later versions have no gate.
        expect(seen.gate, `run ${run}`).toBe(process.versions.node.split('.')[0] === '20' ? 2 : null);
        expect(seen.late, `run ${run}`).toEqual([]);
      }
    });
  writeFileSync(join(dir, 'probe.cjs'), PROBE);
});
