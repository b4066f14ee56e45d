/**
 * serve's analysis pool: media and document verifications (untrusted bytes: image decoding, PDF
 * and DOCX parsing; for test keys the sandbox's reading of the file's own facts, e.g. pdf-lib
 * loading a PDF for its page count, ~0.8 s for 20,000 pages) run in worker threads, so no file can hold the event loop that answers
 * every other request and /healthz. Workers are started on demand up to `size` (the cores), each
 * runs one job at a time (cli/engine-worker.ts, pool mode), and jobs beyond that wait in order.
 *
 * Each job has a wall-clock budget, counted from the moment a worker takes it (not while it
 * waits). Wall time rather than CPU time: Node 20 cannot read a worker thread's CPU clock from
 * outside it, and a job's cost also lies in libvips's threads and in downloads, which a thread's
 * CPU clock would not count; with one job per core, wall time is close to the CPU time spent. A
 * job past its budget is ended (`worker.terminate()`), answered 422 `UNPROCESSABLE_CONTENT` naming
 * the limit (the route charges nothing for an error), and its worker is replaced by the next job
 * that needs one. A caller that hangs up ends its job the same way. A worker past its heap limit
 * (`resourceLimits`) dies alone: that job is answered 422 naming the memory limit.
 */
import { VerityError } from '../api/errors.js';
import type { Engine, VerifyOptions } from '../engine/types.js';

/**
 * What the pool needs of a worker: a worker thread, or a thread in the CLI's analysis host process
 * (cli/analysis-host.ts), which behaves the same.
 */
export interface PoolWorker {
  postMessage(message: unknown): void;
  terminate(): Promise<number>;
  ref(): void;
  unref(): void;
  // 'message' (a reply), 'error' (an Error, `code` ERR_WORKER_OUT_OF_MEMORY past the heap limit), 'exit' (a code).
  on(event: 'message' | 'error' | 'exit', listener: (...args: any[]) => void): this;
  removeAllListeners(): this;
}

export interface AnalysisPoolOptions {
  /** Most workers at once (default: the cores). */
  size: number;
  /** Wall-clock budget of one job in ms. */
  jobBudgetMs: number;
  /** Heap limit of a worker in MB (V8 old generation). */
  memoryMb: number;
  /** Starts one worker (cli/engine-worker.ts in pool mode) with these heap limits (WorkerHeapLimits). */
  start: (resourceLimits: WorkerHeapLimits) => Promise<PoolWorker>;
}

/** A pool worker's V8 heap limits (worker_threads `resourceLimits`). */
export interface WorkerHeapLimits {
  maxOldGenerationSizeMb: number;
  maxYoungGenerationSizeMb: number;
}

/**
 * A pool worker's young generation, in MB (issue 31): 4 MB, two semi-spaces of 2 MB. V8's default
 * for a thread lets it grow to 32 MB (two of 16 MB) under a steady stream of short-lived objects,
 * and a worker analysing photo after photo reaches it; every page of it stays resident, so each
 * worker's heap was ~30 MB where ~15 MB of it is live. A photo's pixels are typed arrays whose
 * bytes live outside the V8 heap, so the smaller young generation collects a little more often
 * but copies little: measured in docs/server.md ("Analysis off the event loop").
 */
export const WORKER_YOUNG_GENERATION_MB = 4;

type Kind = 'media' | 'document';
type ReplyBody = { ok: unknown } | { error: Parameters<typeof VerityError.fromBody>[0] };

/** Live keys' real engine, or test keys' sandbox (which still reads the file: page counts, EXIF). */
export type EngineKind = 'live' | 'sandbox';

interface Job {
  id: number;
  kind: Kind;
  engine: EngineKind;
  req: unknown;
  opts: VerifyOptions;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Removes the listener that takes the job out of the queue on abort (it left the queue). */
  unqueue?: () => void;
}

interface Slot {
  worker: PoolWorker;
  job?: Job;
  timer?: NodeJS.Timeout;
  /** Stops listening for the running job's signal. */
  onAbort?: () => void;
}

