/**
 * Which errors mean "the store cannot take writes right now" (a full disk, a read-only file
 * system, an I/O error, a lock held elsewhere): the service is then unavailable (503 +
 * Retry-After), not broken (500). Pure classification by error code, shared by the server's error
 * handler and the SQLite store's health (src/store/sqlite/storage-health.ts).
 */

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

/** Seconds a client should wait before retrying after a storage fault (a full disk, a lock: not quick). */
export const STORAGE_RETRY_AFTER_S = 30;

/**
 * Seconds to wait after the database connection was lost or could not be made (a PostgreSQL
 * restart, crash, failover or network cut): the pool reconnects within a second of the database
 * being back (src/store/postgres/connection.ts), so a client told 30 s would wait far longer than needed.
 */
export const CONNECTION_RETRY_AFTER_S = 2;

/** Codes of a lost or refused database connection (the driver's, the socket's, PostgreSQL's 57P0x and class 08). */
const CONNECTION_LOST = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03',
]);

/** The Retry-After for a storage fault: short for a lost database connection, else STORAGE_RETRY_AFTER_S. */
export function storageRetryAfterSeconds(err: unknown): number {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (CONNECTION_LOST.has(code) || code.startsWith('08'))) return CONNECTION_RETRY_AFTER_S;
  return STORAGE_RETRY_AFTER_S;
}
