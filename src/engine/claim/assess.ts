/**
 * From retrieved items to a verdict, without any I/O: passages, authority, stance (rating or local
 * model, optionally overridden by the LLM judge), aggregation, and the evidence chain. verify.ts
 * calls it for live claims; scripts/eval-claims.mjs calls it on the AVeriTeC answers.
 */
import type { ClaimEvidence, Dimensions, Verdict } from '../../api/results.js';
import { authorityFor } from '../../sources/authority.js';
import { hostnameOf, type ClaimHit } from '../../sources/claim-types.js';
import { round3 } from '../scoring.js';
import { aggregate, decideVerdict, itemWeight, type Thresholds } from './aggregate.js';
import type { JudgeOutput } from './llm-judge.js';
import { selectPassages } from './passages.js';
import { localStance, ratingStance, type Stance, type StanceModel, type StanceProbs } from './stance.js';
import { VERDICT_MODEL } from './stance-weights.js';
import { predictVerdict, verdictFeatures, verdictOf, type PriorChoice, type VerdictFeatureVector, type VerdictModel, type VerdictProbs } from './verdict-model.js';

export interface ScoredHit {
  hit: ClaimHit;
  passage: string;
  relevance: number;
  authority: number;
  authorityBasis: string;
  stance: Stance;
  judgedBy: 'rating' | 'local' | 'llm';
}