/**
 * One 'abort' listener per signal, however many jobs wait or run under it: a batch runs all its
 * items under one signal, and a listener per job would pass EventTarget's limit of 10 as soon as
 * more than ten items are queued (a MaxListenersExceededWarning on the user's stderr, e.g. a
 * batch on a machine with more than five cores, whose runner hands over twice the cores' items).
 */
class AbortFanout {
  private readonly bySignal = new Map<AbortSignal, { handlers: Set<() => void>; fire: () => void }>();

  /** Calls `handler` once if `signal` aborts; returns the function that stops that. */
  add(signal: AbortSignal, handler: () => void): () => void {
    let entry = this.bySignal.get(signal);
    if (!entry) {
      const handlers = new Set<() => void>();
      const fire = (): void => {
        this.bySignal.delete(signal);
        for (const h of [...handlers]) h();
      };
      entry = { handlers, fire };
      this.bySignal.set(signal, entry);
      signal.addEventListener('abort', fire, { once: true });
    }
    const { handlers, fire } = entry;
    const once = (): void => {
      handlers.delete(once);
      handler();
    };
    handlers.add(once);
    return () => {
      if (!handlers.delete(once) || handlers.size > 0) return;
      // The last job under this signal is gone: nothing (no job, no file's bytes) stays reachable from it.
      signal.removeEventListener('abort', fire);
      this.bySignal.delete(signal);
    };
  }
}

export const DEFAULT_JOB_BUDGET_MS = 60_000;
export const DEFAULT_WORKER_MEMORY_MB = 4096;

const seconds = (ms: number): string => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

export class AnalysisPool {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private starting = 0;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private readonly aborts = new AbortFanout();

  constructor(private readonly o: AnalysisPoolOptions) {}

  /** Runs one verification in a worker; rejects with the engine's error, or 422 past a limit. */
  run(kind: Kind, req: unknown, opts: VerifyOptions = {}, engine: EngineKind = 'live'): Promise<unknown> {
    if (this.closed) return Promise.reject(new VerityError('UNAVAILABLE', 'the server is shutting down'));
    opts.signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, kind, engine, req, opts, resolve, reject };
      const signal = opts.signal;
      if (signal) {
        // Aborted while waiting: leave the queue (a running job is ended by its slot's listener).
        const onAbort = (): void => {
          const i = this.queue.indexOf(job);
          if (i >= 0) {
            this.queue.splice(i, 1);
            reject(signal.reason);
          }
        };
        // Removed when the job leaves the queue: a signal shared by many jobs (the CLI's batch
        // pool runs a whole batch under one) would otherwise keep every job, its file's bytes
        // included, until the signal fires or is collected.
        job.unqueue = this.aborts.add(signal, onAbort);
      }
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Ends every worker; jobs still running or waiting are answered 503 (serve closes it after in-flight requests). */
  async close(): Promise<void> {
    this.closed = true;
    const shuttingDown = (): VerityError => new VerityError('UNAVAILABLE', 'the server is shutting down');
    for (const j of this.queue.splice(0)) {
      j.unqueue?.();
      j.reject(shuttingDown());
    }
    const all = [...this.idle.splice(0), ...this.busy];
    for (const slot of all) {
      this.release(slot)?.reject(shuttingDown());
      slot.worker.removeAllListeners();
      slot.worker.on('error', () => undefined);
    }
    await Promise.all(all.map((s) => s.worker.terminate().catch(() => undefined)));
  }

  /** Workers alive now (idle and busy): for tests and /healthz-style checks. */
  get workers(): number {
    return this.idle.length + this.busy.size;
  }

  private dispatch(): void {
    while (this.queue.length && this.idle.length) this.assign(this.idle.pop()!, this.queue.shift()!);
    // Workers already starting will take jobs from the queue too.
    const wanted = Math.min(this.queue.length - this.starting, this.o.size - this.busy.size - this.idle.length - this.starting);
    for (let i = 0; i < wanted; i++) this.spawn();
  }

