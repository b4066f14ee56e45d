/**
 * Aggregation: per-item stances → verdict, trust score and the four dimensions.
 *
 * Each item i carries a weight w_i = authority_i × (0.5 + 0.5 × relevance_i): a relevant passage
 * from an authoritative source counts most, and an off-topic one still counts half as much.
 * Support S = noisyOr(w_i × P_i(supports)), refutation R = noisyOr(w_i × P_i(refutes)).
 *
 * Verdict rules, in order (thresholds in stance-weights.ts, tuned by scripts/eval-claims.mjs):
 *   1. max(S, R) < minEvidence                                   → unverifiable
 *   2. min(S, R) ≥ conflictFloor and min(S, R) ≥ conflictRatio × max(S, R) → conflicting
 *   3. S ≥ R → true, else → false
 * Trust score: 0.5 + 0.5 × (S − R), averaged with the LLM judge's truth probability when an LLM
 * answered. So 1 = strongly supported, 0 = strongly refuted, 0.5 = no net evidence.
 */
import type { Dimensions, Verdict } from '../../api/results.js';
import { clamp01, noisyOr } from '../scoring.js';
import type { StanceProbs } from './stance.js';
import { VERDICT_THRESHOLDS } from './stance-weights.js';

export interface AggregateItem {
  stance: StanceProbs;
  relevance: number;
  authority: number;
  /** Publisher identity for cross-referencing (host name or publisher). */
  publisher: string;
  published_at: string | null;
}

export interface Thresholds {
  minEvidence: number;
  conflictFloor: number;
  conflictRatio: number;
}

export interface Aggregate {
  verdict: Verdict;
  support: number;
  refute: number;
  trust_score: number;
  dimensions: Dimensions;
  /** w_i × max(P(supports), P(refutes)) per item: the evidence order. */
  itemWeights: number[];
}

export const itemWeight = (it: Pick<AggregateItem, 'authority' | 'relevance'>): number =>
  clamp01(it.authority) * (0.5 + 0.5 * clamp01(it.relevance));

export function decideVerdict(S: number, R: number, t: Thresholds = VERDICT_THRESHOLDS): Verdict {
  const hi = Math.max(S, R);
  const lo = Math.min(S, R);
  if (hi < t.minEvidence) return 'unverifiable';
  if (lo >= t.conflictFloor && lo >= t.conflictRatio * hi) return 'conflicting';
  return S >= R ? 'true' : 'false';
}

/** Recency of one item: half-life of two years; undated items count 0.5. */
export function recencyOf(publishedAt: string | null, now: Date): number {
  if (!publishedAt) return 0.5;
  const t = Date.parse(publishedAt);
  if (Number.isNaN(t)) return 0.5;
  const years = Math.max(0, (now.getTime() - t) / (365.25 * 86_400_000));
  return 0.5 ** (years / 2);
}

export interface AggregateOptions {
  now: Date;
  thresholds?: Thresholds;
  /** The LLM judge's probability that the claim is true, when one answered. */
  llmTruth?: number;
}

export function aggregate(items: readonly AggregateItem[], opts: AggregateOptions): Aggregate {
  const ws = items.map(itemWeight);
  const S = noisyOr(items.map((it, i) => ws[i]! * it.stance.supports));
  const R = noisyOr(items.map((it, i) => ws[i]! * it.stance.refutes));
  const verdict = decideVerdict(S, R, opts.thresholds);
  const itemWeights = items.map((it, i) => ws[i]! * Math.max(it.stance.supports, it.stance.refutes));

  // Dimensions over the items that take a side, weighted by how much they count.
  const taking = items.map((it, i) => ({ it, w: itemWeights[i]! })).filter((x) => x.w > 0);
  const wsum = taking.reduce((a, x) => a + x.w, 0);
  const source_authority = wsum > 0 ? taking.reduce((a, x) => a + x.w * x.it.authority, 0) / wsum : 0;
  const recency = wsum > 0 ? taking.reduce((a, x) => a + x.w * recencyOf(x.it.published_at, opts.now), 0) / wsum : 0;

  // Cross-reference: independent publishers on the prevailing side, discounted by dissent.
  const supportSide = S >= R;
  const agreeing = new Set(
    items.filter((it) => (supportSide ? it.stance.supports > it.stance.refutes : it.stance.refutes > it.stance.supports) && (supportSide ? it.stance.supports : it.stance.refutes) > it.stance.neutral).map((it) => it.publisher),
  );
  const share = S + R > 0 ? Math.max(S, R) / (S + R) : 0;
  const cross_reference = share * (1 - 0.5 ** agreeing.size);

  const localTruth = S + R > 0 ? S / (S + R) : 0.5;
  const llm_analysis = opts.llmTruth ?? localTruth;
  const evidenceTrust = 0.5 + 0.5 * (S - R);
  const trust_score = opts.llmTruth === undefined ? evidenceTrust : (evidenceTrust + opts.llmTruth) / 2;
  return {
    verdict,
    support: S,
    refute: R,
    trust_score: clamp01(trust_score),
    dimensions: {
      source_authority: clamp01(source_authority),
      cross_reference: clamp01(cross_reference),
      recency: clamp01(recency),
      llm_analysis: clamp01(llm_analysis),
    },
    itemWeights,
  };
}
