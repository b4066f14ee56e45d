/**
 * The analysis host's parent side (cli/analysis-host.ts) against a real child process that speaks
 * the host's protocol (a small host written here: it echoes a thread's messages, ends a thread when
 * told, and can die): threads look like worker threads to the pool, a host that dies ends every
 * thread it held, a host whose last thread ended is let go, and the next thread starts a new host
 * while nothing of the old one's reaches it. The real host (threads running the engine) is
 * exercised by test/e2e/serve-analysis-pool.test.ts and test/e2e/batch.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisHost, HOST_MALLOC_ENV } from '../../../src/cli/analysis-host.js';
import type { PoolWorker } from '../../../src/server/analysis-pool.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const main = join(dir, 'host.cjs');
writeFileSync(
  main,
  `process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  if (m.t === 'msg' && m.m === 'die') process.exit(7);
  if (m.t === 'msg' && m.m === 'env') return process.send({ t: 'msg', w: m.w, m: { pid: process.pid, env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('MALLOC_'))) } });
  if (m.t === 'msg' && m.m === 'oom') return process.send({ t: 'error', w: m.w, message: 'out of memory', code: 'ERR_WORKER_OUT_OF_MEMORY' });
  if (m.t === 'msg') process.send({ t: 'msg', w: m.w, m: { echo: m.m, bytes: m.m instanceof Uint8Array } });
  if (m.t === 'end') process.send({ t: 'exit', w: m.w, code: 1 });
});`,
);

const next = (w: PoolWorker, event: 'message' | 'error' | 'exit'): Promise<unknown> => new Promise((resolve) => w.on(event, resolve));

describe('AnalysisHost', () => {
  it('threads in one host: messages both ways (bytes as bytes), errors with their code, terminate, and the host let go after the last', async () => {
    const host = new AnalysisHost(pathToFileURL(main));
    const a = await host.start({});
    const b = await host.start({});
    a.postMessage('env');
    const env = (await next(a, 'message')) as { pid: number; env: Record<string, string> };
    expect(env.env).toMatchObject(HOST_MALLOC_ENV);
    b.postMessage('env');
    expect(((await next(b, 'message')) as { pid: number }).pid).toBe(env.pid);
    a.postMessage(new Uint8Array([1, 2, 3]));
    expect(await next(a, 'message')).toEqual({ echo: new Uint8Array([1, 2, 3]), bytes: true });
    b.postMessage('oom');
    expect(await next(b, 'error')).toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    const exited = next(a, 'exit');
    await a.terminate();
    expect(await exited).toBe(1);
    await b.terminate();
    // Let go: the next thread runs in a new process.
    const c = await host.start({});
    c.postMessage('env');
    expect(((await next(c, 'message')) as { pid: number }).pid).not.toBe(env.pid);
    await c.terminate();
  });

  it('a host that cannot run (its entry missing) ends its threads instead of leaving their jobs waiting', async () => {
    const host = new AnalysisHost(pathToFileURL(join(dir, 'missing.cjs')));
    const a = await host.start({});
    expect(await next(a, 'exit')).toBe(1);
  });

  it('a host that dies ends every thread it held; the next thread starts a new host', async () => {
    const host = new AnalysisHost(pathToFileURL(main));
    const a = await host.start({});
    const b = await host.start({});
    a.ref();
    const ends = [next(a, 'exit'), next(b, 'exit')];
    a.postMessage('die');
    expect(await Promise.all(ends)).toEqual([7, 7]);
    // A message to a thread that is gone goes nowhere (no throw).
    b.postMessage('x');
    const c = await host.start({});
    c.postMessage('ping');
    expect(await next(c, 'message')).toEqual({ echo: 'ping', bytes: false });
    await c.terminate();
  });
});
