/**
 * The embedded batch's pool (issue 31): media and document items of `verity verify batch` run in
 * worker threads, one engine per core, so a folder of photos uses every core instead of one. It is
 * serve's analysis pool (server/analysis-pool.ts) on the same worker (engine-worker.ts, pool mode)
 * with the CLI's settings: no URL guard (the CLI's own engine has none), and a per-file budget
 * far above any real file, since a batch on a person's machine has no other requests to protect.
 * The worker threads run in the analysis host, a child process with glibc malloc settings that
 * keep decoded images from piling up in malloc arenas (cli/analysis-host.ts).
 *
 * Claims and companies stay on this thread (they wait on sources, not on the CPU), and so does a
 * sandbox run (computed from the request alone: a worker's start would cost more than the work).
 */
import type { Engine } from '../engine/types.js';
import type { CliRuntime } from './runtime.js';

/** A file's budget in the CLI's pool: only a guard against a file that never finishes. */
const CLI_JOB_BUDGET_MS = 30 * 60_000;

export interface BatchPool {
  engine: Engine;
  close(): Promise<void>;
}

/** `engine` with media and document verifications sent to `size` worker threads. */
export async function batchPool(rt: CliRuntime, engine: Engine, size: number): Promise<BatchPool> {
  const [{ AnalysisPool, withAnalysisPool, DEFAULT_WORKER_MEMORY_MB }, { analysisHost }] = await Promise.all([
    import('../server/analysis-pool.js'),
    import('./analysis-host.js'),
  ]);
  // The host process runs V8 flags of its own and keeps its threads' code caches in a folder of
  // its own under the cache folder (analysis-host.ts), not in a flagged folder of this process.
  const data = { pool: true as const, ssrfGuard: false, config: rt.engineConfig(), storeFile: rt.ctx.paths.storeFile, cacheDir: rt.ctx.paths.cacheDir };
  const host = analysisHost();
  const pool = new AnalysisPool({
    size,
    jobBudgetMs: CLI_JOB_BUDGET_MS,
    memoryMb: DEFAULT_WORKER_MEMORY_MB,
    start: (resourceLimits) => host.start(data, resourceLimits),
  });
  return { engine: withAnalysisPool(engine, pool, 'live'), close: () => pool.close() };
}
