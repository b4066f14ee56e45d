/**
 * The company trust formula's constants (docs/business.md), in a module of their own so that
 * what explains a score (human output, the HTML report) reads the same numbers as reconcile.ts,
 * which computes it:
 *
 *   trust = weighted mean of the four dimensions × STATUS_FACTOR[status]
 *           − disagreement, ambiguity and number-mismatch penalties
 */
import type { CompanyStatus } from '../../api/results.js';

/** Trust weights of the four dimensions (sum 1). */
export const TRUST_WEIGHTS = { source_authority: 0.3, cross_reference: 0.3, recency: 0.1, name_match: 0.3 } as const;
/** A company that is not trading is a weaker counterparty, whatever the certainty of the record. */
export const STATUS_FACTOR: Readonly<Record<CompanyStatus, number>> = { active: 1, inactive: 0.8, liquidation: 0.6, dissolved: 0.5 };
/** Trust lost per weighted field disagreement, and its cap. */
export const DISAGREEMENT_PENALTY = 0.08;
export const DISAGREEMENT_CAP = 0.3;
export const AMBIGUITY_PENALTY = 0.05;
export const NUMBER_MISMATCH_PENALTY = 0.2;

