/**
 * Runs media or document verifications of the engine in a worker thread. Their analysis keeps the
 * JavaScript thread busy for up to seconds at a time (pixel loops, PDF parsing), during which a
 * Ctrl-C handler on the main thread cannot run, or (in `serve`) no other request is answered; in a
 * worker the main thread stays free, and an interrupt or a job past its budget ends the work with
 * `worker.terminate()` at once.
 *
 * Two modes: the CLI's one job (in workerData, or the first message of a worker started early),
 * and a pool (server/analysis-pool.ts, used by serve and by the CLI's embedded batches):
 * `workerData.pool` set, jobs arrive as messages with an id, one at a time, on one set of ports
 * kept for the worker's life.
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

/** What serve's pool starts a worker with: the ports' settings, shared by all its jobs. */
export interface PoolWorkerData {
  pool: true;
  config: EngineConfig;
  storeFile: string;
  cacheDir: string;
  codeCacheDir?: string;
  /**
   * The URL guard (private addresses refused) for URLs the engine fetches: serve's pool keeps it
   * on (the default); the CLI's batch pool (cli/batch-pool.ts) turns it off, as its own engine does.
   */
  ssrfGuard?: boolean;
}

/** One pool job, as a message; answered `{ id, ...WorkerReply }`. */
export interface PoolJob {
  id: number;
  kind: 'media' | 'document';
  req: unknown;
  inputBytes?: Uint8Array;
  /** VerifyOptions.inputFile: the file is read here, not by the process that sent the job. */
  inputFile?: string;
  /** The request is its schema's output already (the route validated it). */
  validated?: boolean;
  /** Which engine: live keys' real one, or test keys' sandbox (which still reads the file's own facts). */
  engine: 'live' | 'sandbox';
}

// An async function rather than top-level await: the build bundles this entry as CommonJS
// (dist/engine-worker.cjs), which a worker starts without loading ~200 separate ES modules.
const engineModules = () => Promise.all([import('../engine/index.js'), import('../engine/default-ports.js')]);
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

/**
 * A full garbage collection, run after each pool job (issue 31). A 12 MP photo's analysis leaves
 * 20–70 MB of decoded pixel buffers that nothing references any more, but their JavaScript
 * handles are small, so V8 sees little reason to collect them before the next photo adds as
 * much again; with two workers that was ~100 MB of dead pixels at the batch's peak. Collected at
 * once, the buffers go back to the allocator (in the analysis host, to the system: see
 * analysis-host.ts). A full collection of the worker's ~30 MB heap costs a few milliseconds,
 * against ~250 ms of CPU for the photo. The `gc` function is taken with the flag set only while
 * it is fetched, so the V8 flags (which code caches are checked against) stay as they were.
 */
function collector(): (() => void) | undefined {
  try {
    const v8 = process.getBuiltinModule('node:v8');
    const vm = process.getBuiltinModule('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    v8.setFlagsFromString('--no-expose-gc');
    return typeof gc === 'function' ? gc : undefined;
  } catch {
    return undefined;
  }
}

let collect: (() => void) | undefined;

/** A pool (serve's, or the CLI's batch pool): one engine and one set of ports for every job of this worker. */
function servePool(data: PoolWorkerData): void {
  collect = collector();
  const ready = engineModules().then(([{ createEngine, createSandboxEngine }, { createDefaultPorts }]) => {
    const ports = createDefaultPorts({ config: data.config, storeFile: data.storeFile, cacheDir: data.cacheDir, ssrfGuard: data.ssrfGuard ?? true });
    if (data.codeCacheDir) ports.codeCacheDir = data.codeCacheDir;
    return { live: createEngine(ports), sandbox: createSandboxEngine(ports) };
  });
  ready.catch(() => undefined);
  parentPort!.on('message', (job: PoolJob) => {
    void (async (): Promise<WorkerReply> => {
      try {
        const engine = (await ready)[job.engine];
        const b = job.inputBytes;
        const opts = {
          ...(b ? { inputBytes: Buffer.from(b.buffer, b.byteOffset, b.byteLength) } : job.inputFile !== undefined ? { inputFile: job.inputFile } : {}),
          validated: job.validated === true,
        };
        return { ok: job.kind === 'media' ? await engine.verifyMedia(job.req as never, opts) : await engine.verifyDocument(job.req as never, opts) };
      } catch (err) {
        return { error: toVerityError(err).toBody() };
      }
    })().then((reply) => {
      // The answer first: the collection then overlaps the parent's handling of it.
      parentPort!.postMessage({ id: job.id, ...reply });
      collect?.();
    });
  });
}

// The job comes with the worker's data, or as its first message when the worker was started
// before the job was known (engine-worker-boot.ts startEarlyAnalysisWorker); a pool worker takes
// jobs for as long as it lives.
const given = workerData as Partial<WorkerJob> & { pool?: boolean };
if (parentPort) {
  if (given.pool) servePool(given as unknown as PoolWorkerData);
  else if (given.kind) void run(given as WorkerJob).then((reply) => parentPort!.postMessage(reply));
  else {
    // Started early, the worker waits while the CLI loads and reads the file: it sets up the
    // engine's modules meanwhile (a failure there is reported with the job).
    preloaded = engineModules();
    preloaded.catch(() => undefined);
    parentPort.once('message', (job: WorkerJob) => void run(job).then((reply) => parentPort!.postMessage(reply)));
  }
}
