/**
 * From retrieved items to a verdict, without I/O of its own: passages (BM25 over all items'
 * sentences), authority, stance (a fact-checker's rating, else the local model; verify.ts may
 * replace stances with an NLI classifier's or the LLM judge's), aggregation, the verdict and the
 * evidence chain. verify.ts calls it for live claims; scripts/eval-claims.mjs calls it offline.
 */
import type { ClaimEvidence, DimensionProducers, Dimensions, Verdict } from '../../api/results.js';
import { authorityFor } from '../../sources/authority.js';
import { registrableDomainOf, type ClaimHit } from '../../sources/claim-types.js';
import { round3 } from '../scoring.js';
import { aggregate, UNDATED_RECENCY } from './aggregate.js';
import { VERDICT_PARAMS } from './claim-weights.js';
import type { JudgeOutput } from './llm-judge.js';
import type { NliScores } from './nli-port.js';
import { rankPassages } from './passages.js';
import { localStance, makeStance, ratingStance, STANCE_MAX_CHARS, type Stance, type StanceModel } from './stance.js';
import { ENGLISH, passageKey, type Lang } from './text.js';
import { decideVerdict, truthProbability, type VerdictParams } from './verdict.js';

export type StanceProducer = 'rating' | 'local' | 'nli' | 'llm';

/** Passages that took no side shown on an `unverifiable` result: the closest ones read. */
export const NEUTRAL_EVIDENCE = 3;

export interface ScoredHit {
  hit: ClaimHit;
  passage: string;
  relevance: number;
  authority: number;
  authorityBasis: string;
  stance: Stance;
  judgedBy: StanceProducer;
}

/**
 * The same text from two sources (or twice from one) is one piece of evidence; two different
 * texts behind one URL (two sentences of one article) are two.
 */
export function dedupeHits(hits: readonly ClaimHit[]): ClaimHit[] {
  const seen = new Map<string, ClaimHit>();
  for (const h of hits) {
    const key = passageKey(h.text) || `${h.source}:${h.url}:${passageKey(h.title)}`;
    const prev = seen.get(key);
    // Keep the rated copy of a fact-check, else the first seen.
    if (!prev || (!prev.rating && h.rating)) seen.set(key, h);
  }
  return [...seen.values()];
}

export interface ScoreOptions {
  lang?: Lang;
  model?: StanceModel;
  /** Passages kept for stance (default 20). */
  limit?: number;
  /** false: every non-rated passage is neutral (the local model cannot read this language). */
  localReads?: boolean;
}

/** The indexes of the hits retrieved only to fill a short list (ClaimHit.fill), for rankPassages. */
export const fillItems = (hits: readonly ClaimHit[]): Set<number> => new Set(hits.flatMap((h, i) => (h.fill ? [i] : [])));

/**
 * Ranks the passages of all hits against the claim and gives each a stance. A rated fact-check is
 * always kept (its rating is the fact-checker's verdict, whatever BM25 thinks of its wording).
 */
export function scoreHits(claim: string, hits: readonly ClaimHit[], opts: ScoreOptions = {}): ScoredHit[] {
  const lang = opts.lang ?? ENGLISH;
  const passages = rankPassages(claim, hits.map((h) => h.text), { lang, limit: opts.limit ?? 20, after: fillItems(hits) });
  const chosen = new Map<number, { text: string; relevance: number }[]>();
  for (const p of passages) chosen.set(p.item, [...(chosen.get(p.item) ?? []), { text: p.text, relevance: p.relevance }]);
  // Passages are de-duplicated by text, but two publishers rating the same claim wording are two
  // ratings (the Fact Check API gives one claim text with several reviews): a rated item whose
  // text was kept under another item takes that passage's relevance, not none.
  const relevanceOf = new Map(passages.map((p) => [passageKey(p.text), p.relevance]));
  const out: ScoredHit[] = [];
  hits.forEach((hit, i) => {
    const auth = authorityFor({ source: hit.source, url: hit.url, citation_count: hit.citation_count, declared_authority: hit.declared_authority });
    const rated = hit.rating && hit.rating.stance !== 'neutral';
    const ps = chosen.get(i) ?? (rated ? [{ text: hit.text, relevance: relevanceOf.get(passageKey(hit.text)) ?? 0 }] : []);
    if (rated) {
      const best = ps[0]!;
      out.push({
        hit,
        passage: best.text.includes(hit.rating!.text) ? best.text : `${best.text} Rating: ${hit.rating!.text}.`.trim(),
        relevance: best.relevance,
        authority: auth.score,
        authorityBasis: auth.basis,
        stance: ratingStance(claim, hit.reviewed_claim ?? hit.text, hit.rating!),
        judgedBy: 'rating',
      });
      return;
    }
    for (const p of ps) {
      const stance =
        opts.localReads === false
          ? makeStance({ supports: 0, refutes: 0, neutral: 1 }, ['the local stance model does not read this language'])
          : localStance(claim, p.text, p.relevance, { lang, factCheck: hit.source === 'google_fact_check' }, opts.model);
      out.push({ hit, passage: p.text, relevance: p.relevance, authority: auth.score, authorityBasis: auth.basis, stance, judgedBy: 'local' });
    }
  });
  return out;
}

