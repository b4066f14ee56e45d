#!/usr/bin/env node
/**
 * One batch against one process per item (issue 15): 100 camera-like JPEGs and 100 text
 * documents as ONE `verity verify batch` run, against `verity verify media|document FILE --json`
 * run once per file, whole process, embedded live analysis of local files (nothing leaves the
 * machine). Interleaved A-B-A-B — batch, first half of the single runs, batch, second half — so
 * a busy moment on the shared machine hits both alike; the batch figure is the mean of its two
 * runs, the single-run figure the sum of the two halves. Goal: the batch ≥ 10× faster.
 *
 *   npm run build && node bench/batch.mjs [--photos 100] [--docs 100]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const args = process.argv.slice(2);
const flag = (name, d) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const PHOTOS = flag('--photos', 100);
const DOCS = flag('--docs', 100);
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'verity-bench-batch-'));
const home = mkdtempSync(join(tmpdir(), 'verity-bench-home-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

// Camera-like photos: 2048×1536 (3 MP, a phone's "medium" size), sensor-like noise softened by
// the lens, camera EXIF, quality 90; each a little different so no two files are the same.
mkdirSync(join(dir, 'photos'));
const MAKES = [['Canon', 'Canon EOS R5'], ['NIKON CORPORATION', 'NIKON Z 6_2'], ['Apple', 'iPhone 14 Pro'], ['SONY', 'ILCE-7M4']];
let photoBytes = 0;
for (let i = 0; i < PHOTOS; i++) {
  const [Make, Model] = MAKES[i % MAKES.length];
  const buf = await sharp({
    create: { width: 2048, height: 1536, channels: 3, background: { r: 60 + (i % 7) * 20, g: 110, b: 170 - (i % 5) * 15 }, noise: { type: 'gaussian', mean: 120, sigma: 28 } },
  })
    .blur(1.1)
    .withExif({ IFD0: { Make, Model, Software: 'Firmware 1.2' }, IFD2: { DateTimeOriginal: `2025:06:${String(1 + (i % 28)).padStart(2, '0')} 10:${String(i % 60).padStart(2, '0')}:00`, ExposureTime: '1/250', FNumber: '4' } })
    .jpeg({ quality: 90 })
    .toBuffer();
  photoBytes += buf.length;
  writeFileSync(join(dir, 'photos', `IMG_${String(1000 + i)}.jpg`), buf);
}

// Text documents: a few paragraphs of varied, plain prose (2 to 6 KB each).
mkdirSync(join(dir, 'docs'));
const WORDS =
  'the committee reviewed quarterly figures and noted that revenue rose while costs in the northern region fell slightly after the new supplier contract was signed in march our team will report again when the audit is complete although several open questions remain about the timing of payments and the inventory count at the second warehouse'.split(
    ' ',
  );
let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
for (let i = 0; i < DOCS; i++) {
  const paras = [];
  for (let p = 0; p < 3 + (i % 5); p++) {
    const sentences = [];
    for (let s = 0; s < 4 + Math.floor(rand() * 4); s++) {
      const n = 8 + Math.floor(rand() * 14);
      const w = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
      sentences.push(`${w[0][0].toUpperCase()}${w.join(' ').slice(1)}.`);
    }
    paras.push(sentences.join(' '));
  }
  writeFileSync(join(dir, 'docs', `memo-${String(i).padStart(3, '0')}.txt`), `Memo ${i}\n\n${paras.join('\n\n')}\n`);
}

const items = [
  ...Array.from({ length: PHOTOS }, (_, i) => ({ type: 'media', file: `photos/IMG_${1000 + i}.jpg` })),
  ...Array.from({ length: DOCS }, (_, i) => ({ type: 'document', file: `docs/memo-${String(i).padStart(3, '0')}.txt` })),
];
// Interleave kinds in the batch file as a mixed list would be.
items.sort((a, b) => (a.file.match(/\d+/)[0] % 2) - (b.file.match(/\d+/)[0] % 2) || a.file.localeCompare(b.file));
writeFileSync(join(dir, 'batch.jsonl'), items.map((x) => JSON.stringify(x)).join('\n'));

/** One whole process; wall ms and, when /usr/bin/time exists, its peak RSS in MB. */
function run(argv) {
  const cmd = TIME ? TIME : process.execPath;
  const full = TIME ? ['-f', '%M', process.execPath, bin, ...argv] : [bin, ...argv];
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, full, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`verity ${argv.join(' ')} exited with ${r.status}: ${String(r.stderr).slice(-500)}`);
  const rss = TIME ? Number(String(r.stderr).trim().split('\n').pop()) / 1024 : NaN;
  return { ms, rss, stdout: String(r.stdout) };
}

