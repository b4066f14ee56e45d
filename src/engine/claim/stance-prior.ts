/**
 * Hand-set prior weights of the local stance model: the sign of each weight is what the cue means
 * linguistically (a refuting cue word raises "refutes", agreeing numbers raise "supports", "no
 * answer could be found" raises "neutral"), magnitudes 0.5–2. scripts/eval-claims.mjs --fit
 * regularizes toward these values (a Gaussian prior centred here) rather than toward zero, so
 * cues that the AVeriTeC weak labels cannot separate keep their meaning instead of vanishing.
 */
import type { StanceModel } from './stance.js';

export const STANCE_PRIOR: StanceModel = {
  features: [
    'bias', 'relevance', 'negation_mismatch', 'refute_cues', 'support_cues', 'leading_yes', 'leading_no', 'number_match',
    'number_mismatch', 'year_match', 'year_mismatch', 'antonym', 'entity_overlap', 'hedging', 'not_found',
    'negated_claim_term', 'contrast', 'no_evidence', 'debunk_context', 'yes_relevant', 'no_relevant',
  ],
  classes: ['supports', 'refutes', 'neutral'],
  weights: [
    [-0.5, 1.5, -1, -1.5, 1.5, 2, -2, 1, -1, 0.5, -0.5, -1, 1, -0.5, -2, -1.5, -0.5, -1.5, -1, 1, -1],
    [-0.5, 1.5, 1, 2, -1, -2, 2, -1, 1, -0.5, 0.5, 1, 0.5, -0.3, -0.5, 1.5, 0.5, 1.5, 1, -1, 1],
    [0.5, -2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0.5, 2, 0, 0, 0, 0, 0, 0],
  ],
};
