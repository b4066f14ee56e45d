/**
 * Weights of the local stance model and the verdict thresholds.
 *
 * Provenance: hand-set starting values (signs from the cue's meaning, magnitudes 0.5–2). They are
 * replaced by `node scripts/eval-claims.mjs --fit`, which rewrites this file with weights fitted on
 * ../shared/fixtures/claims/averitec-dev.json and records the run below.
 */
import type { StanceModel } from './stance.js';

export const STANCE_MODEL: StanceModel = {
  features: ['bias', 'relevance', 'negation_mismatch', 'refute_cues', 'support_cues', 'leading_yes', 'leading_no', 'number_match', 'number_mismatch', 'year_match', 'year_mismatch', 'antonym', 'entity_overlap', 'hedging', 'not_found'],
  classes: ['supports', 'refutes', 'neutral'],
  weights: [
    [-0.5, 1.5, -1, -1.5, 1.5, 2, -2, 1, -1, 0.5, -0.5, -1, 1, -0.5, -2],
    [-0.5, 1.5, 1, 2, -1, -2, 2, -1, 1, -0.5, 0.5, 1, 0.5, -0.3, -0.5],
    [0.5, -2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0.5, 2],
  ],
};

/** Verdict thresholds on the noisy-OR support S and refutation R (see aggregate.ts). */
export const VERDICT_THRESHOLDS = {
  /** Below this for both S and R: unverifiable. */
  minEvidence: 0.25,
  /** Both S and R at least this, and the weaker at least `conflictRatio` of the stronger: conflicting. */
  conflictFloor: 0.35,
  conflictRatio: 0.6,
};

export const WEIGHTS_PROVENANCE = 'hand-set starting values (not fitted)';