function batch(n) {
  const out = `results-${n}.ndjson`;
  const r = run(['verify', 'batch', 'batch.jsonl', '--live', '--json', '--out', out]);
  const s = JSON.parse(r.stdout);
  if (s.succeeded !== items.length) throw new Error(`batch: ${s.failed} failed`);
  return r;
}
const perKind = { media: [], document: [] };
function singles(part) {
  let ms = 0;
  let rss = 0;
  for (const it of part) {
    const r = run(['verify', it.type, it.file, '--live', '--json']);
    ms += r.ms;
    perKind[it.type].push(r.ms);
    rss = Math.max(rss, r.rss);
  }
  return { ms, rss };
}

// Warm-up: one single run of each kind (fills Node's compile cache for both sides).
run(['verify', 'media', items.find((x) => x.type === 'media').file, '--live', '--json']);
run(['verify', 'document', items.find((x) => x.type === 'document').file, '--live', '--json']);

const load0 = loadavg()[0];
const half = Math.ceil(items.length / 2);
const b1 = batch(1);
const s1 = singles(items.slice(0, half));
const b2 = batch(2);
const s2 = singles(items.slice(half));
const load1 = loadavg()[0];

// The batch's results are the single runs' results (ids and latency aside): check one of each.
const byFile = Object.fromEntries(
  readFileSync(join(dir, 'results-1.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .map((l) => [items[l.index].file, l.result]),
);
const strip = ({ id, latency_ms, ...rest }) => rest;
for (const it of [items.find((x) => x.type === 'media'), items.find((x) => x.type === 'document')]) {
  const single = JSON.parse(run(['verify', it.type, it.file, '--live', '--json']).stdout);
  if (JSON.stringify(strip(single)) !== JSON.stringify(strip(byFile[it.file]))) throw new Error(`batch result for ${it.file} differs from the single run`);
}

const inBatch = { media: [], document: [] };
for (const [file, r] of Object.entries(byFile)) inBatch[file.startsWith('photos/') ? 'media' : 'document'].push(r.latency_ms);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const batchMs = (b1.ms + b2.ms) / 2;
const singleMs = s1.ms + s2.ms;
const n = items.length;
console.log(
  `${PHOTOS} JPEGs 2048×1536 (${(photoBytes / PHOTOS / 1024).toFixed(0)} KB each) + ${DOCS} text documents; embedded live analysis; Node ${process.version}; load average ${load0.toFixed(1)} → ${load1.toFixed(1)}`,
);
console.log('| run | whole-process time | per item | peak RSS |\n|---|---:|---:|---:|');
console.log(`| one batch (mean of 2: ${(b1.ms / 1000).toFixed(1)} s, ${(b2.ms / 1000).toFixed(1)} s) | ${(batchMs / 1000).toFixed(1)} s | ${(batchMs / n).toFixed(0)} ms | ${Math.max(b1.rss, b2.rss).toFixed(0)} MB |`);
console.log(`| ${n} separate runs (two halves) | ${(singleMs / 1000).toFixed(1)} s | ${(singleMs / n).toFixed(0)} ms | ${Math.max(s1.rss, s2.rss).toFixed(0)} MB (largest) |`);
for (const k of ['media', 'document'])
  console.log(`| ${k}: one separate run, mean / the analysis inside the batch, median | ${mean(perKind[k]).toFixed(0)} ms / ${median(inBatch[k]).toFixed(0)} ms | | |`);
const ratio = singleMs / batchMs;
console.log(`batch is ${ratio.toFixed(1)}× faster (goal ≥ 10×): ${ratio >= 10 ? 'met' : 'NOT met'}; results equal to single runs (ids and latency aside): checked`);
rmSync(dir, { recursive: true, force: true });
rmSync(home, { recursive: true, force: true });
