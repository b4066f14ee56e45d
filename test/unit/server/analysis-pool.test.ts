/**
 * The pool's scheduling (server/analysis-pool.ts) with real worker threads that speak the pool's
 * message protocol (as cli/engine-worker.ts does in pool mode) and do what the job says: answer,
 * spin the CPU until ended, fail, or exit. The engine worker itself runs in
 * test/e2e/serve-analysis-pool.test.ts; here, what the pool decides: one job per worker, order,
 * the budget, hang-ups, a dying worker, and that a worker ended is replaced.
 */
import { getEventListeners } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { YOUNG_SLACK_MB } from '../../helpers/young-generation.js';
import { AnalysisPool, WORKER_YOUNG_GENERATION_MB } from '../../../src/server/analysis-pool.js';

const WORKER = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (job) => {
  const r = job.req;
  if (r.spin) for (;;) {}
  if (r.exit) process.exit(3);
  if (r.churn) {
    // Short-lived strings, a few thousand alive at a time: V8 grows a default young generation to 32 MB.
    const keep = [];
    for (let i = 0; i < 3e5; i++) { keep.push('x'.repeat(200) + i); if (keep.length > 20000) keep.splice(0, 10000); }
    const young = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    return parentPort.postMessage({ id: job.id, ok: { young } });
  }
  if (r.fail) return parentPort.postMessage({ id: job.id, error: { error: { code: 'UNPROCESSABLE_CONTENT', message: r.fail } } });
  parentPort.postMessage({ id: job.id, ok: { echo: r.value, engine: job.engine, kind: job.kind, thread: threadId } });
});`;

let started = 0;
const pools: AnalysisPool[] = [];
function pool(size: number, jobBudgetMs = 60_000): AnalysisPool {
  const p = new AnalysisPool({
    size,
    jobBudgetMs,
    memoryMb: 256,
    start: async (resourceLimits) => {
      started++;
      return new Worker(WORKER, { eval: true, resourceLimits });
    },
  });
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  started = 0;
});

type Echo = { echo: number; engine: string; kind: string; thread: number };

describe('AnalysisPool', () => {
  it('runs every job, at most `size` workers, and reuses them', async () => {
    const p = pool(2);
    const out = (await Promise.all(Array.from({ length: 6 }, (_, i) => p.run('document', { value: i }, {}, i % 2 ? 'sandbox' : 'live')))) as Echo[];
    expect(out.map((o) => o.echo)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(out[1]).toMatchObject({ engine: 'sandbox', kind: 'document' });
    expect(new Set(out.map((o) => o.thread)).size).toBeLessThanOrEqual(2);
    expect(started).toBe(2);
    expect(p.workers).toBe(2);
  });

  it('jobs under one shared signal (the CLI batch pool) leave no listener behind once they are done', async () => {
    const p = pool(2);
    const batch = new AbortController();
    const out = (await Promise.all(Array.from({ length: 12 }, (_, i) => p.run('media', { value: i }, { signal: batch.signal })))) as Echo[];
    expect(out.map((o) => o.echo)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    // A listener left per job would keep each job (its file's bytes too) for the whole batch.
    expect(getEventListeners(batch.signal, 'abort')).toHaveLength(0);
  });

  it('a batch of 30 jobs under one signal listens once (no MaxListenersExceededWarning); aborting it ends the running jobs and removes the waiting ones', async () => {
    const p = pool(2);
    const batch = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const runs = Array.from({ length: 30 }, (_, i) => p.run('media', i < 2 ? { spin: true } : { value: i }, { signal: batch.signal }));
      // Two spin in the workers, 28 wait: one listener serves all 30.
      expect(getEventListeners(batch.signal, 'abort')).toHaveLength(1);
      batch.abort(new VerityError('UNAVAILABLE', 'the batch was cancelled'));
      const settled = await Promise.allSettled(runs);
      expect(settled.every((s) => s.status === 'rejected' && (s.reason as VerityError).code === 'UNAVAILABLE')).toBe(true);
      expect(getEventListeners(batch.signal, 'abort')).toHaveLength(0);
      // The pool goes on with new workers.
      expect(await p.run('media', { value: 7 })).toMatchObject({ echo: 7 });
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('answers the engine error as the VerityError it was', async () => {
    await expect(pool(1).run('media', { fail: 'the image cannot be decoded' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: 'the image cannot be decoded' });
  });

  it('ends a job past its budget with 422 naming the limit, and replaces the worker for the next job', async () => {
    const p = pool(1, 200);
    const spun = p.run('document', { spin: true });
    // Queued behind the spinning job: it runs on a new worker once the first is ended.
    const next = p.run('document', { value: 7 });
    await expect(spun).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/did not finish within the 200 ms per-file limit \(serve --analysis-budget-ms\)/) });
    expect(((await next) as Echo).echo).toBe(7);
    expect(started).toBe(2);
  });

  it('a hang-up ends a running job and removes a waiting one; the pool goes on', async () => {
    const p = pool(1);
    const a = new AbortController();
    const b = new AbortController();
    const running = p.run('document', { spin: true }, { signal: a.signal });
    const waiting = p.run('document', { value: 1 }, { signal: b.signal });
    b.abort(new Error('client closed the connection'));
    await expect(waiting).rejects.toThrow('client closed the connection');
    a.abort(new Error('client closed the connection'));
    await expect(running).rejects.toThrow('client closed the connection');
    expect(((await p.run('media', { value: 2 })) as Echo).echo).toBe(2);
  });

  it('a worker that dies mid-job answers that job INTERNAL_ERROR (our fault), and the next job gets a new worker', async () => {
    const p = pool(1);
    const err = await p.run('document', { exit: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerityError);
    expect(err).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(((await p.run('document', { value: 3 })) as Echo).echo).toBe(3);
  });

  it('after close, running, waiting and new jobs are answered 503', async () => {
    const p = pool(1);
    const running = p.run('document', { spin: true });
    const waiting = p.run('document', { value: 1 });
    await p.close();
    await expect(waiting).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(p.run('document', { value: 1 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(running).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(p.workers).toBe(0);
  });
});

describe('AnalysisPool when no worker can start', () => {
  it('answers every waiting job INTERNAL_ERROR (a broken install is our fault), none left hanging', async () => {
    const p = new AnalysisPool({ size: 1, jobBudgetMs: 1000, memoryMb: 64, start: async () => Promise.reject(new Error('no bundle')) });
    pools.push(p);
    const all = await Promise.allSettled([p.run('document', {}), p.run('document', {}), p.run('media', {})]);
    expect(all.map((r) => r.status === 'rejected' && (r.reason as VerityError).code)).toEqual(['INTERNAL_ERROR', 'INTERNAL_ERROR', 'INTERNAL_ERROR']);
  });

  it('starts workers with a young generation of WORKER_YOUNG_GENERATION_MB that does not grow with the work', async () => {
    const limits: unknown[] = [];
    const p = new AnalysisPool({
      size: 1,
      jobBudgetMs: 60_000,
      memoryMb: 256,
      start: async (resourceLimits) => {
        limits.push(resourceLimits);
        return new Worker(WORKER, { eval: true, resourceLimits });
      },
    });
    pools.push(p);
    const { young } = (await p.run('media', { churn: true })) as { young: number };
    expect(limits).toEqual([{ maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB }]);
    // Exact on Node 20; Node 24 may read a few MB over under load (test/helpers/young-generation.ts).
    expect(young).toBeLessThanOrEqual((WORKER_YOUNG_GENERATION_MB + YOUNG_SLACK_MB) * 1048576);
  });
});
