#!/usr/bin/env node
// Benchmark: a folder of photos as `verity verify batch DIR --type media --remote URL` (issue 31),
// whole processes: the built CLI serves on 127.0.0.1 (a live business key: real analysis in
// serve's worker pool) and the CLI uploads the folder as streamed server batches and follows
// their results. Reported: files/s, the peak RSS of the CLI's process tree and the peak of serve's
// process tree (serve and its analysis host, summed RSS and PSS sampled every 100 ms:
// bench/lib/tree-memory.mjs), so the bound "memory does not grow with the folder" can be read off
// against the folder's size. bench/batch-memory.mjs compares builds and settings, interleaved.
// Photos: --dir DIR (kept), or --photos N [--mp 12] generated in a temp folder (removed after).
// Anchor, same run: the same folder as an embedded batch (`verify batch DIR --type media --live`).
//   npm run build && node bench/batch-remote.mjs --dir /tmp/photos   [--no-anchor]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePhotos } from './lib/photos.mjs';
import { createKey, startServe } from './lib/serve.mjs';
import { sampledRun, sampleTree } from './lib/tree-memory.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const bin = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'verity-bench-remote-'));
// glibc's allocator settings (MALLOC_ARENA_MAX …), when given, reach both processes.
const malloc = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_') || k === 'NODE_OPTIONS'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home, NO_COLOR: '1', ...malloc };
let dir = arg('dir');
const made = !dir;
if (made) {
  dir = join(home, 'photos');
  await writePhotos(dir, Number(arg('photos', 20)), Number(arg('mp', 12)));
}
const files = readdirSync(dir).filter((f) => !f.startsWith('.'));
const mb = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0) / 1048576;

const vm = (pid, field) => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** One whole CLI run: wall s, its tree's peak RSS MB (the CLI and any analysis host), its JSON summary (exit 1: some item failed). */
const timed = async (args) => {
  const r = await sampledRun(bin, args, env, [0, 1]);
  return { wall: r.wall, rss: r.peak.rss, summary: r.summary };
};

const key = createKey(bin, env, { environment: arg('env', 'live'), plan: 'business' });
const { proc: serve, url } = await startServe(bin, env);
try {
  const idle = vm(serve.pid, 'VmRSS');
  const tree = sampleTree(serve.pid);
  const remote = await timed(['--remote', url, '--key', key, 'verify', 'batch', dir, '--type', 'media', '--json']);
  const servePeak = tree.stop();
  const s = remote.summary;
  console.log(`batch-remote: ${files.length} photos, ${mb.toFixed(0)} MB, through verity serve on loopback (node ${process.version})`);
  console.log(`  remote    ${(files.length / remote.wall).toFixed(2)} files/s (${remote.wall.toFixed(1)} s; ${s.succeeded} succeeded, ${s.failed} failed); CLI peak RSS ${remote.rss.toFixed(0)} MB; serve ${idle.toFixed(0)} MB idle, its tree's peak ${servePeak.rss.toFixed(0)} MB RSS / ${servePeak.pss.toFixed(0)} MB PSS (${servePeak.processes} processes)`);
  if (!process.argv.includes('--no-anchor')) {
    const local = await timed(['verify', 'batch', dir, '--type', 'media', '--live', '--json']);
    console.log(`  embedded  ${(files.length / local.wall).toFixed(2)} files/s (${local.wall.toFixed(1)} s); peak RSS ${local.rss.toFixed(0)} MB`);
  }
  if (s.succeeded !== files.length) process.exitCode = 1;
} finally {
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  rmSync(home, { recursive: true, force: true });
}
