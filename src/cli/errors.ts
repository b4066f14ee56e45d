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

export function exitCodeFor(err: unknown): number {
  if (err instanceof ExitError) return err.exitCode;
  if (err instanceof GateFailure) return EXIT.gate;
  return toVerityError(err).exitCode;
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
