/**
 * pdf.js from one CommonJS file with a V8 code cache (../../code-cache.ts). pdf.js ships as ES
 * modules (1.5 MB minified), which Node 20 compiles from source in every process (~60–100 ms on
 * the extraction thread). The build (scripts/build.mjs) bundles the same two modules into
 * dist/pdfjs.cjs, which can start from the bytecode a previous run left in the cache folder.
 * Under the TypeScript sources (tests) the bundle does not exist and pdfjs-reader.ts imports the
 * ES modules as before.
 */
import { pruneCodeCaches, runBuiltCommonJs, type CachedCommonJs } from '../../code-cache.js';

const BUNDLE = new URL('../../../pdfjs.cjs', import.meta.url);

/** The loaded bundle, whose cache is saved once the job has run (so the functions it compiled are in it). */
let loaded: CachedCommonJs<BundledPdfJs> | undefined;

export interface BundledPdfJs {
  api: unknown;
  worker: unknown;
}

/** pdf.js from dist/pdfjs.cjs, through the code cache in `codeCacheDir` when given; undefined when there is no bundle. */
export function loadBundledPdfJs(codeCacheDir: string | undefined): BundledPdfJs | undefined {
  loaded = runBuiltCommonJs<BundledPdfJs>(BUNDLE, codeCacheDir, 'pdfjs');
  return loaded?.exports;
}

/** Writes the code cache when this process had none (or V8 rejected it); then the newest few caches of pdf.js stay. */
export function saveBundledPdfJsCache(): void {
  const cache = loaded;
  loaded = undefined;
  // Those of earlier builds (or another Node version) beyond the newest few are dropped.
  if (cache?.save() && cache.cacheFile) pruneCodeCaches(cache.cacheFile, 'pdfjs');
}
