/**
 * Storage faults as honest answers: a full disk, a read-only database or file system, an I/O
 * error or a lock held elsewhere is the service being unavailable (503 + Retry-After), not an
 * internal error (500) — and `/healthz` must say so too, or a load balancer keeps sending
 * traffic to a server that can only fail.
 *
 * Once a request has hit such a fault the server is "degraded": /healthz answers 503 until a
 * probe write (a 64 KB row written and removed, two real commits) succeeds again.
 */
import type { Database } from '../database.js';

/** The SQLite / errno codes that mean "the store cannot take writes right now". */
const SQLITE_CAUSES: Array<[RegExp, string]> = [
  [/^SQLITE_FULL/, 'the disk is full'],
  [/^SQLITE_READONLY/, 'the database is read-only'],
  [/^SQLITE_IOERR/, 'a disk I/O error'],
  [/^SQLITE_CANTOPEN/, 'the database file cannot be opened'],
  [/^SQLITE_BUSY/, 'the database is locked by another process'],
  [/^SQLITE_PERM/, 'no permission to write the database'],
];
const ERRNO_CAUSES: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'no permission to write the database',
  EPERM: 'no permission to write the database',
  EIO: 'a disk I/O error',
};

/** A short cause when `err` is a storage fault, else undefined. */
export function storageFaultCause(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  for (const [re, cause] of SQLITE_CAUSES) if (re.test(code)) return cause;
  return ERRNO_CAUSES[code];
}

/** Seconds a client should wait before retrying after a storage fault. */
export const STORAGE_RETRY_AFTER_S = 30;

export interface StorageHealth {
  /** Record a fault seen on the request path. */
  noteFault(err: unknown): void;
  /** Undefined when healthy; otherwise the cause (probing the store when it was degraded). */
  check(): string | undefined;
}

export function createStorageHealth(db: Database): StorageHealth {
  db.exec('CREATE TABLE IF NOT EXISTS server_health_probe (id INTEGER PRIMARY KEY, filler BLOB)');
  const ping = db.prepare('SELECT 1');
  const insert = db.prepare('INSERT INTO server_health_probe (filler) VALUES (zeroblob(65536))');
  const clear = db.prepare('DELETE FROM server_health_probe');
  let degraded: string | undefined;

  return {
    noteFault(err) {
      degraded = storageFaultCause(err) ?? degraded;
    },
    check() {
      try {
        ping.get();
        if (degraded) {
          // Enough new pages that a full disk (or a page cap) refuses it; committed, so the WAL grows.
          db.transaction(() => insert.run())();
          db.transaction(() => clear.run())();
          degraded = undefined;
        }
      } catch (err) {
        degraded = storageFaultCause(err) ?? 'the store is not available';
      }
      return degraded;
    },
  };
}
