/**
 * Aggregation: per-passage stances → support S, refutation R, and the four dimensions, each with
 * what produced it.
 *
 * Each passage i carries a weight w_i = authority_i × (0.5 + 0.5 × relevance_i): a relevant passage
 * from an authoritative source counts most, an off-topic one half as much (its stance model has
 * already read how little it says). S = the largest w_i × P_i(supports), R the same for refutes
 * (a noisy-OR over the TOP_K = 1 strongest): a claim is decided by its best passage on each side,
 * and twenty weak hints (each passage's small residual probability) do not add up to proof, as
 * they would in a noisy-OR over all. Measured leave-one-domain-out, the best passage alone gave
 * higher precision on all three domains than the best three (docs/claim.md).
 *
 * Dimensions (SPEC 2.2), over the passages that take a side, weighted by how much they count:
 * - source_authority: weighted mean authority;
 * - cross_reference: independent publishers (registrable domains) on the prevailing side,
 *   1 − 0.5^n, times that side's share of S + R;
 * - recency: weighted mean of 0.5^(age / 2 years) over DATED passages only; when none is dated the
 *   value is 0.5 ("unknown", neither fresh nor stale) and a warning says so;
 * - llm_analysis: the LLM judge's truth probability when an LLM answered, else S / (S + R) of the
 *   stances as the NLI model or the local stance model read them (0.5 without evidence).
 */
import type { Dimensions } from '../../api/results.js';
import { clamp01, noisyOr } from '../scoring.js';
import type { StanceProbs } from './stance.js';

export interface AggregateItem {
  stance: StanceProbs;
  relevance: number;
  authority: number;
  /** Independent publisher (registrable domain, else the publisher's name). */
  publisher: string;
  published_at: string | null;
}

export interface Aggregate {
  support: number;
  refute: number;
  dimensions: Dimensions;
  /** w_i × max(P(supports), P(refutes)) per item: the evidence order. */
  itemWeights: number[];
  /** Passages taking a side that carry a usable date. */
  dated: number;
  /** Passages taking a side. */
  taking: number;
}

/** Passages per side that make up S and R. */
export const TOP_K = 1;
const topNoisyOr = (xs: readonly number[]): number => noisyOr([...xs].sort((a, b) => b - a).slice(0, TOP_K));

export const itemWeight = (it: Pick<AggregateItem, 'authority' | 'relevance'>): number =>
  clamp01(it.authority) * (0.5 + 0.5 * clamp01(it.relevance));

/** Recency of one dated item: half-life of two years; null when undated or unparseable. */
export function recencyOf(publishedAt: string | null, now: Date): number | null {
  if (!publishedAt) return null;
  const t = Date.parse(publishedAt);
  if (Number.isNaN(t)) return null;
  const years = Math.max(0, (now.getTime() - t) / (365.25 * 86_400_000));
  return 0.5 ** (years / 2);
}

/** The recency value used when no passage taking a side is dated. */
export const UNDATED_RECENCY = 0.5;

export interface AggregateOptions {
  now: Date;
  /** The LLM judge's probability that the claim is true, when one answered. */
  llmTruth?: number;
}

export function aggregate(items: readonly AggregateItem[], opts: AggregateOptions): Aggregate {
  const ws = items.map(itemWeight);
  const S = topNoisyOr(items.map((it, i) => ws[i]! * it.stance.supports));
  const R = topNoisyOr(items.map((it, i) => ws[i]! * it.stance.refutes));
  const itemWeights = items.map((it, i) => ws[i]! * Math.max(it.stance.supports, it.stance.refutes));

  const taking = items.map((it, i) => ({ it, w: itemWeights[i]! })).filter((x) => x.w > 0 && x.it.stance.neutral < Math.max(x.it.stance.supports, x.it.stance.refutes));
  const wsum = taking.reduce((a, x) => a + x.w, 0);
  const source_authority = wsum > 0 ? taking.reduce((a, x) => a + x.w * x.it.authority, 0) / wsum : 0;
  const dated = taking.map((x) => ({ w: x.w, r: recencyOf(x.it.published_at, opts.now) })).filter((x): x is { w: number; r: number } => x.r !== null);
  const dsum = dated.reduce((a, x) => a + x.w, 0);
  const recency = dsum > 0 ? dated.reduce((a, x) => a + x.w * x.r, 0) / dsum : UNDATED_RECENCY;

  const supportSide = S >= R;
  const agreeing = new Set(
    taking.filter(({ it }) => (supportSide ? it.stance.supports > it.stance.refutes : it.stance.refutes > it.stance.supports)).map(({ it }) => it.publisher),
  );
  const share = S + R > 0 ? Math.max(S, R) / (S + R) : 0;
  const cross_reference = share * (1 - 0.5 ** agreeing.size);
  const localTruth = S + R > 0 ? S / (S + R) : 0.5;
  return {
    support: S,
    refute: R,
    dimensions: {
      source_authority: clamp01(source_authority),
      cross_reference: clamp01(cross_reference),
      recency: clamp01(recency),
      llm_analysis: clamp01(opts.llmTruth ?? localTruth),
    },
    itemWeights,
    dated: dated.length,
    taking: taking.length,
  };
}
