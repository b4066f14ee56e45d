/**
 * Several processes opening the same new SQLite store at once and applying the same migration
 * (two `verity serve` processes that share a home, started together: one of
 * test/e2e/batches-postgres.test.ts's two failed to start on a busy machine, SQLITE_BUSY). Each
 * looked up the applied steps and then applied the missing ones: two applied the same step (the
 * second failed on the migrations table's key), or the second's transaction, which had read before
 * the other's commit, could not write (SQLITE_BUSY at once). migrate() now takes the write lock
 * first and looks again (src/store/local/database.ts). Without that, this test failed in each of
 * three runs. The processes load the module first, say so, and are released together through
 * their stdin: no timing in the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';

const root = inject('verityRoot');
const dir = mkdtempSync(join(tmpdir(), 'verity-store-open-'));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

// Loads the store module, prints "ready", waits for a line on stdin, opens the store, writes a row
// through a migration, and exits 0 — or prints the error's code and exits 1.
const CHILD = `
const { pathToFileURL } = require('node:url');
import(pathToFileURL(process.argv[1]).href).then((m) => {
  process.stdout.write('ready\\n');
  process.stdin.once('data', async () => {
    try {
      const s = await m.openStore(process.argv[2]);
      m.migrate(s.db, 'concurrent-open-test', ['CREATE TABLE IF NOT EXISTS t (x INTEGER)']);
      s.close();
      process.exit(0);
    } catch (err) {
      process.stdout.write('failed ' + (err && err.code) + ' ' + (err && err.message) + '\\n');
      process.exit(1);
    }
  });
});
`;

function start(file: string): { child: ChildProcess; ready: Promise<void>; done: Promise<{ code: number | null; out: string }> } {
  const child = spawn(process.execPath, ['-e', CHILD, join(root, 'dist', 'store', 'local', 'database.js'), file], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  let out = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('ready\n')) onReady();
  });
  const done = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child);
      onReady();
      resolve({ code, out });
    }),
  );
  return { child, ready, done };
}

describe('the local store opened by several processes at once', () => {
  it('every process opens a new file that the others are setting up at the same moment', async () => {
    for (let round = 0; round < 4; round++) {
      const file = join(dir, `round-${round}.db`);
      const procs = Array.from({ length: 6 }, () => start(file));
      await Promise.all(procs.map((p) => p.ready));
      for (const p of procs) p.child.stdin!.write('go\n');
      const results = await Promise.all(procs.map((p) => p.done));
      expect(results.map((r) => r.out.replace('ready\n', '')), `round ${round}`).toEqual(procs.map(() => ''));
      expect(results.map((r) => r.code), `round ${round}`).toEqual(procs.map(() => 0));
    }
  }, 60_000);
});
