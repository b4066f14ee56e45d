/**
 * One `verity serve` per SQLite database. Two servers on one file each keep their own rate-limit
 * windows and idempotency waits in memory (a 100/hour key gets 200) and fight over the write
 * lock ("database is locked"), so the second one refuses to start instead.
 *
 * A lock file next to the database (`<db>.serve.lock`, created exclusively) holds the owner's
 * PID. A lock whose PID no longer runs is stale (the owner was killed) and is taken over. Other
 * processes (`verity admin keys …`) still open the database normally: SQLite's own locking is
 * enough for their short writes, and the server notices key changes (src/server/auth.ts).
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { VerityError } from '../api/errors.js';

export interface ServeLock {
  readonly path: string;
  release(): void;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else — still running.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireServeLock(dbPath: string): ServeLock | undefined {
  if (dbPath === ':memory:') return undefined;
  const path = `${dbPath}.serve.lock`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let tries = 0; tries < 3; tries++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner: { pid?: unknown; started_at?: unknown } = {};
      try {
        owner = JSON.parse(readFileSync(path, 'utf8')) as typeof owner;
      } catch {
        // Unreadable or half-written (the owner died while writing it): treated as stale below.
      }
      const pid = typeof owner.pid === 'number' ? owner.pid : undefined;
      if (pid !== undefined && pid !== process.pid && running(pid))
        throw new VerityError(
          'UNAVAILABLE',
          `Another verity serve (PID ${pid}, started ${String(owner.started_at ?? 'at an unknown time')}) is already using ${dbPath}. ` +
            'One serve per SQLite database: stop that one first, or give this one its own --db. Several server processes ' +
            'on one database need a client/server database such as PostgreSQL, which this version does not support yet.',
        );
      try {
        unlinkSync(path); // stale: its process is gone
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }));
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      process.off('exit', release);
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    };
    process.on('exit', release);
    return { path, release };
  }
  throw new VerityError('UNAVAILABLE', `Could not take the serve lock ${path}; another serve keeps starting on ${dbPath}`);
}
