/**
 * The SQLite files are private to their owner: the server database holds webhook secrets in
 * plain text (they sign deliveries, so they cannot be hashed) and key hashes.
 *
 * A new database file is created here mode 0600 before SQLite opens it; SQLite (unix VFS) gives
 * the `-wal` and `-shm` files it creates later the database file's own mode, so they are 0600
 * too. Existing files are not changed behind the owner's back: `exposedFiles` names those that
 * others can read, for a warning at start.
 */
import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `path` empty, mode 0600, when it does not exist (an empty file is a new SQLite database). */
export function createPrivateFile(path: string): void {
  if (path === ':memory:' || path === '') return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (err) {
    // EEXIST: there already (or a symbolic link; SQLite follows it as before).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** The database and its -wal/-shm files that group or others may read or write, with their modes. */
export function exposedFiles(dbPath: string): Array<{ path: string; mode: string }> {
  const out: Array<{ path: string; mode: string }> = [];
  if (process.platform === 'win32' || dbPath === ':memory:') return out; // no POSIX modes there
  for (const path of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      continue; // not there (yet)
    }
    if (mode & 0o077) out.push({ path, mode: mode.toString(8).padStart(4, '0') });
  }
  return out;
}
