/**
 * The serve lock follows the database file, not the path as typed (issue 28): symbolic links are
 * resolved, hard links refused, and a lock is stale when its process is gone, its PID now belongs
 * to another process, or it names a file that was replaced. Owner locks are also the batch
 * journal's (test/unit/batch/journal.test.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { describeCommand, takeOwnerLock } from '../../../src/store/local/owner-lock.js';
import { acquireServeLock } from '../../../src/store/sqlite/serve-lock.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-serve-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(fn: () => unknown): VerityError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VerityError);
    return err as VerityError;
  }
  throw new Error('expected a refusal');
}

async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => p.once('exit', r));
  return p.pid!;
}

describe('serve lock', () => {
  it('creates a missing database 0600 and holds the lock beside it, with the file identity', () => {
    const db = join(dir, 'new', 'a.db');
    const lock = acquireServeLock(db)!;
    try {
      expect(statSync(db).mode & 0o777).toBe(0o600);
      expect(lock.path).toBe(`${db}.serve.lock`);
      const rec = JSON.parse(readFileSync(lock.path, 'utf8'));
      expect(rec).toMatchObject({ pid: process.pid, ino: statSync(db).ino, dev: statSync(db).dev });
    } finally {
      lock.release();
    }
    expect(existsSync(`${db}.serve.lock`)).toBe(false);
  });

  it('refuses the same file through a symbolic link (to the file or to its folder)', () => {
    mkdirSync(join(dir, 'real'));
    const db = join(dir, 'real', 'b.db');
    const lock = acquireServeLock(db)!;
    try {
      symlinkSync(db, join(dir, 'b-link.db'));
      symlinkSync(join(dir, 'real'), join(dir, 'real-link'));
      for (const other of [join(dir, 'b-link.db'), join(dir, 'real-link', 'b.db'), `${dir}/real/./b.db`]) {
        const e = refusal(() => acquireServeLock(other));
        expect(e.code).toBe('UNAVAILABLE');
        expect(e.message).toContain(`PID ${process.pid}`);
        expect(e.message).toContain(db);
        expect(e.message).toContain('--db postgres://');
      }
    } finally {
      lock.release();
    }
  });

  it('refuses a file with a second name (hard link), naming the serve on the other name', () => {
    const db = join(dir, 'c.db');
    const lock = acquireServeLock(db)!;
    try {
      linkSync(db, join(dir, 'c-hard.db'));
      const e = refusal(() => acquireServeLock(join(dir, 'c-hard.db')));
      expect(e.code).toBe('UNAVAILABLE');
      expect(e.message).toContain(`PID ${process.pid}`);
      expect(e.message).toContain(`through ${db}`);
      expect(e.message).toMatch(/2 names \(hard links\)/);
    } finally {
      lock.release();
    }
    // Even with no serve running: two names are two WAL files, so neither name is served.
    expect(refusal(() => acquireServeLock(db)).message).toMatch(/2 names/);
    rmSync(join(dir, 'c-hard.db'));
    acquireServeLock(db)!.release();
  });

  it('takes over a lock whose process is gone (kill -9), or an earlier life of its own PID', async () => {
    const db = join(dir, 'd.db');
    writeFileSync(db, '');
    writeFileSync(`${db}.serve.lock`, JSON.stringify({ pid: await deadPid(), started_at: '2026-01-01T00:00:00Z' }));
    acquireServeLock(db)!.release();
    writeFileSync(`${db}.serve.lock`, JSON.stringify({ pid: process.pid, token: 'an-earlier-process', started_at: '2026-01-01T00:00:00Z' }));
    acquireServeLock(db)!.release();
    // Half-written (the owner died while writing it).
    writeFileSync(`${db}.serve.lock`, '{"pid": 12');
    acquireServeLock(db)!.release();
  });

  it('keeps a live owner, but not one whose PID now belongs to another process or whose file was replaced', () => {
    const db = join(dir, 'e.db');
    writeFileSync(db, '');
    const { dev, ino } = statSync(db);
    const live = process.ppid; // a process that runs and is not this one
    writeFileSync(`${db}.serve.lock`, JSON.stringify({ pid: live, dev, ino, started_at: '2026-01-01T00:00:00Z', command: 'verity serve --db e.db' }));
    const e = refusal(() => acquireServeLock(db));
    expect(e.message).toContain(`PID ${live} (\`verity serve --db e.db\`), started 2026-01-01T00:00:00Z`);
    // The same PID, another process (its start time differs): stale. Linux only (/proc).
    if (existsSync(`/proc/${live}/stat`)) {
      writeFileSync(`${db}.serve.lock`, JSON.stringify({ pid: live, dev, ino, proc_start: '1' }));
      acquireServeLock(db)!.release();
    }
    // The database was replaced (another inode): the lock was for a file that is gone.
    writeFileSync(`${db}.serve.lock`, JSON.stringify({ pid: live, dev, ino: ino + 1 }));
    acquireServeLock(db)!.release();
  });

  it('release leaves a lock that someone else took over in place', () => {
    const path = join(dir, 'f.lock');
    const r = takeOwnerLock(path);
    expect(r.taken).toBe(true);
    writeFileSync(path, JSON.stringify({ pid: process.ppid, token: 'someone-else' }));
    if (r.taken) r.release();
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe('someone-else');
  });

  it('records how the owner was started, keys and URL credentials masked', () => {
    expect(describeCommand(['serve', '--db', 'x.db', '--port', '0'])).toBe('verity serve --db x.db --port 0');
    const key = `vty_live_${'A'.repeat(32)}`;
    const c = describeCommand(['verify', 'batch', 'in.jsonl', '--key', key, `--api-key=${key}`, '--remote', 'https://u:pw@h/x', key]);
    expect(c).not.toContain('A'.repeat(32));
    expect(c).not.toContain('pw');
    expect(c).toContain('--key [redacted]');
  });
});
