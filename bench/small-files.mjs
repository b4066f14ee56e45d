#!/usr/bin/env node
// Small files, whole process (issue 31, item 1): what `verity verify document` costs on 10-, 100-
// and 1,000-page text PDFs against `pdfinfo && pdftotext` on the same file, and `verity verify
// media` on a small JPEG against exiftool, interleaved pair by pair in one run. Bare `node -e 0`
// against the 10-page poppler run is measured too: the floor any Node program starts from.
// Goals: 10 pages ≤ 3×, 100 pages ≤ 2× (wall, median of pairs).
//
//   npm run build && node bench/small-files.mjs [--runs 9] [--profile 5]
//
// `--profile N`: N more runs of the 10-page `verify document` under `node --cpu-prof`, each
// thread's samples split into named parts (bench/lib/profile-split.mjs), mean per run: where the
// milliseconds go (docs/performance.md). A profiled run is slower than a plain one; read the
// shares, not the sums, against the whole-process figures above.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { HEADER, interleave, rows } from './lib/interleave.mjs';
import { PART_NAMES, splitProfile } from './lib/profile-split.mjs';

const arg = (name, dflt) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Math.max(1, Number(process.argv[at + 1]) || dflt) : undefined;
};
const runs = arg('--runs', 9) ?? 9;
const profileRuns = arg('--profile', 5);
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'verity-bench-small-'));
const home = join(dir, 'home');
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };

// The text pages of bench/document.mjs's PDF, without its images: 30 lines of Times-Roman a page.
const PARA = 'The parties agree that the supplier shall deliver the goods described in Schedule A no later than thirty days after the purchase order date, and that payment falls due within forty-five days of a correct invoice. ';
async function textPdf(pages) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    for (let l = 0; l < 30; l++, y -= 14) page.drawText(`${p + 1}.${l + 1} ${PARA.slice((l * 7) % 60, ((l * 7) % 60) + 90)}`, { x: 50, y, size: 10, font });
  }
  const file = join(dir, `text-${pages}p.pdf`);
  writeFileSync(file, await doc.save());
  return file;
}

const have = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const out = [`small files, whole process: ${runs} interleaved pairs each after one warm-up (the CLI's code caches filled by it); Node ${process.version}; load average ${loadavg()[0].toFixed(1)} at the start`, ...HEADER];
const pdfs = { 10: await textPdf(10), 100: await textPdf(100), 1000: await textPdf(1000) };
const goals = { 10: 3, 100: 2 };
if (have('pdfinfo', ['-v']) && have('pdftotext', ['-v'])) {
  const poppler = (file) => ({ name: 'pdfinfo + pdftotext', steps: [['pdfinfo', file], ['pdftotext', file, '-']] });
  out.push(...rows(interleave({ name: 'node -e 0 (the floor)', steps: [[process.execPath, '-e', '0']] }, poppler(pdfs[10]), { runs, env })));
  for (const pages of [10, 100, 1000])
    out.push(...rows(interleave({ name: `verity verify document (${pages}-page text PDF)`, steps: [[process.execPath, bin, 'verify', 'document', pdfs[pages], '--json']] }, poppler(pdfs[pages]), { runs, env }), goals[pages]));
} else out.push('| PDF | poppler (pdfinfo, pdftotext) not installed: no anchor | | | |');

const jpeg = join(dir, 'small.jpg');
await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
  .blur(1.2)
  .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' }, IFD2: { DateTimeOriginal: '2025:06:01 10:00:00' } })
  .jpeg({ quality: 90 })
  .toFile(jpeg);
if (have('exiftool', ['-ver']))
  out.push(...rows(interleave({ name: 'verity verify media (640×480 JPEG)', steps: [[process.execPath, bin, 'verify', 'media', jpeg, '--json']] }, { name: 'exiftool', steps: [['exiftool', jpeg]] }, { runs, env })));
else out.push('| JPEG | exiftool not installed: no anchor | | | |');
console.log(out.join('\n'));

if (profileRuns) {
  // Per thread (0: the CLI's, 1: the PDF extraction thread), the mean milliseconds of each part.
  const sums = [new Map(), new Map()];
  const spans = [0, 0];
  for (let i = 0; i < profileRuns; i++) {
    const profDir = join(dir, `prof-${i}`);
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, bin, 'verify', 'document', pdfs[10], '--json'], { env, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`profiled run exited with ${r.status}`);
    // File names end in .<thread>.<sequence>.cpuprofile; the main thread's is written last.
    const files = readdirSync(profDir).sort((a, b) => Number(a.split('.').at(-3)) - Number(b.split('.').at(-3)));
    files.slice(0, 2).forEach((f, t) => {
      const { ms, spanMs } = splitProfile(join(profDir, f));
      spans[t] += spanMs / profileRuns;
      for (const [k, v] of Object.entries(ms)) sums[t].set(k, (sums[t].get(k) ?? 0) + v / profileRuns);
    });
  }
  const table = ['', `where the milliseconds go: 10-page PDF, mean of ${profileRuns} profiled runs (node --cpu-prof; self time by stack)`, '| part | CLI thread ms | PDF thread ms |', '|---|---:|---:|'];
  for (const name of PART_NAMES) table.push(`| ${name} | ${(sums[0].get(name) ?? 0).toFixed(0)} | ${(sums[1].get(name) ?? 0).toFixed(0)} |`);
  table.push(`| thread's whole span | ${spans[0].toFixed(0)} | ${spans[1].toFixed(0)} |`);
  console.log(table.join('\n'));
}
rmSync(dir, { recursive: true, force: true });
