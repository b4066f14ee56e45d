/**
 * pdf.js from one CommonJS file with a V8 code cache. pdf.js ships as ES modules (1.5 MB
 * minified), which Node 20 compiles from source in every process (~60–100 ms on the extraction
 * thread; Node 20 has no module compile cache). The build (scripts/build.mjs) bundles the same two
 * modules into dist/pdfjs.cjs; compiled here through `vm.Script` it can start from the bytecode a
 * previous run left in the cache folder (keyed by the bundle's size and mtime and the Node
 * version; V8 itself rejects a cache that does not match, which only costs one uncached start).
 * Under the TypeScript sources (tests) the bundle does not exist and pdfjs-reader.ts imports the
 * ES modules as before.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const BUNDLE = new URL('../../../pdfjs.cjs', import.meta.url);

/** The script whose bytecode is to be saved once the job has run (so the functions it compiled are in it). */
let unsaved: { script: vm.Script; cacheFile: string } | undefined;

export interface BundledPdfJs {
  api: unknown;
  worker: unknown;
}

/** pdf.js from dist/pdfjs.cjs, through the code cache in `codeCacheDir` when given; undefined when there is no bundle. */
export function loadBundledPdfJs(codeCacheDir: string | undefined): BundledPdfJs | undefined {
  if (BUNDLE.protocol !== 'file:') return undefined;
  const file = fileURLToPath(BUNDLE);
  let source: string;
  let size: number;
  let mtime: number;
  try {
    const st = statSync(file);
    [size, mtime] = [st.size, Math.trunc(st.mtimeMs)];
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const cacheFile = codeCacheDir ? join(codeCacheDir, `pdfjs-${size}-${mtime}-${process.version}-${process.arch}.v8cache`) : undefined;
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const wrap = (Module as unknown as { wrap(source: string): string }).wrap;
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) unsaved = { script, cacheFile };
  const mod = { exports: {} as BundledPdfJs };
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
  return mod.exports;
}

/** Writes the code cache when this process had none (or V8 rejected it); a folder that cannot be written is left alone. */
export function saveBundledPdfJsCache(): void {
  if (!unsaved) return;
  const { script, cacheFile } = unsaved;
  unsaved = undefined;
  const tmp = `${cacheFile}.${process.pid}.${threadId}.tmp`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    renameSync(tmp, cacheFile);
    // One cache stays: those of earlier builds (or another Node version) are dropped.
    for (const f of readdirSync(dirname(cacheFile)))
      if (/^pdfjs-\d+-\d+-v[\d.]+-\w+\.v8cache$/.test(f) && f !== basename(cacheFile)) unlinkSync(join(dirname(cacheFile), f));
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // never created
    }
  }
}
