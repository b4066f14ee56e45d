/**
 * Runs one media or document verification of the embedded engine in a worker thread. Their
 * analysis keeps the JavaScript thread busy for up to seconds at a time (pixel loops, PDF
 * parsing), during which a Ctrl-C handler on the main thread cannot run; in a worker the main
 * thread stays free, and an interrupt ends the work with `worker.terminate()` at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toVerityError } from '../api/errors.js';
import type { EngineConfig } from '../engine/types.js';

export interface WorkerJob {
  kind: 'media' | 'document';
  req: unknown;
  /**
   * The uploaded file's bytes, when the CLI read them (VerifyOptions.inputBytes): copied to the
   * worker as they are rather than as a base64 string it would check and decode again.
   */
  inputBytes?: Uint8Array;
  config: EngineConfig;
  storeFile: string;
  cacheDir: string;
  /**
   * Where this process keeps V8 code caches when not in cacheDir (bin/run-bundle.js, flagged V8).
   */
  codeCacheDir?: string;
}

export type WorkerReply = { ok: unknown } | { error: ReturnType<ReturnType<typeof toVerityError>['toBody']> };

// An async function rather than top-level await: the build bundles this entry as CommonJS
// (dist/engine-worker.cjs), which a worker starts without loading ~200 separate ES modules.
const engineModules = () => Promise.all([import('../engine/index.js'), import('../sources/ports.js')]);
let preloaded: ReturnType<typeof engineModules> | undefined;

async function run(job: WorkerJob): Promise<WorkerReply> {
  const [{ createEngine }, { createDefaultPorts }] = await (preloaded ?? engineModules());
  const ports = createDefaultPorts({ config: job.config, storeFile: job.storeFile, cacheDir: job.cacheDir, ssrfGuard: false });
  if (job.codeCacheDir) ports.codeCacheDir = job.codeCacheDir;
  try {
    const engine = createEngine(ports);
    // Structured cloning hands over a plain Uint8Array; the engine reads Buffers.
    const b = job.inputBytes;
    const opts = b ? { inputBytes: Buffer.from(b.buffer, b.byteOffset, b.byteLength) } : {};
    return { ok: job.kind === 'media' ? await engine.verifyMedia(job.req as never, opts) : await engine.verifyDocument(job.req as never, opts) };
  } catch (err) {
    return { error: toVerityError(err).toBody() };
  } finally {
    ports.closeStore();
  }
}

// The job comes with the worker's data, or as its first message when the worker was started
// before the job was known (engine-worker-boot.ts startEarlyAnalysisWorker).
const given = workerData as Partial<WorkerJob>;
if (parentPort) {
  if (given.kind) void run(given as WorkerJob).then((reply) => parentPort!.postMessage(reply));
  else {
    // Started early, the worker waits while the CLI loads and reads the file: it sets up the
    // engine's modules meanwhile (a failure there is reported with the job).
    preloaded = engineModules();
    preloaded.catch(() => undefined);
    parentPort.once('message', (job: WorkerJob) => void run(job).then((reply) => parentPort!.postMessage(reply)));
  }
}
