#!/usr/bin/env node
/**
 * What the NLI stance path (claim.stance = nli) costs per passage, through the BUILT classifier
 * (dist/engine/claim/nli): tokenizer + onnxruntime-node, batches of 8, on
 *   - the tiny test model (a gather and a mean: the fixed cost of the path itself), and
 *   - a random-weight encoder of DeBERTa-v3-xsmall's dimensions (12 layers, hidden 384, 6 heads,
 *     FFN 1536; BERT-style attention, fp32), which is what a real cross-encoder of that size
 *     computes. The default download is int8-quantised DeBERTa, whose disentangled attention
 *     costs a little more and whose int8 matrix products cost less: read these as the order of
 *     magnitude, not the figure for the real model.
 * The anchor, measured in the same run, is tokenizing the same pairs (what every path pays).
 * Models are written to a temp folder by the test helpers (bundled here with esbuild).
 *
 *   npm run build && node bench/nli.mjs [--passages 64] [--runs 3] [--threads N]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const num = (name, d) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : d;
};
const PASSAGES = num('--passages', 64);
const RUNS = num('--runs', 3);
const THREADS = num('--threads', 0) || undefined;

const repo = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'verity-bench-nli-'));
try {
  await build({
    entryPoints: [join(repo, 'test/helpers/tiny-nli-model.ts'), join(repo, 'test/helpers/encoder-model.ts')],
    outdir: join(work, 'helpers'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    external: ['protobufjs'],
    logLevel: 'warning',
  });
  // The bundles import protobufjs by name: resolve it from the repo's node_modules.
  writeFileSync(join(work, 'package.json'), '{"type":"module"}');
  mkdirSync(join(work, 'node_modules'));
  const { symlinkSync } = await import('node:fs');
  symlinkSync(join(repo, 'node_modules/protobufjs'), join(work, 'node_modules/protobufjs'));

  const tiny = await import(join(work, 'helpers/tiny-nli-model.mjs'));
  const enc = await import(join(work, 'helpers/encoder-model.mjs'));
  const { createOnnxNliClassifier } = await import(new URL('../dist/engine/claim/nli/classifier.js', import.meta.url).href);
  const { createPairEncoder } = await import(new URL('../dist/engine/claim/nli/encode.js', import.meta.url).href);
  const { Tokenizer } = await import('@huggingface/tokenizers');

  const tinyDir = join(work, 'tiny');
  tiny.writeTinyNliModel(tinyDir);
  const xsDir = join(work, 'xsmall');
  tiny.writeTinyNliModel(xsDir); // config + tokenizer files; the graph is replaced next
  let t = performance.now();
  writeFileSync(join(xsDir, 'model.onnx'), enc.randomEncoderGraph(enc.XSMALL));
  const writeMs = performance.now() - t;

  // Pairs of a given token length: a 12-token claim and a passage filling the rest.
  const words = ['the', 'tower', 'is', 'in', 'paris', 'london', 'sky', 'blue', 'tall', 'it', 'stands', 'a', 'city'];
  const pairsOf = (tokens) =>
    Array.from({ length: PASSAGES }, (_, i) => ({
      premise: Array.from({ length: Math.max(1, tokens - 15) }, (_, j) => words[(i + j * 7) % words.length]).join(' '),
      hypothesis: Array.from({ length: 12 }, (_, j) => words[(i * 3 + j) % words.length]).join(' '),
    }));

  const tokenizer = new Tokenizer(tiny.tinyTokenizerJson(), {});
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Wall time, and CPU time of the whole process (onnxruntime's threads included), which a
  // busy shared machine inflates far less than wall time.
  const timePerPassage = async (fn) => {
    const times = [];
    const cpu = [];
    for (let r = 0; r < RUNS; r++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn();
      times.push((performance.now() - t0) / PASSAGES);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000 / PASSAGES);
    }
    return { wall: median(times), cpu: median(cpu) };
  };

  const rows = [];
  for (const [label, dir] of [['tiny model', tinyDir], ['xsmall-size encoder (fp32)', xsDir]]) {
    const nli = createOnnxNliClassifier({ dir, id: label, maxLength: 512, ...(THREADS ? { threads: THREADS } : {}) });
    t = performance.now();
    await nli.load();
    const loadMs = performance.now() - t;
    for (const tokens of [64, 128, 256]) {
      const pairs = pairsOf(tokens);
      await nli.classify(pairs.slice(0, 8)); // warm-up
      const ms = await timePerPassage(() => nli.classify(pairs));
      const pe = createPairEncoder(tokenizer, 512, '[PAD]');
      const anchor = await timePerPassage(async () => pairs.forEach((p) => pe.encode(p)));
      rows.push({ model: label, tokens, ms: ms.wall, cpu: ms.cpu, anchor: anchor.wall, loadMs });
    }
    await nli.close();
  }

  console.log(`NLI stance cost per passage (median of ${RUNS} runs of ${PASSAGES} passages, batches of 8, ${THREADS ?? 'default'} threads; Node ${process.version})`);
  console.log(`xsmall-size graph written in ${writeMs.toFixed(0)} ms`);
  const { loadavg } = await import('node:os');
  console.log(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('model                        | tokens/pair | ms/passage | CPU ms/passage | tokenizing only | ratio | session load');
  for (const r of rows)
    console.log(
      `${r.model.padEnd(28)} | ${String(r.tokens).padStart(11)} | ${r.ms.toFixed(3).padStart(10)} | ${r.cpu.toFixed(3).padStart(14)} | ${r.anchor.toFixed(3).padStart(15)} | ${(r.ms / r.anchor).toFixed(0).padStart(5)}× | ${r.loadMs.toFixed(0)} ms`,
    );
} finally {
  rmSync(work, { recursive: true, force: true });
}