/** Same URL from two sources (or twice from one) is one piece of evidence. */
export function dedupeHits(hits: readonly ClaimHit[]): ClaimHit[] {
  const seen = new Map<string, ClaimHit>();
  for (const h of hits) {
    const key = h.url.replace(/^https?:\/\/(www\.)?/, '').replace(/[#?].*$/, '').replace(/\/$/, '') || `${h.source}:${h.title}:${h.text.slice(0, 80)}`;
    const prev = seen.get(key);
    // Keep the rated copy of a fact-check, else the first seen.
    if (!prev || (!prev.rating && h.rating)) seen.set(key, h);
  }
  return [...seen.values()];
}

export function scoreHits(claim: string, hits: readonly ClaimHit[], model?: StanceModel): ScoredHit[] {
  const passages = selectPassages(claim, hits.map((h) => h.text));
  return hits.map((hit, i) => {
    const { text, relevance } = passages[i]!;
    const auth = authorityFor({ source: hit.source, url: hit.url, citation_count: hit.citation_count, declared_authority: hit.declared_authority });
    const rated = hit.rating && hit.rating.stance !== 'neutral';
    const stance = rated ? ratingStance(claim, hit.reviewed_claim ?? hit.text, hit.rating!) : localStance(claim, text, relevance, model);
    return {
      hit,
      // A rated item's passage always shows the rating, whichever sentence BM25 preferred.
      passage: rated && !text.includes(hit.rating!.text) ? `${text} Rating: ${hit.rating!.text}.`.trim() : text,
      relevance,
      authority: auth.score,
      authorityBasis: auth.basis,
      stance,
      judgedBy: rated ? 'rating' : 'local',
    };
  });
}

/** Replaces local stances with the LLM's for the judged items (ratings stay: they are the source's own verdict). */
export function applyJudge(scored: ScoredHit[], judged: readonly number[], out: JudgeOutput): void {
  judged.forEach((idx, k) => {
    const s = scored[idx];
    const j = out.items[k];
    if (!s || !j || s.judgedBy === 'rating') return;
    const c = Math.min(1, Math.max(1 / 3, j.confidence));
    const rest = (1 - c) / 2;
    const p: StanceProbs = { supports: rest, refutes: rest, neutral: rest };
    p[j.stance] = c;
    s.stance = { ...p, label: j.stance, confidence: c, reasons: [`LLM judge (${out.model})`] };
    s.judgedBy = 'llm';
  });
}

export interface Conclusion {
  verdict: Verdict;
  trust_score: number;
  dimensions: Dimensions;
  evidence: ClaimEvidence[];
  support: number;
  refute: number;
  /** The verdict model's probabilities; null when the threshold rules decided. */
  verdictProbs: VerdictProbs | null;
}

export interface ConcludeOptions {
  now: Date;
  retrievedAt: string;
  maxEvidence: number;
  llmTruth?: number;
  /** The claim as checked; the verdict model reads its wording (absolutes, numbers, quotes). */
  claim?: string;
  /** Decide by the S/R threshold rules instead of the verdict model (the first model's method). */
  thresholds?: Thresholds;
  /** Verdict model to use (default: the fitted one in stance-weights.ts). */
  verdictModel?: VerdictModel;
  /** Keep the fitted class prior (default) or divide it out; see verdict-model.ts. */
  prior?: PriorChoice;
}

/** The verdict model's input for one claim (also used by scripts/eval-claims.mjs to fit it). */
export const claimVerdictFeatures = (claim: string, scored: readonly ScoredHit[], S: number, R: number): VerdictFeatureVector =>
  verdictFeatures(claim, scored.map((s) => ({ stance: s.stance, relevance: s.relevance, weight: itemWeight(s), features: s.stance.features })), S, R);

/**
 * The verdict: "no relevant evidence → unverifiable" first (no item shares a single term with the
 * claim, so the model is not asked to extrapolate from nothing), then the verdict model, or the
 * threshold rules when asked for them. The floor is zero on purpose: relevance is measured within
 * the claim's own small pool of sentences, and a higher floor (0.1) wrongly silenced 53 of the 500
 * AVeriTeC claims whose answers are on topic but paraphrase it.
 */
function decide(scored: readonly ScoredHit[], S: number, R: number, opts: ConcludeOptions): { verdict: Verdict; probs: VerdictProbs | null } {
  if (opts.thresholds) return { verdict: decideVerdict(S, R, opts.thresholds), probs: null };
  if (!scored.some((s) => s.relevance > 0)) return { verdict: 'unverifiable', probs: null };
  const model = opts.verdictModel ?? VERDICT_MODEL;
  const f = claimVerdictFeatures(opts.claim ?? '', scored, S, R);
  const probs = predictVerdict(f, model, opts.prior);
  return { verdict: verdictOf(probs), probs };
}

export function conclude(scored: readonly ScoredHit[], opts: ConcludeOptions): Conclusion {
  const agg = aggregate(
    scored.map((s) => ({
      stance: s.stance,
      relevance: s.relevance,
      authority: s.authority,
      publisher: hostnameOf(s.hit.url) || s.hit.publisher || s.hit.source,
      published_at: s.hit.published_at,
    })),
    { now: opts.now, llmTruth: opts.llmTruth, thresholds: opts.thresholds },
  );
  const { verdict, probs } = decide(scored, agg.support, agg.refute, opts);
  // With the verdict model, the trust score is its expected truth: P(true) plus half of the
  // undecided verdicts, averaged with the LLM's truth probability when one answered.
  let trust = agg.trust_score;
  if (probs) {
    const expected = probs.true + 0.5 * (probs.unverifiable + probs.conflicting);
    trust = opts.llmTruth === undefined ? expected : (expected + opts.llmTruth) / 2;
  }
  // The evidence chain holds the items that take a side, strongest first.
  const evidence = scored
    .map((s, i) => ({ s, w: agg.itemWeights[i]! }))
    .filter(({ s }) => s.stance.label !== 'neutral')
    .sort((a, b) => b.w - a.w)
    .slice(0, opts.maxEvidence)
    .map(({ s }) => ({
      source: s.hit.source,
      url: s.hit.url,
      snippet: s.passage || s.hit.title,
      supports_claim: s.stance.supports > s.stance.refutes,
      authority_score: round3(s.authority),
      retrieved_at: opts.retrievedAt,
    }));
  return {
    verdict,
    trust_score: round3(trust),
    dimensions: {
      source_authority: round3(agg.dimensions.source_authority),
      cross_reference: round3(agg.dimensions.cross_reference),
      recency: round3(agg.dimensions.recency),
      llm_analysis: round3(agg.dimensions.llm_analysis),
    },
    evidence,
    support: agg.support,
    refute: agg.refute,
    verdictProbs: probs,
  };
}
