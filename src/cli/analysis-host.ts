/**
 * The analysis host (issue 31): the pool's worker threads (server/analysis-pool.ts: serve's pool
 * and the CLI's embedded batch pool) run inside ONE child process started with glibc malloc
 * settings that the CLI's own process cannot have (they are read once, when a process starts):
 *
 * - `MALLOC_MMAP_THRESHOLD_=131072`: a fixed threshold, so every buffer of 128 KB or more (a
 *   decoded 12 MP plane is 9–36 MB) is its own mapping, returned to the system when freed. By
 *   default glibc raises the threshold to the largest such buffer freed (up to 32 MB), after which
 *   the planes come from the malloc arenas and stay there, fragmented, for the process's life.
 * - `MALLOC_TRIM_THRESHOLD_=131072`: free memory at the top of a heap is given back early.
 * - `MALLOC_ARENA_MAX=2`: the decoding threads (libvips's and libuv's) share two arenas instead of
 *   one each (up to 8 per core).
 *
 * Measured on a folder of 12 MP photos (docs/cli.md, docs/server.md): with these settings the
 * whole process tree, host included, peaks well below the single process without them. A value the
 * user set in the environment wins (the host inherits the environment).
 *
 * The host is a relay: its main thread starts and ends the worker threads the pool asks for
 * (cli/analysis-host-main.ts) and forwards their messages, so it is always free to notice that the
 * parent is gone — the IPC channel closes when the parent exits in any way, kill -9 included —
 * and then exits, ending its threads. It ignores SIGINT, SIGTERM and SIGHUP: a Ctrl-C reaches the
 * whole process group, and the parent decides what an interrupt means for the jobs in hand (the
 * batch's journal, serve's graceful stop); the parent's exit then ends the host.
 *
 * To the pool a hosted thread looks like a worker thread (PoolWorker): messages, `terminate()`,
 * `ref()`/`unref()`, 'error' (with the heap limit's ERR_WORKER_OUT_OF_MEMORY code passed on) and
 * 'exit'. If the host itself dies, every thread it held reports 'exit', and the next thread the
 * pool asks for starts a new host. A host whose last thread ended is let go (it exits).
 */
import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import type { ResourceLimits } from 'node:worker_threads';
import type { PoolWorker } from '../server/analysis-pool.js';

