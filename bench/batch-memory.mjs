#!/usr/bin/env node
// Benchmark: the memory of a folder of photos as a batch (issue 31), whole process TREES: the
// sum of RSS and of PSS over a process and its descendants (bench/lib/tree-memory.mjs), sampled
// every 100 ms, so analysis processes count with the process that started them.
//   embedded  `verity verify batch DIR --type media --live --json`: the CLI's tree
//   remote    the same folder with `--remote URL` through a built `verity serve` (live business
//             key): the CLI's tree and serve's tree, each on its own
// Variants are environments the processes start with, run interleaved round by round (A B A B …)
// so a busy moment on the shared machine hits each alike, each round starting with the next one:
//   --variants default,arena2,mmap   (default: nothing added; arena2: MALLOC_ARENA_MAX=2;
//   mmap: MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072; arena2mmap: both)
//   BENCH_EXTRA_VARIANTS='name,K=V,K2=V2;name2,K=V' adds variants of your own
//   --bin PATH (another build's bin/verity.js, as variant "other"), --bins name=PATH,… (more builds,
//   each a variant of its name) --rounds N --mode embedded|remote|both
//   npm run build && node bench/batch-memory.mjs --dir /tmp/photos [--rounds 2]
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKey, startServe } from './lib/serve.mjs';
import { sampledRun, sampleTree } from './lib/tree-memory.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const dir = arg('dir');
if (!dir) throw new Error('--dir DIR (a folder of photos, e.g. node bench/lib/photos.mjs DIR 100 12)');
const rounds = Number(arg('rounds', 2));
const mode = arg('mode', 'both');
const here = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const other = arg('bin');
// --bins name=PATH,name2=PATH2: more builds, each a variant of its own name.
const bins = Object.fromEntries((arg('bins', '') || '').split(',').filter(Boolean).map((x) => x.split('=')));
const ENVS = {
  default: {},
  arena2: { MALLOC_ARENA_MAX: '2' },
  mmap: { MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
  arena2mmap: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' },
  ...Object.fromEntries((process.env.BENCH_EXTRA_VARIANTS ?? '').split(';').filter(Boolean).map((v) => { const [name, ...kv] = v.split(','); return [name, Object.fromEntries(kv.map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)]))]; })),
};
const variants = arg('variants', other ? 'default,other' : 'default').split(',');
const files = readdirSync(dir).filter((f) => !f.startsWith('.'));
const mb = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0) / 1048576;

/** Runs `args` to the end, sampling its tree; wall s, peaks (MB), the JSON summary it printed. */
const measured = (bin, args, env) => sampledRun(bin, args, env);

const rows = [];
for (let r = 1; r <= rounds; r++) {
  // Each round starts with the next variant (A B, B A, …): the first run of a round meets a cold
  // page cache and whatever the machine was doing before, and must not always be the same variant's.
  const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]);
  for (const v of order) {
    const bin = v === 'other' ? other : (bins[v] ?? here);
    const home = mkdtempSync(join(tmpdir(), 'verity-bench-mem-'));
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home, NO_COLOR: '1', ...(ENVS[v] ?? {}) };
    try {
      if (mode !== 'remote') {
        const load = loadavg()[0];
        const e = await measured(bin, ['verify', 'batch', dir, '--type', 'media', '--live', '--json'], env);
        if (e.summary.succeeded !== files.length) throw new Error(`embedded: ${e.summary.failed} failed`);
        rows.push({ r, v, what: 'embedded', load, files_s: files.length / e.wall, cli: e.peak });
      }
      if (mode !== 'embedded') {
        const key = createKey(bin, env, { environment: 'live', plan: 'business' });
        const { proc: serve, url } = await startServe(bin, env);
        const s = sampleTree(serve.pid);
        try {
          const load = loadavg()[0];
          const e = await measured(bin, ['--remote', url, '--key', key, 'verify', 'batch', dir, '--type', 'media', '--json'], env);
          if (e.summary.succeeded !== files.length) throw new Error(`remote: ${e.summary.failed} failed`);
          rows.push({ r, v, what: 'remote', load, files_s: files.length / e.wall, cli: e.peak, serve: s.stop() });
        } finally {
          s.stop();
          serve.kill('SIGTERM');
          await new Promise((res) => serve.once('exit', res));
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    const last = rows.at(-1);
    console.error(`round ${r} ${v}: ${JSON.stringify(last)}`);
  }
}

const f = (x) => x.toFixed(0);
console.log(`batch-memory: ${files.length} photos, ${mb.toFixed(0)} MB; whole process trees, peak of the sum (sampled 100 ms); node ${process.version}`);
console.log('| round | variant | batch | load | files/s | CPU ms per file (CLI tree + serve tree) | CLI tree RSS / PSS | serve tree RSS / PSS |\n|---|---|---|---:|---:|---:|---:|---:|');
for (const x of rows)
  console.log(
    `| ${x.r} | ${x.v} | ${x.what} | ${x.load.toFixed(1)} | ${x.files_s.toFixed(2)} | ${f(((x.cli.cpu + (x.serve?.cpu ?? 0)) * 1000) / files.length)} | ${f(x.cli.rss)} / ${f(x.cli.pss)} MB (${x.cli.processes} proc) | ${x.serve ? `${f(x.serve.rss)} / ${f(x.serve.pss)} MB (${x.serve.processes} proc)` : ''} |`,
  );
