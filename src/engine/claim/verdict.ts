/**
 * The verdict: a symmetric decision on the claim's total support S and refutation R, that abstains.
 *
 * S and R come from the claim's best passages (aggregate.ts). Then, with hi = max(S, R) and
 * lo = min(S, R):
 *   1. hi < minEvidence                      → unverifiable (no decisive, relevant evidence)
 *   2. lo ≥ conflictFloor (CONFLICT_FLOOR)   → conflicting  (strong evidence on both sides)
 *   3. P(true) = σ(a × (S − R)), calibrated;
 *   4. P(true) ≥ confidenceTrue → true; 1 − P(true) ≥ confidenceFalse → false; else unverifiable
 *      (the evidence leans, but not clearly enough). Precision first: each threshold is fitted
 *      leave-one-domain-out as the lowest at which its verdict is right at least
 *      PRECISION_TARGET of the time on every training domain (scripts/eval-claims.mjs).
 * Support and refutation are treated alike: no intercept, no class prior, no side gets a head start.
 *
 * Rule 4 is a reject option per side: a verdict is given only when its calibrated probability
 * reaches the threshold that made it right PRECISION_TARGET of the time on the training domains.
 * Without fitted thresholds (the pre-issue-34 parameters, the eval's baseline) both sides use
 * CONFIDENCE (0.6), Chow's rule. CONFLICT_FLOOR (0.6) is a stated policy. The slope a is fitted by
 * log-loss on the true/false claims of the evaluation domains; the thresholds and minEvidence as
 * above (scripts/eval-claims.mjs --fit; values in claim-weights.ts).
 *
 * trust_score is the calibrated P(true) itself, so 0.5 means "the evidence does not lean" and an
 * LLM's truth probability, when one answered, is averaged in (it has no fitted calibration: there
 * are no labelled LLM runs to fit one on).
 */
import type { Verdict } from '../../api/results.js';

export const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'] as const satisfies readonly Verdict[];

/** A verdict is given only when its calibrated probability of being right is at least this. */
export const CONFIDENCE = 0.6;

/**
 * `conflicting` needs both sides at least this strong (the best passage on each side, weighted by
 * authority and relevance). A stated policy, like CONFIDENCE: fitted on the three evaluation sets
 * (none of which holds two-sided evidence the local model can read) the floor came out at 0.3–0.4,
 * and every one of the 376 `conflicting` verdicts that gave, held out, was wrong (0 right on
 * AVeriTeC, Check-COVID and fool-me-twice alike). At 0.6 two strong, opposite fact-check ratings
 * still conflict; the local model's weak two-sided readings abstain instead.
 */
export const CONFLICT_FLOOR = 0.6;

/**
 * What a wrong verdict costs against a right one (1) and an abstention (0): 1.5 makes a verdict
 * worth giving only when it is right at least CONFIDENCE = 0.6 of the time. The verdict parameters
 * are fitted to maximise this utility on the training domains (scripts/eval-claims.mjs).
 */
export const WRONG_COST = CONFIDENCE / (1 - CONFIDENCE);

export interface VerdictParams {
  minEvidence: number;
  conflictFloor: number;
  /** Slope a of the truth calibration σ(a (S − R)). */
  calibration: number;
  /**
   * The calibrated probability a verdict needs, when fitted (on the utility above, across domains):
   * it corrects how far the calibration misses on data it was not fitted on. Default CONFIDENCE.
   */
  confidence?: number;
  /**
   * Precision first (issue 34): the calibrated P(true) a `true` needs, and the 1 − P(true) a
   * `false` needs, each fitted on the training domains as the lowest value at which that verdict
   * is right at least PRECISION_TARGET of the time on every training domain (values above 1: the
   * verdict is never given). When absent, `confidence` (or CONFIDENCE) serves both.
   */
  confidenceTrue?: number;
  confidenceFalse?: number;
}

/**
 * The share of committed `true` (and of `false`) verdicts that must be right on each training
 * domain when the verdict thresholds are fitted: the bar (0.70 on every held-out domain)
 * plus 0.05 for what a threshold loses when it meets a domain it was not fitted on.
 */
export const PRECISION_TARGET = 0.8;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Calibrated P(claim true | S, R). */
export const truthProbability = (S: number, R: number, t: VerdictParams): number => sigmoid(t.calibration * (S - R));

export function decideVerdict(S: number, R: number, t: VerdictParams, confidence = t.confidence ?? CONFIDENCE): Verdict {
  const hi = Math.max(S, R);
  const lo = Math.min(S, R);
  if (hi < t.minEvidence) return 'unverifiable';
  if (lo >= t.conflictFloor) return 'conflicting';
  const p = truthProbability(S, R, t);
  if (p > 0.5) return p >= (t.confidenceTrue ?? confidence) ? 'true' : 'unverifiable';
  if (p < 0.5) return 1 - p >= (t.confidenceFalse ?? confidence) ? 'false' : 'unverifiable';
  return 'unverifiable';
}
