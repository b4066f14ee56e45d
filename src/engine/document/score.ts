/**
 * The document trust formula (written out in docs/document.md):
 *
 *   source_authority = provenance strength (valid signature/C2PA high, stripped metadata low)
 *   cross_reference  = (agreeing cross-checks + 1) / (cross-checks run + 2)   (Laplace; 0.5 with none)
 *   recency          = 1 − noisyOr(severities of inconsistent_timestamps findings); 0.5 with no dates
 *   llm_analysis     = 1 − P(AI-generated text), length-shrunk; 0.5 below the minimum length
 *   base             = 0.25·SA + 0.20·CR + 0.15·REC + 0.40·LLM
 *   trust_score      = base × (1 − noisyOr(severities of all findings))
 *   partial analysis (a truncated file of which only part could be read): trust_score ≤ 0.4
 */
// The flag list from the enums, not results.ts: that module builds every result schema at load,
// which a verification never uses.
import { MANIPULATION_FLAGS, type ManipulationFlag } from '../../api/enums.js';
import type { Dimensions } from '../../api/results.js';
import { noisyOr, round3, weightedMean } from '../scoring.js';
import type { ConsistencyCheck, Finding } from './report.js';

export const WEIGHTS = { source_authority: 0.25, cross_reference: 0.2, recency: 0.15, llm_analysis: 0.4 } as const;

/** Highest trust a partial analysis may give: what could not be read can never raise trust. */
export const PARTIAL_TRUST_CAP = 0.4;

export function documentScores(input: {
  findings: Finding[];
  checks: ConsistencyCheck[];
  provenance: number;
  hasDates: boolean;
  aiProbability: number;
  enoughText: boolean;
  /** Part of the file could not be read (truncated): trust is capped at PARTIAL_TRUST_CAP. */
  partial?: boolean;
}): { trust: number; dimensions: Dimensions; flags: ManipulationFlag[] } {
  const agree = input.checks.filter((c) => c.agrees).length;
  const tsSeverities = input.findings.filter((f) => f.flag === 'inconsistent_timestamps').map((f) => f.severity);
  const dimensions: Dimensions = {
    source_authority: round3(input.provenance),
    cross_reference: round3((agree + 1) / (input.checks.length + 2)),
    recency: round3(input.hasDates || tsSeverities.length ? 1 - noisyOr(tsSeverities) : 0.5),
    llm_analysis: round3(input.enoughText ? 1 - input.aiProbability : 0.5),
  };
  const base = weightedMean((Object.keys(WEIGHTS) as (keyof typeof WEIGHTS)[]).map((k) => [dimensions[k], WEIGHTS[k]] as const));
  const penalty = noisyOr(input.findings.map((f) => f.severity));
  const raised = new Set(input.findings.map((f) => f.flag).filter((f): f is ManipulationFlag => !!f));
  const trust = base * (1 - penalty);
  return { trust: round3(input.partial ? Math.min(trust, PARTIAL_TRUST_CAP) : trust), dimensions, flags: MANIPULATION_FLAGS.filter((f) => raised.has(f)) };
}
