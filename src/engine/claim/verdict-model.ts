/**
 * The verdict model: from the stances of all the items retrieved for one claim to a probability
 * for each verdict (true, false, unverifiable, conflicting).
 *
 * Why a model and not only thresholds: the noisy-OR totals S and R saturate as items accumulate,
 * and the signals that separate "unverifiable" (many items saying nothing was found, low relevance)
 * and "conflicting" (a clear "yes" and a clear "no" among the items) from true/false are shapes of
 * the whole set of stances, not one number. A four-class multinomial logistic model over a few
 * set-level summaries reads them, and is fitted and measured held-out by
 * `node scripts/eval-claims.mjs --fit` (weights and provenance in stance-weights.ts).
 *
 * Class prior. The fitted bias terms carry the training set's class balance (AVeriTeC: 61 %
 * refuted, partly rebalanced during fitting; see `VerdictModel.prior`). `prior: 'uniform'` removes
 * it (logit_c − log prior_c), for claim mixes where refuted claims do not dominate. Both figures
 * are in docs/claim.md.
 */
import type { Verdict } from '../../api/results.js';
import type { FeatureVector, StanceProbs } from './stance.js';
import { numbers } from './text.js';

export const VERDICTS = ['true', 'false', 'unverifiable', 'conflicting'] as const satisfies readonly Verdict[];

/**
 * Local stance cues whose mean and maximum over the claim's items the verdict model also reads
 * directly: the stance model squeezes them into three probabilities fitted on noisy per-item labels,
 * and the verdict stage recovers part of what is lost (measured: +1.4 points held-out accuracy at
 * equal macro-F1; docs/claim.md).
 */
export const SET_CUES = ['negated_claim_term', 'refute_cues', 'no_evidence', 'debunk_context', 'contrast', 'number_mismatch', 'hedging'] as const;

export const VERDICT_FEATURES = [
  'bias',
  'support', // noisy-OR S (authority- and relevance-weighted)
  'refute', // noisy-OR R
  'mean_supports',
  'mean_refutes',
  'mean_neutral',
  'max_supports',
  'max_refutes',
  'both_sides', // min(max P(supports), max P(refutes)): a strong item on each side
  'share_not_found',
  'any_not_found',
  'any_yes',
  'any_no',
  'items', // log(1 + n) / log(11)
  'mean_relevance',
  'claim_absolute',
  'claim_number',
  'claim_quote',
  ...SET_CUES.flatMap((c) => [`mean_${c}`, `max_${c}`] as const),
] as const;
export type VerdictFeatureName = (typeof VERDICT_FEATURES)[number];
export type VerdictFeatureVector = Record<VerdictFeatureName, number>;

export interface VerdictItem {
  stance: StanceProbs;
  relevance: number;
  /** How much the item counts (aggregate.ts itemWeight: authority × relevance); default 1. */
  weight?: number;
  /** The local stance features, when the local model judged the item (absent for ratings and LLM stances). */
  features?: Partial<FeatureVector>;
}

export interface VerdictModel {
  features: readonly string[];
  classes: readonly Verdict[];
  /** weights[class][feature] */
  weights: readonly (readonly number[])[];
  /** The class prior the bias terms encode (training frequencies after class weighting), per class. */
  prior: readonly number[];
}

export type PriorChoice = 'fitted' | 'uniform';

/**
 * Claim-side wording that fact-checked claims share with false ones: absolutes and superlatives
 * ("all", "never", "the biggest … in history"). Reads only the claim, which live mode has too; the
 * direction and size of its weight are learned from AVeriTeC and are the most dataset-shaped part.
 */
