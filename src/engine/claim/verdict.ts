/**
 * The verdict: a symmetric decision on the claim's total support S and refutation R, that abstains.
 *
 * S and R come from the claim's best passages (aggregate.ts). Then, with hi = max(S, R) and
 * lo = min(S, R):
 *   1. hi < minEvidence                      → unverifiable (no decisive, relevant evidence)
 *   2. lo ≥ conflictFloor                    → conflicting  (strong evidence on both sides)
 *   3. P(true) = σ(a × (S − R)), calibrated; if max(P, 1 − P) < CONFIDENCE → unverifiable
 *      (the evidence leans, but not enough to be right three times in five)
 *   4. P(true) > 0.5 → true, else false
 * Support and refutation are treated alike: no intercept, no class prior, no side gets a head start.
 *
 * Rule 3 is Chow's reject option: answering wrong costs 1, abstaining costs 1 − CONFIDENCE, so a
 * verdict is given only when its calibrated probability of being right is at least CONFIDENCE.
 * CONFIDENCE is a stated policy (0.6), not a fitted number. The slope a is fitted by log-loss on
 * the true/false claims of the evaluation domains; minEvidence and conflictFloor by grid search on
 * mean macro-F1 (scripts/eval-claims.mjs --fit; values in claim-weights.ts).
 *
 * trust_score is the calibrated P(true) itself, so 0.5 means "the evidence does not lean" and an
 * LLM's truth probability, when one answered, is averaged in (it has no fitted calibration: there
 * are no labelled LLM runs to fit one on).
 */
import type { Verdict } from '../../api/results.js';

export const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'] as const satisfies readonly Verdict[];

/** A verdict is given only when its calibrated probability of being right is at least this. */
export const CONFIDENCE = 0.6;

export interface VerdictParams {
  minEvidence: number;
  conflictFloor: number;
  /** Slope a of the truth calibration σ(a (S − R)). */
  calibration: number;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Calibrated P(claim true | S, R). */
export const truthProbability = (S: number, R: number, t: VerdictParams): number => sigmoid(t.calibration * (S - R));

export function decideVerdict(S: number, R: number, t: VerdictParams, confidence = CONFIDENCE): Verdict {
  const hi = Math.max(S, R);
  const lo = Math.min(S, R);
  if (hi < t.minEvidence) return 'unverifiable';
  if (lo >= t.conflictFloor) return 'conflicting';
  const p = truthProbability(S, R, t);
  if (Math.max(p, 1 - p) < confidence) return 'unverifiable';
  return p > 0.5 ? 'true' : 'false';
}
