/**
 * Starts the analysis worker (engine-worker.ts, bundled as dist/engine-worker.cjs) through a V8
 * code cache, as bin/verity.js starts the CLI: compiling the 0.7 MB bundle from source cost the
 * worker ~0.2 s on every large-file verification. The worker's first module is
 * engine-worker-boot-main.ts (an ES module file in dist/, so the bundle's lazy imports of packages
 * resolve from the package, not from the current directory).
 */
import type { Worker } from 'node:worker_threads';

/** A worker running `bundle` (a CommonJS file) with `workerData` = `data` plus the bundle's path. */
export async function startCachedWorker(bundle: string, data: { cacheDir: string }): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  return new Worker(new URL('./engine-worker-boot-main.js', import.meta.url), { workerData: { ...data, bundle } });
}