const ABSOLUTES = /\b(all|every|everyone|everybody|never|always|none|nobody|nothing|entire(ly)?|complete(ly)?|total(ly)?|100 ?%|record|biggest|largest|highest|lowest|worst|best|greatest|most|ever|only|any)\b/;
const QUOTE = /["“”]|\b(said|says|saying|stated|tweeted|wrote|quoted?)\b/;

export function verdictFeatures(claim: string, items: readonly VerdictItem[], S: number, R: number): VerdictFeatureVector {
  // Set summaries weighted by how much each item counts, so a low-authority blog's "no" does not
  // weigh like an official record's "yes": means are weighted means, and maxima are taken over
  // value × (weight / the heaviest item's weight).
  const ws = items.map((it) => Math.max(0, it.weight ?? 1));
  const wsum = ws.reduce((a, b) => a + b, 0);
  const wmax = ws.length ? Math.max(...ws) : 0;
  const mean = (xs: readonly number[]): number => (wsum > 0 ? xs.reduce((a, x, i) => a + x * ws[i]!, 0) / wsum : 0);
  const max = (xs: readonly number[]): number => (wmax > 0 ? Math.max(...xs.map((x, i) => (x * ws[i]!) / wmax)) : 0);
  const f = Object.fromEntries(VERDICT_FEATURES.map((k) => [k, 0])) as VerdictFeatureVector;
  f.bias = 1;
  f.support = S;
  f.refute = R;
  const sup = items.map((it) => it.stance.supports);
  const ref = items.map((it) => it.stance.refutes);
  f.mean_supports = mean(sup);
  f.mean_refutes = mean(ref);
  f.mean_neutral = mean(items.map((it) => it.stance.neutral));
  f.max_supports = max(sup);
  f.max_refutes = max(ref);
  f.both_sides = Math.min(f.max_supports, f.max_refutes);
  f.share_not_found = mean(items.map((it) => it.features?.not_found ?? 0));
  f.any_not_found = max(items.map((it) => it.features?.not_found ?? 0));
  f.any_yes = max(items.map((it) => it.features?.yes_relevant ?? 0));
  f.any_no = max(items.map((it) => it.features?.no_relevant ?? 0));
  f.items = Math.min(1, Math.log(1 + items.length) / Math.log(11));
  f.mean_relevance = items.length ? items.reduce((a, it) => a + it.relevance, 0) / items.length : 0;
  for (const cue of SET_CUES) {
    const vals = items.map((it) => it.features?.[cue] ?? 0);
    f[`mean_${cue}`] = mean(vals);
    f[`max_${cue}`] = max(vals);
  }
  const c = claim.toLowerCase();
  f.claim_absolute = ABSOLUTES.test(c) ? 1 : 0;
  f.claim_number = numbers(claim).length > 0 ? 1 : 0;
  f.claim_quote = QUOTE.test(claim) ? 1 : 0;
  return f;
}

function softmax(zs: readonly number[]): number[] {
  const m = Math.max(...zs);
  const es = zs.map((z) => Math.exp(z - m));
  const s = es.reduce((a, b) => a + b, 0);
  return es.map((e) => e / s);
}

export type VerdictProbs = Record<Verdict, number>;

export function predictVerdict(f: VerdictFeatureVector, model: VerdictModel, prior: PriorChoice = 'fitted'): VerdictProbs {
  const vec = model.features.map((k) => f[k as VerdictFeatureName] ?? 0);
  const zs = model.weights.map((w, c) => {
    const z = w.reduce((a, wi, i) => a + wi * vec[i]!, 0);
    // Bayes' rule on the logit scale: dividing out the fitted prior leaves a uniform one.
    return prior === 'uniform' ? z - Math.log(Math.max(1e-6, model.prior[c] ?? 1 / model.classes.length)) : z;
  });
  const ps = softmax(zs);
  const out = { true: 0, false: 0, unverifiable: 0, conflicting: 0 } as VerdictProbs;
  model.classes.forEach((c, i) => (out[c] = ps[i]!));
  return out;
}

export const verdictOf = (p: VerdictProbs): Verdict =>
  VERDICTS.reduce((best, v) => (p[v] > p[best] ? v : best), VERDICTS[0] as Verdict);
