/**
 * The simple-PDF reader (simple-reading.ts) and the structure reader it needs, for the extraction
 * thread, from one CommonJS file with a V8 code cache (../../code-cache.ts), as pdf.js's bundle is
 * (pdfjs-bundle.ts): the thread's reading ahead of a simple PDF is on the run's critical path, and
 * compiled from source in every process its ~80 KB cost the thread a few milliseconds before the
 * first page. The build (scripts/build.mjs) writes dist/simple-pdf.cjs; without it (the
 * TypeScript sources) the thread has none and pdf.js reads as before.
 */
import { pruneCodeCaches, runBuiltCommonJs, type CachedCommonJs } from '../../code-cache.js';
import type * as SimpleReading from './simple-reading.js';
import type * as Structure from './structure.js';

const BUNDLE = new URL('../../../simple-pdf.cjs', import.meta.url);

export type BundledSimpleReader = Pick<typeof SimpleReading, 'readLikePdfJs'> & Pick<typeof Structure, 'readPdfStructure'>;

let loaded: CachedCommonJs<BundledSimpleReader> | undefined;

/** The reader from dist/simple-pdf.cjs, through the code cache in `codeCacheDir` when given; undefined when there is no bundle. */
export function loadBundledSimpleReader(codeCacheDir: string | undefined): BundledSimpleReader | undefined {
  loaded = runBuiltCommonJs<BundledSimpleReader>(BUNDLE, codeCacheDir, 'simplepdf');
  return loaded?.exports;
}

/**
 * The reader for the calling thread: the bundle through its code cache in built code, which keeps
 * the reader (~80 KB with its font tables) out of the CLI bundle that every command reads (it
 * made a sandbox claim's start ~1 % slower there); else (the TypeScript sources, tsc's dist/) the
 * modules themselves. The specifiers are not literals, so that the CLI's bundler leaves them out.
 */
export async function loadSimpleReader(codeCacheDir: string | undefined): Promise<BundledSimpleReader> {
  const bundled = loadBundledSimpleReader(codeCacheDir);
  if (bundled) return bundled;
  const [reading, structure] = (await Promise.all([import(SIMPLE_READING), import(STRUCTURE)])) as [typeof SimpleReading, typeof Structure];
  return { readLikePdfJs: reading.readLikePdfJs, readPdfStructure: structure.readPdfStructure };
}
const SIMPLE_READING: string = './simple-reading.js';
const STRUCTURE: string = './structure.js';

/** Writes the code cache when this process had none (or V8 rejected it), once the reader has run; then the newest few stay. */
export function saveBundledSimpleReaderCache(): void {
  const cache = loaded;
  loaded = undefined;
  if (cache?.save() && cache.cacheFile) pruneCodeCaches(cache.cacheFile, 'simplepdf');
}
