/**
 * Hand-set prior weights of the local stance model: each weight's sign is what the cue means
 * linguistically (a negated claim term raises "refutes", agreeing quantities raise "supports",
 * "no answer could be found" raises "neutral", the claim's frame with another name in one slot
 * raises "refutes", a passage that meets the claim only in reported speech raises "neutral"),
 * magnitudes 0.3–3. scripts/eval-claims.mjs --fit
 * regularizes toward these values (a Gaussian prior centred here) rather than toward zero, so a
 * cue that the training domains rarely show keeps its meaning instead of vanishing.
 */
import type { StanceModel } from './stance.js';

export const STANCE_PRIOR: StanceModel = {
  features: [
    'bias', 'relevance', 'full_coverage', 'negated_claim_term', 'negation_contradicted', 'negation_agrees', 'quantity_match',
    'quantity_mismatch', 'year_match', 'year_mismatch', 'antonym', 'entity_missing', 'refute_cues', 'support_cues', 'yes_relevant', 'no_relevant',
    'not_found', 'hedging', 'entity_swap', 'reported',
  ],
  classes: ['supports', 'refutes', 'neutral'],
  weights: [
    // bias rel  full  neg  contr agree qm   qmis ym   ymis ant  ent  rcue scue yes  no   nf   hedge swap report
    [-1.0, 3.0, 1.0, -1.5, -1.5, 1.0, 1.0, -1.0, 0.5, -0.5, -1.0, -1.0, -1.5, 1.5, 2.0, -2.0, -1.0, -0.3, -2.0, -1.0],
    [-1.5, 1.5, 0.3, 2.0, 2.0, -1.0, -1.0, 1.5, -0.5, 1.0, 1.5, 0.5, 2.0, -1.0, -2.0, 2.0, -1.0, -0.3, 2.5, -1.0],
    [1.0, -2.0, -1.0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 2.0, 0.5, 0, 1.0],
  ],
};