/** The allocator settings the host starts with (a value already in the environment wins). */
export const HOST_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * V8 flags of the host process (issue 31). Its main thread only starts threads and relays their
 * messages, yet relaying a 1 GB batch's results V8 let its young generation grow to its default
 * maximum, 32 MB, every page of it resident; semi-spaces of 2 MB hold it at 4 MB. The pool's
 * threads set their own young generation (resourceLimits: WORKER_YOUNG_GENERATION_MB in
 * server/analysis-pool.ts); a thread started without limits (the PDF reader's) gets this one.
 */
export const HOST_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=2'];

/**
 * Where the host's threads keep their V8 code caches, under the cache folder: V8 accepts a cache
 * only under the flags it was made with, so the caches made under HOST_EXEC_ARGV live apart from
 * those of processes with V8's defaults (which would otherwise reject and rewrite each other's
 * caches, one run after the other). bin/run-bundle.js removes the folder once unused for a month.
 */
export const HOST_CODE_CACHE_FOLDER = HOST_EXEC_ARGV.map((f) => f.replace(/^--/, '').replace('=', '-')).join('_'); // 'max-semi-space-size-2'

/** Parent → host. */
export type ToHost =
  | { t: 'start'; w: number; data: unknown; resourceLimits?: ResourceLimits }
  | { t: 'msg'; w: number; m: unknown }
  | { t: 'end'; w: number };
/** Host → parent. */
export type FromHost =
  | { t: 'msg'; w: number; m: unknown }
  | { t: 'error'; w: number; message: string; code?: string }
  | { t: 'exit'; w: number; code: number };

function send(child: ChildProcess, m: ToHost): void {
  if (!child.connected) return;
  // A send racing the host's death fails through the 'error'/'exit' events, handled below.
  child.send(m, (err) => void err);
}

class HostedWorker extends EventEmitter implements PoolWorker {
  refed = true;
  exited = false;
  private readonly exitWaiters: Array<() => void> = [];

  constructor(
    private readonly host: AnalysisHost,
    readonly id: number,
    /** The host process this thread lives in (a later one may run beside it while it ends). */
    readonly child: ChildProcess,
  ) {
    super();
  }

  postMessage(m: unknown): void {
    if (!this.exited) send(this.child, { t: 'msg', w: this.id, m });
  }

  terminate(): Promise<number> {
    if (this.exited) return Promise.resolve(1);
    // Waiting for the thread's end keeps this process alive, as a worker thread's terminate() does.
    this.refed = true;
    this.host.refresh(this.child);
    send(this.child, { t: 'end', w: this.id });
    return new Promise((resolve) => this.exitWaiters.push(() => resolve(1)));
  }

  ref(): void {
    this.refed = true;
    this.host.refresh(this.child);
  }

  unref(): void {
    this.refed = false;
    this.host.refresh(this.child);
  }

  /** The thread (or the whole host) is gone. */
  gone(code: number): void {
    if (this.exited) return;
    this.exited = true;
    this.emit('exit', code);
    for (const f of this.exitWaiters.splice(0)) f();
  }
}

/** One host process, started on the first thread asked for; see the module comment. */
export class AnalysisHost {
  private child?: ChildProcess;
  private readonly threads = new Map<number, HostedWorker>();
  private nextId = 1;

  /** `hostMain`: the host's entry (dist/cli/analysis-host-main.js). */
  constructor(private readonly hostMain: URL) {}

  /** A worker thread in the host running engine-worker-boot-main.js with this workerData. */
  async start(data: unknown, resourceLimits?: ResourceLimits): Promise<PoolWorker> {
    const child = this.child ?? (await this.fork());
    const w = new HostedWorker(this, this.nextId++, child);
    this.threads.set(w.id, w);
    send(child, { t: 'start', w: w.id, data, ...(resourceLimits ? { resourceLimits } : {}) });
    this.refresh(child);
    return w;
  }

  /** Keeps this process alive only while a thread of `c` is busy (the pool refs a worker with a job). */
  refresh(c: ChildProcess): void {
    const busy = [...this.threads.values()].some((w) => w.child === c && w.refed && !w.exited);
    const ch = c.channel as { ref(): void; unref(): void } | undefined;
    if (busy) {
      c.ref();
      ch?.ref();
    } else {
      c.unref();
      ch?.unref();
    }
  }

  private async fork(): Promise<ChildProcess> {
    const { fork } = await import('node:child_process');
    if (this.child) return this.child;
    const child = fork(this.hostMain, [], {
      // The parent's own flags (an inspector, the PDF thread's V8 tiering) are not the host's.
      execArgv: [...HOST_EXEC_ARGV],
      env: { ...HOST_MALLOC_ENV, ...process.env },
      serialization: 'advanced',
      // stdout is the CLI's output; the host writes nothing there. A native crash's words go to stderr.
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.child = child;
    child.on('message', (m: FromHost) => {
      const w = this.threads.get(m.w);
      if (!w) return;
      if (m.t === 'msg') w.emit('message', m.m);
      else if (m.t === 'error') w.emit('error', Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
      else {
        this.threads.delete(m.w);
        w.gone(m.code);
        this.refresh(child);
        this.letGoIfEmpty(child);
      }
    });
    const ended = (code: number): void => {
      if (this.child === child) this.child = undefined;
      for (const [id, w] of this.threads) {
        if (w.child !== child) continue;
        this.threads.delete(id);
        w.gone(code);
      }
    };
    // A host that could not be started at all (no 'exit' follows): its threads end, so the pool
    // answers their jobs instead of waiting; a send's error on a closing channel needs nothing.
    child.on('error', () => {
      if (child.pid === undefined) ended(1);
    });
    child.once('exit', (code, signal) => ended(code ?? (signal ? 128 : 1)));
    return child;
  }

  /** No thread left: the host is let go (a later start forks a new one). */
  private letGoIfEmpty(child: ChildProcess): void {
    if ([...this.threads.values()].some((w) => w.child === child) || this.child !== child) return;
    this.child = undefined;
    if (child.connected) child.disconnect();
  }
}

/** A host on the built entry beside this module (dist/cli/analysis-host-main.js). */
export function analysisHost(): AnalysisHost {
  return new AnalysisHost(new URL('./analysis-host-main.js', import.meta.url));
}
