// Media analysis benchmark: full analysis and metadata-only reading of a 12-megapixel JPEG,
// beside exiftool on the same file in the same run. Imports the BUILT code (npm run build).
// Then the whole process, as a user runs it (`verity verify media FILE --json`), interleaved with
// exiftool on the same file, for three sizes made here the same way (camera-like noise, blur,
// EXIF): a 12 MP JPEG, a 24 MP JPEG (6000×4000) and a 4K PNG (3840×2160). Issue 31's goals:
// ≤ 2× exiftool at 12 MP, ≤ 2.5× at 24 MP and for the 4K PNG (issue 18's was ≤ 3× at 12 MP).
// `--no-video` skips the video part.
// Then video (issue 30), where ffmpeg is installed: a 30 s 1080p H.264 clip made here with
// ffmpeg, `verity verify media clip.mp4 --json` whole-process, interleaved with `ffprobe` (format
// and streams) + one `ffmpeg` frame extract (the frame at 15 s to PNG) of the same clip, as a ratio.
// `--video-only` skips the image part.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { HEADER, interleave, rows as comparisonRows } from './lib/interleave.mjs';

const videoOnly = process.argv.includes('--video-only');
const noVideo = process.argv.includes('--no-video');
const { analyzeImage } = await import('../dist/engine/media/analyze-image.js');
const { readMetadataDetails } = await import('../dist/engine/media/metadata.js');
const { readHeader } = await import('../dist/engine/media/decode.js');

const W = 4000, H = 3000, RUNS = 7;
// `--runs N`: interleaved whole-process pairs (default 5); more on a noisy machine.
const runsAt = process.argv.indexOf('--runs');
const PAIRS = runsAt > 0 ? Math.max(1, Number(process.argv[runsAt + 1]) || 5) : 5;
const dir = mkdtempSync(join(tmpdir(), 'verity-bench-media-'));
const file = join(dir, '12mp.jpg');
/** Camera-like content: Gaussian sensor noise over a colour, softened as a lens does, with EXIF. */
const photo = (width, height) =>
  sharp({ create: { width, height, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
    .blur(1.2)
    .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' }, IFD2: { DateTimeOriginal: '2025:06:01 10:00:00' } });
const bytes = await photo(W, H).jpeg({ quality: 90, quantisationTable: 2 }).toBuffer();
writeFileSync(file, bytes);
const larger = [
  { name: '24 MP JPEG', file: join(dir, '24mp.jpg'), make: () => photo(6000, 4000).jpeg({ quality: 90, quantisationTable: 2 }).toBuffer(), goal: 2.5 },
  { name: '4K PNG', file: join(dir, '4k.png'), make: () => photo(3840, 2160).png().toBuffer(), goal: 2.5 },
];
if (!videoOnly) for (const l of larger) writeFileSync(l.file, await l.make());

const ports = { clock: { now: () => new Date() }, config: {}, http: null, fetchInput: null };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let first = NaN;
async function time(fn) {
  // Warm-up: loads sharp, exifr and c2pa-wasm once and lets V8 optimise the pixel loops. Its own
  // time is reported for the first measured step: what a one-shot CLI process pays.
  const t0 = performance.now();
  await fn();
  if (Number.isNaN(first)) first = performance.now() - t0;
  const ts = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ts.push(performance.now() - t);
  }
  return median(ts);
}

const full = videoOnly ? NaN : await time(() => analyzeImage(bytes, { checkDeepfakes: true, checkWatermarks: true, ports }));
const meta = videoOnly ? NaN : await time(async () => {
  await readHeader(bytes);
  await readMetadataDetails(bytes);
});
let exif = NaN;
try {
  if (!videoOnly) exif = await time(async () => execFileSync('exiftool', ['-json', '-Make', '-Model', '-DateTimeOriginal', '-GPS:all', file]));
} catch {
  console.error('exiftool not installed: its column is empty');
}
const rssMb = process.resourceUsage().maxRSS / 1024;

// Whole process, interleaved with exiftool (the analysis above has finished: nothing else runs here).
const whole = [];
if (Number.isFinite(exif)) {
  const home = join(dir, 'home');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };
  for (const { name, file: f, goal } of [{ name: '12 MP JPEG', file, goal: 2 }, ...larger])
    whole.push({
      goal,
      result: interleave(
        { name: `verity verify media (${name})`, steps: [[process.execPath, new URL('../bin/verity.js', import.meta.url).pathname, 'verify', 'media', f, '--json']] },
        { name: 'exiftool -json (same file)', steps: [['exiftool', '-json', '-Make', '-Model', '-DateTimeOriginal', '-GPS:all', f]] },
        { runs: PAIRS, env },
      ),
    });
}

// Video: a 30 s 1080p clip (testsrc2 with temporal noise, H.264 at ~4 Mbit/s: under the 20 MB limit).
let video = null;
let clipInfo = '';
const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (hasFfmpeg && !noVideo) {
  const clip = join(dir, 'clip-1080p-30s.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=1920x1080:r=30:d=30', '-vf', 'noise=alls=6:allf=t', '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '4M', '-maxrate', '4500k', '-bufsize', '8M', '-g', '60', '-pix_fmt', 'yuv420p', clip]);
  clipInfo = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=size,duration,bit_rate', '-of', 'csv=p=0', clip], { encoding: 'utf8' }).trim();
  const home = join(dir, 'home');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };
  video = interleave(
    { name: 'verity verify media (30 s 1080p MP4)', steps: [[process.execPath, new URL('../bin/verity.js', import.meta.url).pathname, 'verify', 'media', clip, '--json']] },
    {
      name: 'ffprobe + ffmpeg one frame (same clip)',
      steps: [
        ['ffprobe', '-v', 'error', '-show_format', '-show_streams', '-of', 'json', clip],
        ['ffmpeg', '-v', 'error', '-y', '-ss', '15', '-i', clip, '-frames:v', '1', join(dir, 'frame.png')],
      ],
    },
    { runs: PAIRS, env },
  );
} else if (!noVideo) console.error('ffmpeg/ffprobe not installed: no video comparison');
rmSync(dir, { recursive: true, force: true });

const rows = [
  ['full analysis (12 MP JPEG)', full, '< 400 ms'],
  ['first analysis in a fresh process (cold)', first, '—'],
  ['metadata only', meta, '< 30 ms'],
  ['exiftool (process, same file)', exif, '—'],
];
console.log(`file: ${W}×${H} JPEG, ${(bytes.length / 1048576).toFixed(1)} MB; median of ${RUNS} runs; Node ${process.version}`);
console.log('| step | median ms | goal |\n|---|---:|---|');
for (const [n, ms, goal] of rows) console.log(`| ${n} | ${Number.isFinite(ms) ? ms.toFixed(1) : 'n/a'} | ${goal} |`);
console.log(`| peak RSS (whole run) | ${rssMb.toFixed(0)} MB | < 400 MB |`);
if (video) console.log(['', `video: 30 s 1920×1080 H.264 at 30 fps (size, duration, bit rate: ${clipInfo}); whole process, ${PAIRS} interleaved runs each after one warm-up; load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} at the end`, ...HEADER, ...comparisonRows(video)].join('\n'));
if (whole.length) console.log(['', `whole process, ${PAIRS} interleaved runs each after one warm-up; load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1/5/15 min) at the end`, ...HEADER, ...whole.flatMap((w) => comparisonRows(w.result, w.goal))].join('\n'));
