/**
 * What a batch adds up to: counts, failures, the gates (--fail-on / --min-trust, applied to every
 * item with the single commands' rules) and the exit code.
 */
import { VerityError } from '../api/errors.js';
import { EXIT } from '../api/exit-codes.js';
import { GateFailure } from '../api/gates.js';
import { checkGates, FAIL_ON_VALUES, parseGates, type GateKind, type GateOptions } from '../api/gates.js';
import type { ResultLine } from './journal.js';

export type BatchGates = ReturnType<typeof parseGates>;

/**
 * The gate flags of a batch: a --fail-on value must be one that some kind of result can hold
 * (a batch may mix kinds); checked before any input is read.
 */
export function parseBatchGates(o: GateOptions): BatchGates {
  const all = new Set<string>(Object.values(FAIL_ON_VALUES).flat());
  const failOn = (o.failOn ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const v of failOn)
    if (!all.has(v))
      throw new VerityError('VALIDATION_FAILED', `--fail-on: "${v}" is not a value any result can have`, {
        details: [{ field: 'fail-on', issue: `one or more of: ${[...all].join(', ')}` }],
      });
  const { minTrust } = parseGates({ minTrust: o.minTrust }, 'claim' satisfies GateKind);
  return { failOn: new Set(failOn), ...(minTrust === undefined ? {} : { minTrust }) };
}

export interface GateHit {
  custom_id: string;
  line?: number;
  reasons: string[];
}

/** The reasons one result fails the gates, or none. */
export function gateReasons(result: Record<string, unknown>, gates: BatchGates): string[] {
  try {
    checkGates(result, gates);
    return [];
  } catch (err) {
    if (err instanceof GateFailure) return err.reasons;
    throw err;
  }
}

export interface BatchSummary {
  total: number;
  succeeded: number;
  failed: number;
  /** Succeeded in an earlier run (found in the journal by --resume); counted in `succeeded`. */
  resumed: number;
  /** Not run: stopped (quota, authentication) or interrupted before they started. */
  not_run: number;
  failures: Array<{ custom_id: string; line?: number; error: NonNullable<ResultLine['error']> }>;
  gate: { set: boolean; passed: boolean; failed_items: GateHit[] };
  out?: string;
  elapsed_ms: number;
  items_per_second: number;
  exit_code: number;
}

/**
 * The exit code. A batch stopped whole (quota, authentication) keeps that error's code. Then the
 * gate: an item that fails it is a verdict the caller asked to act on, and a CI script must see 3
 * whatever else went wrong (an unreadable file next to a manipulated one is still a failed gate).
 * Then the failures: 5 for a quota or rate limit, 6 only when nothing ran because every item was
 * unavailable, 1 for anything else (some items failed). Else 0.
 */
export function exitCodeOf(s: Pick<BatchSummary, 'failures' | 'gate' | 'succeeded'>, stoppedBy?: VerityError): number {
  if (stoppedBy) return stoppedBy.exitCode;
  if (s.gate.set && !s.gate.passed) return EXIT.gate;
  const codes = s.failures.map((f) => f.error.code);
  if (codes.length) {
    if (codes.some((c) => c === 'QUOTA_EXCEEDED' || c === 'RATE_LIMITED')) return EXIT.limit;
    if (s.succeeded === 0 && codes.every((c) => c === 'UNAVAILABLE')) return EXIT.unavailable;
    return EXIT.error;
  }
  return EXIT.ok;
}
