/**
 * Starts the analysis worker (engine-worker.ts, bundled as dist/engine-worker.cjs) through a V8
 * code cache, as bin/verity.js starts the CLI: compiling the 0.7 MB bundle from source cost the
 * worker ~0.2 s on every large-file verification. The worker's first module is
 * engine-worker-boot-main.ts (an ES module file in dist/, so the bundle's lazy imports of packages
 * resolve from the package, not from the current directory).
 */
import type { ResourceLimits, Worker } from 'node:worker_threads';

/** A worker running `bundle` (a CommonJS file) with `workerData` = `data` plus the bundle's path. */
export async function startCachedWorker(bundle: string, data: { cacheDir: string; codeCacheDir?: string }, resourceLimits?: ResourceLimits): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  return new Worker(new URL('./engine-worker-boot-main.js', import.meta.url), { workerData: { ...data, bundle }, ...(resourceLimits ? { resourceLimits } : {}) });
}

/** The analysis worker bundle (scripts/build.mjs) beside dist/verity.cjs; from the tsc output in dist/cli/ too. */
export async function engineWorkerBundle(): Promise<string> {
  const { fileURLToPath } = await import('node:url');
  return fileURLToPath(new URL('../engine-worker.cjs', import.meta.url));
}

/**
 * The analysis worker started before its job is known (bin/run-bundle.js, for `verify document`
 * of a large local file): its start-up and the bundle's load overlap the CLI's own start-up
 * instead of following it. The job is posted later (runtime.ts). Until taken it does not keep the
 * process alive; a worker that failed or ended before being taken is not handed out.
 */
export interface EarlyAnalysisWorker {
  /** The worker, the first time it is asked for while alive; the caller attaches its listeners at once. */
  take(): Worker | undefined;
  /** Stops the worker if it was never taken (the command is over). */
  discard(): void;
}

export async function startEarlyAnalysisWorker(bundle: string, cacheDir: string): Promise<EarlyAnalysisWorker> {
  const { Worker } = await import('node:worker_threads');
  let worker: Worker | undefined = new Worker(new URL('./engine-worker-boot-main.js', import.meta.url), { workerData: { cacheDir, bundle } });
  let alive = true;
  const gone = (): void => {
    alive = false;
  };
  worker.once('error', gone);
  worker.once('exit', gone);
  worker.unref();
  return {
    take: () => {
      const w = alive ? worker : undefined;
      worker = undefined;
      w?.off('error', gone).off('exit', gone);
      return w;
    },
    discard: () => {
      void worker?.terminate();
      worker = undefined;
    },
  };
}