  private spawn(): void {
    this.starting++;
    this.o.start({ maxOldGenerationSizeMb: this.o.memoryMb, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB }).then(
      (worker) => {
        this.starting--;
        if (this.closed) {
          void worker.terminate();
          return;
        }
        const slot: Slot = { worker };
        worker.on('message', (m: ReplyBody & { id: number }) => this.finish(slot, m));
        worker.on('error', (err) => this.lost(slot, err));
        worker.on('exit', (code) => this.lost(slot, new Error(`exit ${code}`)));
        worker.unref();
        this.idle.push(slot);
        this.dispatch();
      },
      (err: unknown) => {
        this.starting--;
        // Nothing can run: the waiting job is told so (a bug or a broken install, not the file's fault).
        const job = this.queue.shift();
        job?.unqueue?.();
        job?.reject(new VerityError('INTERNAL_ERROR', 'the analysis worker could not be started', { cause: err }));
        // Jobs still waiting get a start of their own (each failure answers one job: no loop).
        if (!this.closed) this.dispatch();
      },
    );
  }

  private assign(slot: Slot, job: Job): void {
    job.unqueue?.();
    slot.job = job;
    this.busy.add(slot);
    slot.worker.ref();
    slot.timer = setTimeout(
      () =>
        this.end(
          slot,
          new VerityError(
            'UNPROCESSABLE_CONTENT',
            `the ${job.kind} analysis did not finish within the ${seconds(this.o.jobBudgetMs)} per-file limit (serve --analysis-budget-ms); the file was not analysed and nothing was charged`,
          ),
        ),
      this.o.jobBudgetMs,
    );
    const signal = job.opts.signal;
    if (signal) slot.onAbort = this.aborts.add(signal, () => this.end(slot, signal.reason));
    const b = job.opts.inputBytes;
    const f = job.opts.inputFile;
    slot.worker.postMessage({ id: job.id, kind: job.kind, engine: job.engine, req: job.req, validated: job.opts.validated === true, ...(b ? { inputBytes: b } : f !== undefined ? { inputFile: f } : {}) });
  }

  private release(slot: Slot): Job | undefined {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.onAbort?.();
    slot.job = slot.timer = slot.onAbort = undefined;
    this.busy.delete(slot);
    return job;
  }

  private finish(slot: Slot, m: ReplyBody & { id: number }): void {
    if (slot.job?.id !== m.id) return;
    const job = this.release(slot)!;
    slot.worker.unref();
    this.idle.push(slot);
    if ('ok' in m) job.resolve(m.ok);
    else job.reject(VerityError.fromBody({ error: m.error.error }));
    this.dispatch();
  }

  /** Ends the slot's job with `err` and its worker with it (a new one is started when needed). */
  private end(slot: Slot, err: unknown): void {
    const job = this.release(slot);
    this.drop(slot);
    job?.reject(err);
    this.dispatch();
  }

  /** The worker died by itself (heap limit, a native crash). */
  private lost(slot: Slot, err: Error): void {
    const job = this.release(slot);
    this.drop(slot);
    if (job) {
      const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      job.reject(
        oom
          ? new VerityError('UNPROCESSABLE_CONTENT', `the ${job.kind} analysis needed more than the ${this.o.memoryMb} MB per-worker memory limit (serve --analysis-memory-mb); the file was not analysed and nothing was charged`)
          : new VerityError('INTERNAL_ERROR', `the analysis worker stopped (${err.message})`, { cause: err }),
      );
    }
    if (!this.closed) this.dispatch();
  }

  private drop(slot: Slot): void {
    const i = this.idle.indexOf(slot);
    if (i >= 0) this.idle.splice(i, 1);
    this.busy.delete(slot);
    slot.worker.removeAllListeners();
    // An exit after this is expected; a late error must not become an unhandled 'error' event.
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate().catch(() => undefined);
  }
}

/**
 * An engine with media and document verification sent to the pool (claims and businesses stay:
 * they wait on I/O, and the sandbox's are computed from the request alone).
 */
export function withAnalysisPool(engine: Engine, pool: AnalysisPool, which: EngineKind): Engine {
  return {
    ...engine,
    verifyMedia: (req, opts) => pool.run('media', req, opts ?? {}, which) as ReturnType<Engine['verifyMedia']>,
    verifyDocument: (req, opts) => pool.run('document', req, opts ?? {}, which) as ReturnType<Engine['verifyDocument']>,
  };
}
