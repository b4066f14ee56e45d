/** How failures leave the CLI: each maps to one exit code (DESIGN.md "Exit codes"). */
import { toVerityError, VerityError } from '../api/errors.js';
import { retryIn } from './durations.js';
import type { Connection } from './runtime.js';

import { EXIT } from '../api/exit-codes.js';
export { EXIT };
import { GateFailure } from '../api/gates.js';
export { GateFailure };

/** Thrown once a failure has been reported; main() only sets the exit code. */
export class ExitError extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}


/** File-system and SQLite causes the CLI names plainly (no --verbose needed). */
const FS_CAUSES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device (disk full)',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EIO: 'input/output error',
  SQLITE_FULL: 'the database or disk is full',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_CANTOPEN: 'the database file cannot be opened',
  SQLITE_IOERR: 'a disk I/O error',
  SQLITE_BUSY: 'the database is locked by another process',
  SQLITE_PERM: 'permission denied',
};

/**
 * An error from the file system or the store, as a message naming the cause and the path
 * (`Cannot write /var/lib/verity/verity.db: the file system is read-only (EROFS)`), exit 1.
 * Everything else goes through the API catalogue unchanged.
 */
export function toCliError(err: unknown): VerityError {
  const e = err as { code?: unknown; path?: unknown; syscall?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const base = code?.startsWith('SQLITE_') ? code.replace(/^(SQLITE_[A-Z]+?)(_[A-Z_]+)?$/, '$1') : code;
  const cause = base ? FS_CAUSES[base] : undefined;
  if (!(err instanceof VerityError) && cause) {
    const where = typeof e?.path === 'string' ? ` ${e.path}` : '';
    const verb = e?.syscall === 'open' || e?.syscall === 'scandir' || e?.syscall === 'stat' ? 'open' : 'write';
    return new VerityError('INTERNAL_ERROR', `Cannot ${verb}${where || ' to disk'}: ${cause} (${code})`, { cause: err });
  }
  return toVerityError(err);
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof ExitError) return err.exitCode;
  if (err instanceof GateFailure) return EXIT.gate;
  return toCliError(err).exitCode;
}

/**
 * A next step a person can act on: the one the error carries (raised where the cause is known),
 * else one per error code. Remote failures are told apart by where they came from: the service
 * unreachable (transport) is not the service answering that its own sources are down.
 */
export function hintFor(err: VerityError, connection?: Connection, now: Date = new Date()): string | undefined {
  if (err.hint) return err.hint;
  switch (err.code) {
    case 'UNAUTHORIZED':
      return 'add a key with `verity keys add NAME` (reads it from a prompt or stdin), or set VERITY_API_KEY';
    case 'FORBIDDEN':
      return err.requiredPlan ? `this needs the ${err.requiredPlan} plan or higher` : undefined;
    case 'RATE_LIMITED':
    case 'QUOTA_EXCEEDED':
      return err.retryAfter !== undefined ? retryIn(err.retryAfter, now) : undefined;
    case 'UNAVAILABLE': {
      if (err.origin === 'local') return undefined;
      if (connection?.mode === 'remote') {
        const host = new URL(connection.baseUrl).host;
        if (err.origin === 'transport')
          return `check that the service at ${host} is up and reachable (\`verity serve\` there), or run this machine's engine with --local`;
        if (err.origin === 'service')
          return `the service at ${host} answered, but what it depends on is unavailable; ${err.retryAfter !== undefined ? `${retryIn(err.retryAfter, now)}, ` : 'retry later, '}or run with --test for sandbox results`;
        return undefined;
      }
      if (connection?.mode === 'embedded' && !connection.sandbox) {
        if (/not available in live mode/.test(err.message)) return 'run with --test for sandbox results';
        if (/no claim source answered/.test(err.message))
          return 'offline or every source down? `--test` gives sandbox results; `--sources local` searches your own corpus (`verity corpus add FILE.jsonl|csv`)';
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
