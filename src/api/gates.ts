/** --fail-on / --min-trust: let scripts turn a result into a pass/fail exit code. */
import { VerityError } from './errors.js';
import { AUTHENTICITIES, COMPANY_STATUSES, MANIPULATION_FLAGS, VERDICTS } from './enums.js';

/** The result failed a gate the caller set (--fail-on, --min-trust): exit 3, result still printed. */
export class GateFailure extends Error {
  constructor(readonly reasons: string[]) {
    super(reasons.join('; '));
  }
}

export interface GateOptions {
  failOn?: string;
  minTrust?: string;
}

/** What --fail-on can match, per kind of verification: a value the result cannot hold is a gate that never fires. */
export const FAIL_ON_VALUES = {
  claim: VERDICTS,
  business: COMPANY_STATUSES,
  media: AUTHENTICITIES,
  document: MANIPULATION_FLAGS,
} as const;
export type GateKind = keyof typeof FAIL_ON_VALUES;

export function parseGates(o: GateOptions, kind: GateKind): { failOn: Set<string>; minTrust?: number } {
  const known = new Set<string>(FAIL_ON_VALUES[kind]);
  const failOn = new Set(
    (o.failOn ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
  for (const v of failOn)
    if (!known.has(v))
      throw new VerityError('VALIDATION_FAILED', `--fail-on: "${v}" is not a value a ${kind} result can have`, {
        details: [{ field: 'fail-on', issue: `one or more of: ${[...known].join(', ')}` }],
      });
  let minTrust: number | undefined;
  if (o.minTrust !== undefined) {
    minTrust = Number(o.minTrust);
    if (!Number.isFinite(minTrust) || minTrust < 0 || minTrust > 1)
      throw new VerityError('VALIDATION_FAILED', '--min-trust must be a number from 0 to 1', {
        details: [{ field: 'min-trust', issue: 'must be a number from 0 to 1' }],
      });
  }
  return { failOn, ...(minTrust === undefined ? {} : { minTrust }) };
}

/** The values of a result that --fail-on can match. */
function outcomeValues(r: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const f of ['verdict', 'status', 'authenticity'] as const) if (typeof r[f] === 'string') out.push(r[f] as string);
  if (Array.isArray(r.manipulation_flags)) out.push(...(r.manipulation_flags as string[]));
  return out;
}

export function checkGates(result: Record<string, unknown>, gates: ReturnType<typeof parseGates>): void {
  const reasons: string[] = [];
  for (const v of outcomeValues(result)) if (gates.failOn.has(v)) reasons.push(`result is "${v}" (--fail-on)`);
  const trust = result.trust_score;
  if (gates.minTrust !== undefined && typeof trust === 'number' && trust < gates.minTrust)
    reasons.push(`trust score ${trust} is below --min-trust ${gates.minTrust}`);
  if (reasons.length) throw new GateFailure(reasons);
}
