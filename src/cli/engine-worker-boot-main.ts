/**
 * First module of the analysis worker (engine-worker-boot.ts): loads the bundled worker through a
 * V8 code cache in the cache folder, keyed by the bundle's size, mtime and the Node version, and
 * written when the worker's job is done (so the functions the analysis compiled are in it). V8
 * rejects a cache that does not match, which only costs one slower start.
 */
import { workerData } from 'node:worker_threads';
import { pruneCodeCaches, runCommonJsWithCodeCache } from '../engine/code-cache.js';

const { bundle: file, cacheDir: dataCacheDir, codeCacheDir } = workerData as { bundle: string; cacheDir: string; codeCacheDir?: string };
// A process whose V8 flags bin/run-bundle.js changed keeps its code caches in a folder of their
// own.
const cacheDir = codeCacheDir ?? dataCacheDir;
// Functions restored from a code cache lose vm's dynamic-import hook: the bundle's lazy imports of
// external packages go through this loader (scripts/build.mjs rewrites them), resolved from here.
(globalThis as { __verity_import?: (s: string) => Promise<unknown> }).__verity_import = (specifier) => import(specifier);
const worker = runCommonJsWithCodeCache(file, cacheDir, 'engine-worker');
// Written at exit, so the functions the analysis compiled are in the cache too.
process.once('exit', () => {
  if (worker.save() && worker.cacheFile) pruneCodeCaches(worker.cacheFile, 'engine-worker');
});
