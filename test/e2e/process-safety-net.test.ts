/**
 * The process-wide safety net of `serve` and `worker` (src/cli/process-safety-net.ts, issue 28):
 * in a child process (the built module, as the bin loads it) serving HTTP on loopback, a
 * rejection nobody handles from a background task (a timer) is logged, redacted, and the process
 * still answers; an exception thrown from a callback is logged, redacted, and the process exits 1.
 * Node's default would end the process on the first (and print the secrets whole on both).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, inject, it } from 'vitest';

const MODULE = pathToFileURL(join(inject('verityRoot'), 'dist', 'cli', 'process-safety-net.js')).href;
const SECRET_URL = 'postgres://verity:hunter2-not-for-logs@db.internal/verity';
const KEY = `vty_live_${'Ab3'.repeat(10)}xy`;

const CHILD = `
import { createServer } from 'node:http';
import { installProcessSafetyNet } from ${JSON.stringify(MODULE)};
installProcessSafetyNet({ name: 'serve', write: (l) => process.stderr.write(l) });
const server = createServer((req, res) => {
  if (req.url === '/stray') {
    // A background task whose failure nobody awaits.
    setTimeout(() => void Promise.reject(new Error('background write failed on ${SECRET_URL} for ${KEY}')), 0);
  }
  if (req.url === '/throw') setImmediate(() => { throw new Error('callback broke with ${KEY}'); });
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
`;

const children: Array<ReturnType<typeof execa>> = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === undefined || c.exitCode === null) c.kill('SIGKILL');
});

async function start() {
  const child = execa('node', ['--input-type=module', '-e', CHILD], { reject: false });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    void child.then((r) => reject(new Error(`child exited ${r.exitCode}: ${r.stderr}`)));
  });
  return { child, url: `http://127.0.0.1:${port}`, stderr: () => err };
}

/** Polls `check` until it holds or `ms` pass (a bound, never a wait for time itself). */
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end && !check()) await new Promise((r) => setTimeout(r, 20));
  return check();
}

describe('the process safety net of serve and worker', () => {
  it('logs a stray rejection from a background task, redacted, and keeps answering', async () => {
    const c = await start();
    expect((await fetch(`${c.url}/stray`)).status).toBe(200);
    expect(await until(() => /unhandled promise rejection/.test(c.stderr()), 10_000), c.stderr()).toBe(true);
    const line = c.stderr();
    expect(line).toMatch(/^serve: unhandled promise rejection, logged and kept running: Error: background write failed on postgres:\/\/verity:\*\*\*@db\.internal\/verity for vty_live_\[redacted\]/);
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain(KEY.slice(9));
    // Still serving, twice over.
    expect((await fetch(`${c.url}/stray`)).status).toBe(200);
    expect(await (await fetch(`${c.url}/`)).text()).toBe('ok');
    expect(c.child.exitCode ?? null).toBeNull();
  }, 30_000);

  it('logs an uncaught exception, redacted, and exits 1', async () => {
    const c = await start();
    expect((await fetch(`${c.url}/throw`)).status).toBe(200);
    const r = await c.child;
    expect(r.exitCode).toBe(1);
    expect(c.stderr()).toMatch(/^serve: uncaught exception, exiting \(state may be inconsistent; restart the process\): Error: callback broke with vty_live_\[redacted\]/);
    expect(c.stderr()).not.toContain(KEY.slice(9));
  }, 30_000);
});
