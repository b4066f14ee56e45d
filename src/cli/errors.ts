/** How failures leave the CLI: each maps to one exit code (DESIGN.md "Exit codes"). */
import { toVerityError, VerityError } from '../api/errors.js';
import type { Connection } from './runtime.js';

export const EXIT = { ok: 0, error: 1, usage: 2, gate: 3, auth: 4, limit: 5, unavailable: 6, interrupted: 130 } as const;

/** Thrown once a failure has been reported; main() only sets the exit code. */
export class ExitError extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** The result failed a gate the caller set (--fail-on, --min-trust): exit 3, result still printed. */
export class GateFailure extends Error {
  constructor(readonly reasons: string[]) {
    super(reasons.join('; '));
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

/** A next step a person can act on, per error code. */
export function hintFor(err: VerityError, connection?: Connection): string | undefined {
  switch (err.code) {
    case 'UNAUTHORIZED':
      return 'add a key with `verity keys add NAME` (reads it from a prompt or stdin), or set VERITY_API_KEY';
    case 'FORBIDDEN':
      return err.requiredPlan ? `this needs the ${err.requiredPlan} plan or higher` : undefined;
    case 'RATE_LIMITED':
    case 'QUOTA_EXCEEDED':
      return err.retryAfter !== undefined ? `retry in ${err.retryAfter} s` : undefined;
    case 'UNAVAILABLE':
      if (connection?.mode === 'embedded' && !connection.sandbox && /not available in live mode/.test(err.message))
        return 'run with --test for sandbox results';
      return connection?.mode === 'remote' ? 'check that the service is up, or run without --remote (embedded)' : undefined;
    default:
      return undefined;
  }
}