/** Replaces the non-rated passages' stances with an NLI classifier's, in order (see nli-stance.ts). */
export function applyNli(scored: ScoredHit[], judged: readonly number[], scores: readonly NliScores[], name: string): void {
  judged.forEach((idx, k) => {
    const s = scored[idx];
    const r = scores[k];
    if (!s || !r || s.judgedBy === 'rating') return;
    s.stance = makeStance({ supports: r.entailment, refutes: r.contradiction, neutral: r.neutral }, [`${name}: entailment ${r.entailment.toFixed(2)}, contradiction ${r.contradiction.toFixed(2)}`]);
    s.judgedBy = 'nli';
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
    const p = { supports: rest, refutes: rest, neutral: rest };
    p[j.stance] = c;
    s.stance = makeStance(p, [`LLM judge (${out.model})`]);
    s.judgedBy = 'llm';
  });
}

export interface Conclusion {
  verdict: Verdict;
  trust_score: number;
  dimensions: Dimensions;
  producers: DimensionProducers;
  evidence: ClaimEvidence[];
  support: number;
  refute: number;
  warnings: string[];
}

export interface ConcludeOptions {
  now: Date;
  retrievedAt: string;
  maxEvidence: number;
  /** The LLM judge's whole-claim reading, when one answered. */
  llm?: { truth: number; verdict?: Verdict; model: string };
  /** What judged the stances that are not ratings: shown as llm_analysis's producer. */
  stanceProducer?: string;
  params?: VerdictParams;
}

export function conclude(scored: readonly ScoredHit[], opts: ConcludeOptions): Conclusion {
  const params = opts.params ?? VERDICT_PARAMS;
  const agg = aggregate(
    scored.map((s) => ({
      stance: s.stance,
      // A swapped slot does not make the passage less relevant (stance.ts `relevance`).
      relevance: s.stance.relevance ?? s.relevance,
      authority: s.authority,
      publisher: registrableDomainOf(s.hit.url) || s.hit.publisher || s.hit.source,
      published_at: s.hit.published_at,
    })),
    { now: opts.now, llmTruth: opts.llm?.truth },
  );
  let S = agg.support;
  let R = agg.refute;
  // The LLM's whole-claim truth probability counts as one more item of evidence, on its side.
  if (opts.llm) {
    S = 1 - (1 - S) * (1 - Math.max(0, 2 * opts.llm.truth - 1));
    R = 1 - (1 - R) * (1 - Math.max(0, 1 - 2 * opts.llm.truth));
  }
  let verdict = decideVerdict(S, R, params);
  // The LLM tells "the passages disagree" from "the passages do not say": believe it only when
  // both sides have some evidence.
  if (opts.llm?.verdict === 'conflicting' && Math.min(S, R) > 0.1 && verdict !== 'conflicting') verdict = 'conflicting';
  const calibrated = truthProbability(S, R, params);
  const trust = opts.llm ? (calibrated + opts.llm.truth) / 2 : calibrated;

  const warnings: string[] = [];
  if (agg.dated === 0) warnings.push(`no dated evidence: recency is ${UNDATED_RECENCY} (unknown)`);
  const truncated = scored.filter((s) => s.judgedBy === 'local' && s.passage.length > STANCE_MAX_CHARS).length;
  if (truncated) warnings.push(`${truncated} passage${truncated > 1 ? 's' : ''} longer than ${STANCE_MAX_CHARS} characters: the local stance model read the first ${STANCE_MAX_CHARS}`);
  const ranked = scored.map((s, i) => ({ s, w: agg.itemWeights[i]! }));
  const taking = ranked.filter(({ s }) => s.stance.label !== 'neutral').sort((a, b) => b.w - a.w);
  // An `unverifiable` result still shows what was read: the closest passages that took no side,
  // by relevance, after any that did.
  const read =
    verdict === 'unverifiable'
      ? ranked
          .filter(({ s }) => s.stance.label === 'neutral')
          .sort((a, b) => b.s.relevance - a.s.relevance)
          .slice(0, NEUTRAL_EVIDENCE)
      : [];
  const evidence = [...taking, ...read].slice(0, opts.maxEvidence).map(({ s }) => ({
    source: s.hit.source,
    url: s.hit.url,
    snippet: s.passage || s.hit.title,
    supports_claim: s.stance.label !== 'neutral' && s.stance.supports > s.stance.refutes,
    authority_score: round3(s.authority),
    retrieved_at: opts.retrievedAt,
    stance: s.stance.label,
  }));
  const producers: DimensionProducers = {
    source_authority: 'authority table (domain, source, citations)',
    cross_reference: 'independent publishers (registrable domains)',
    recency: agg.dated === 0 ? `no dated evidence (${UNDATED_RECENCY})` : `publication dates (${agg.dated} of ${agg.taking} dated)`,
    llm_analysis: opts.llm ? `LLM (${opts.llm.model})`.slice(0, 80) : (opts.stanceProducer ?? 'local stance model').slice(0, 80),
  };
  return {
    verdict,
    trust_score: round3(trust),
    dimensions: {
      source_authority: round3(agg.dimensions.source_authority),
      cross_reference: round3(agg.dimensions.cross_reference),
      recency: round3(agg.dimensions.recency),
      llm_analysis: round3(agg.dimensions.llm_analysis),
    },
    producers,
    evidence,
    support: S,
    refute: R,
    warnings,
  };
}
