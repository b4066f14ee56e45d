/**
 * The analysis host's entry (cli/analysis-host.ts, a child process): starts and ends the pool's
 * worker threads as the parent asks and relays their messages. Its main thread does nothing else,
 * so it always sees the parent go.
 */
import { join } from 'node:path';
import type { ResourceLimits, Worker } from 'node:worker_threads';
import { HOST_CODE_CACHE_FOLDER, type FromHost, type ToHost } from './analysis-host.js';
import { engineWorkerBundle, startCachedWorker } from './engine-worker-boot.js';

// The parent decides what an interrupt means for the jobs in hand; its exit ends this process.
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => undefined);
// The channel closes when the parent exits in any way (kill -9 included): the threads end with us.
process.on('disconnect', () => process.exit(0));

/** The threads by the parent's id: a promise, so a job sent while its thread starts waits for it. */
const threads = new Map<number, Promise<Worker>>();
const bundle = engineWorkerBundle();
const send = (m: FromHost): void => {
  if (process.connected) process.send!(m, undefined, undefined, (err) => void err);
};

function start(id: number, data: unknown, resourceLimits: ResourceLimits | undefined): void {
  // This process runs its own V8 flags (HOST_EXEC_ARGV): its threads' code caches are its own.
  const d = data as { cacheDir: string; codeCacheDir?: string };
  const started = bundle.then((file) => startCachedWorker(file, { ...d, codeCacheDir: join(d.cacheDir, HOST_CODE_CACHE_FOLDER) }, resourceLimits));
  threads.set(id, started);
  started.then(
    (w) => {
      w.on('message', (x) => send({ t: 'msg', w: id, m: x }));
      w.on('error', (e: Error & { code?: string }) => send({ t: 'error', w: id, message: e.message, ...(e.code ? { code: e.code } : {}) }));
      w.on('exit', (code) => {
        threads.delete(id);
        send({ t: 'exit', w: id, code });
      });
    },
    (e: Error) => {
      threads.delete(id);
      send({ t: 'error', w: id, message: `the analysis worker could not be started: ${e.message}` });
      send({ t: 'exit', w: id, code: 1 });
    },
  );
}

process.on('message', (m: ToHost) => {
  if (m.t === 'start') start(m.w, m.data, m.resourceLimits);
  else if (m.t === 'msg') void threads.get(m.w)?.then((w) => w.postMessage(m.m), () => undefined);
  else if (m.t === 'end') void threads.get(m.w)?.then((w) => w.terminate(), () => undefined);
});
