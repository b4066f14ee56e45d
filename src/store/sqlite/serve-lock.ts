/**
 * One `verity serve` per SQLite database file. Two servers on one file each keep their own
 * rate-limit windows and idempotency waits in memory (a 100/hour key gets 200) and fight over the
 * write lock ("database is locked"), so the second one refuses to start instead.
 *
 * The lock follows the file, not the path as typed: the path is resolved through symbolic links
 * (realpath) and the lock file (`<real path>.serve.lock`, an owner lock: owner-lock.ts) sits
 * beside the real file and records its device and inode. A file with a second name (a hard link)
 * is refused outright: SQLite keeps its `-wal` and `-shm` beside the name a process opened, so a
 * process on the other name would write its own WAL beside it and corrupt the database (SQLite's
 * "How To Corrupt", multiple links) — and no lock beside one name is seen from the other.
 *
 * Other processes (`verity admin keys …`) still open the database normally: SQLite's own locking
 * is enough for their short writes, and the server notices key changes (src/server/auth.ts).
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { VerityError } from '../../api/errors.js';
import { describeOwner, ownerAlive, readLockOwner, takeOwnerLock, type LockOwner } from '../local/owner-lock.js';
import { createPrivateFile } from '../local/private-file.js';

export interface ServeLock {
  readonly path: string;
  release(): void;
}

const SEVERAL = 'To run several server processes on one database, use PostgreSQL: `verity serve --db postgres://…` (docs/server.md, "PostgreSQL").';

/** The database's real path: symbolic links resolved (the file is created, 0600, when missing). */
function realDatabasePath(dbPath: string): string {
  createPrivateFile(dbPath);
  try {
    return realpathSync(dbPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new VerityError('VALIDATION_FAILED', `--db ${dbPath} is a symbolic link to a file that does not exist`, { details: [{ field: 'db', issue: 'dangling symbolic link' }] });
    throw err;
  }
}

/** A live serve lock in `dir` on the file dev:ino (under another name), if any. */
function ownerByIdentity(dir: string, dev: number, ino: number): { owner: LockOwner; db: string } | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.serve.lock'));
  } catch {
    return undefined;
  }
  for (const n of names.slice(0, 1000)) {
    const owner = readLockOwner(join(dir, n));
    if (owner && owner.dev === dev && owner.ino === ino && ownerAlive(owner)) return { owner, db: join(dir, n.slice(0, -'.serve.lock'.length)) };
  }
  return undefined;
}

export function acquireServeLock(dbPath: string): ServeLock | undefined {
  if (dbPath === ':memory:') return undefined;
  const real = realDatabasePath(dbPath);
  const { dev, ino, nlink } = statSync(real);
  const via = real === dbPath ? '' : ` (${real})`;
  if (nlink > 1) {
    const other = ownerByIdentity(dirname(real), dev, ino);
    throw new VerityError(
      'UNAVAILABLE',
      (other ? `Another verity serve (${describeOwner(other.owner)}) is already using this database through ${other.db}. ` : '') +
        `${dbPath}${via} has ${nlink} names (hard links). SQLite keeps its -wal and -shm files beside the name a process opened, ` +
        `so processes on different names write different logs and corrupt the database: serve it through one name only ` +
        `(remove the other links: \`find ${dirname(real)} -samefile ${real}\` lists those in that folder). ${SEVERAL}`,
    );
  }
  const path = `${real}.serve.lock`;
  // A lock that names another file (the database was replaced since) is stale, whoever holds it.
  const r = takeOwnerLock(path, { db: real, dev, ino }, (o) => typeof o.ino === 'number' && (o.dev !== dev || o.ino !== ino));
  if (!r.taken)
    throw new VerityError(
      'UNAVAILABLE',
      `Another verity serve (${describeOwner(r.owner)}) is already using ${dbPath}${via}. One serve per SQLite database file: ` +
        `stop that one first, or give this one its own --db. ${SEVERAL}`,
    );
  return { path, release: r.release };
}
