import { describe, expect, it } from 'vitest';
import { conclude, type ScoredHit } from '../../../src/engine/claim/assess.js';
import { selectPassages } from '../../../src/engine/claim/passages.js';
import { localStance, stanceFeatures, type StanceProbs } from '../../../src/engine/claim/stance.js';
import { VERDICT_MODEL } from '../../../src/engine/claim/stance-weights.js';
import { predictVerdict, verdictFeatures, verdictOf, VERDICT_FEATURES, type VerdictModel } from '../../../src/engine/claim/verdict-model.js';
import { scoreHits } from '../../../src/engine/claim/assess.js';
import type { ClaimHit } from '../../../src/sources/claim-types.js';

const now = new Date('2021-01-01T00:00:00Z');
const hit = (text: string, url = 'https://example.org/a'): ClaimHit => ({ source: 'local', url, title: '', text, published_at: null, publisher: null });

describe('stance features (second model)', () => {
  const claim = 'Anthony Fauci is a Democrat';
  it('finds a negator governing one of the claim’s own terms (negation scope)', () => {
    const neg = stanceFeatures(claim, 'His voter registration shows Fauci is not a registered Democrat.', 0.8);
    expect(neg.x.negated_claim_term).toBeGreaterThan(0);
    expect(neg.reasons.some((r) => r.startsWith('negates'))).toBe(true);
    // A negation far from any claim term, or the same negation in the claim, does not count.
    expect(stanceFeatures(claim, 'Fauci is a Democrat; he did not comment on the vote count.', 0.8).x.negated_claim_term).toBe(0);
    expect(stanceFeatures('Fauci is not a Democrat', 'Fauci is not a Democrat.', 0.8).x.negated_claim_term).toBe(0);
  });
  it('reads "No answer could be found" as silence, not as a "No"; weights a yes/no by relevance', () => {
    const silent = stanceFeatures(claim, 'Is Fauci a Democrat? No answer could be found.', 0.7).x;
    expect(silent.leading_no).toBe(0);
    expect(silent.not_found).toBe(1);
    const no = stanceFeatures(claim, 'Is Fauci a Democrat? No, he is registered as an independent.', 0.7).x;
    expect(no.leading_no).toBe(1);
    expect(no.no_relevant).toBeCloseTo(0.7);
    expect(no.yes_relevant).toBe(0);
  });
  it('flags stated absence of evidence, contrast and fact-check discourse, unless the claim says it itself', () => {
    const x = stanceFeatures(claim, 'The viral Facebook post is wrong: there is no record of party membership. However, he votes.', 0.5).x;
    expect(x.no_evidence).toBe(1);
    expect(x.debunk_context).toBe(1);
    expect(x.contrast).toBeGreaterThan(0);
    const own = stanceFeatures('A viral Facebook post says there is no evidence of fraud', 'A viral Facebook post says there is no evidence of fraud.', 0.9).x;
    expect(own.debunk_context).toBe(0);
    expect(own.no_evidence).toBe(0);
  });
  it('the fitted model reads a relevant "No" with a negated claim term as refuting', () => {
    const s = localStance(claim, 'Is Anthony Fauci a registered Democrat? No. Fauci is not a member of any political party.', 0.9);
    expect(s.label).toBe('refutes');
    expect(s.features?.no_relevant).toBeGreaterThan(0);
  });
});

describe('passage selection keeps short results whole', () => {
  it('keeps the answer sentence that shares no term with the claim', () => {
    const [p] = selectPassages('Oil prices in Nigeria dropped by 40 percent', ['Did oil prices in Nigeria drop by 40 percent? No answer could be found.']);
    expect(p!.text).toContain('No answer could be found');
  });
  it('still cuts a long text to its best sentences', () => {
    const filler = Array.from({ length: 12 }, (_, i) => `Unrelated sentence number ${i} talks about weather and sport.`).join(' ');
    const [p] = selectPassages('Oil prices in Nigeria dropped by 40 percent', [`${filler} Oil prices in Nigeria dropped sharply in April. ${filler}`]);
    expect(p!.text).toContain('Oil prices in Nigeria');
    expect(p!.text).not.toContain('number 11');
  });
});

describe('verdict model', () => {
  const probs = (supports: number, refutes: number): StanceProbs => ({ supports, refutes, neutral: 1 - supports - refutes });
  it('summarizes the set of stances: both sides, nothing found, claim wording', () => {
    const f = verdictFeatures(
      'Every single voter was paid 100 dollars',
      [
        { stance: probs(0.9, 0.05), relevance: 0.8, features: { not_found: 0, yes_relevant: 0.8 } },
        { stance: probs(0.1, 0.8), relevance: 0.6, features: { not_found: 0, no_relevant: 0.6, refute_cues: 1 } },
        { stance: probs(0.1, 0.1), relevance: 0.2, features: { not_found: 1 } },
      ],
      0.7,
      0.6,
    );
    expect(f.both_sides).toBeCloseTo(0.8);
    expect(f.any_not_found).toBe(1);
    expect(f.share_not_found).toBeCloseTo(1 / 3);
    expect(f.any_yes).toBeCloseTo(0.8);
    expect(f.any_no).toBeCloseTo(0.6);
    expect(f.max_refute_cues).toBe(1);
    expect(f.mean_refute_cues).toBeCloseTo(1 / 3);
    expect(f.claim_absolute).toBe(1);
    expect(f.claim_number).toBe(1);
    expect(Object.keys(f)).toEqual([...VERDICT_FEATURES]);
  });
  it('weights the set summaries by how much each item counts', () => {
    const items = [
      { stance: probs(0.9, 0.05), relevance: 1, weight: 0.9, features: {} },
      { stance: probs(0.05, 0.9), relevance: 1, weight: 0.1, features: { refute_cues: 1 } },
    ];
    const weighted = verdictFeatures('x', items, 0.8, 0.1);
    const flat = verdictFeatures('x', items.map(({ weight: _w, ...it }) => it), 0.8, 0.1);
    expect(flat.max_refutes).toBeCloseTo(0.9);
    expect(weighted.max_refutes).toBeCloseTo(0.1); // 0.9 × 0.1 / 0.9
    expect(weighted.max_supports).toBeCloseTo(0.9);
    expect(weighted.mean_refute_cues).toBeCloseTo(0.1);
    expect(flat.mean_refute_cues).toBeCloseTo(0.5);
  });
  it('dividing out the fitted prior turns a prior-only decision around', () => {
    // Bias only: the model says "false" purely because false claims dominated its training data.
    const model: VerdictModel = {
      features: ['bias'],
      classes: ['true', 'false', 'unverifiable', 'conflicting'],
      weights: [[Math.log(0.3)], [Math.log(0.5)], [Math.log(0.1)], [Math.log(0.1)]],
      prior: [0.3, 0.5, 0.1, 0.1],
    };
    const f = verdictFeatures('x', [], 0, 0);
    expect(verdictOf(predictVerdict(f, model))).toBe('false');
    const u = predictVerdict(f, model, 'uniform');
    for (const v of ['true', 'false', 'unverifiable', 'conflicting'] as const) expect(u[v]).toBeCloseTo(0.25);
  });
  it('the shipped model is the fitted one, with its class prior recorded', () => {
    expect(VERDICT_MODEL.features).toEqual([...VERDICT_FEATURES]);
    expect(VERDICT_MODEL.prior.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
    expect(VERDICT_MODEL.prior[1]).toBeGreaterThan(VERDICT_MODEL.prior[0]!); // refuted claims dominate AVeriTeC
  });
});

describe('conclude with the verdict model', () => {
  const claim = 'The city council approved the new stadium budget in 2019';
  const opts = { now, retrievedAt: now.toISOString(), maxEvidence: 5, claim };
  it('no item sharing a term with the claim → unverifiable, without asking the model', () => {
    const c = conclude(scoreHits(claim, [hit('Bananas are rich in potassium.')]), opts);
    expect(c.verdict).toBe('unverifiable');
    expect(c.verdictProbs).toBeNull();
  });
  it('answers that found nothing → unverifiable; clear refutations → false; clear support → true', () => {
    const nothing = scoreHits(claim, [
      hit('Did the city council approve the stadium budget in 2019? No answer could be found.', 'https://a.org/1'),
      hit('When did the council vote on the stadium budget? No answer could be found.', 'https://b.org/2'),
    ]);
    expect(conclude(nothing, opts).verdict).toBe('unverifiable');
    const refuting = scoreHits(claim, [
      hit('Did the city council approve the new stadium budget in 2019? No. The council rejected the stadium budget; the claim is false.', 'https://a.org/1'),
      hit('The viral post is fake: there is no record that the council approved any stadium budget.', 'https://b.org/2'),
    ]);
    const r = conclude(refuting, opts);
    expect(r.verdict).toBe('false');
    expect(r.trust_score).toBeLessThan(0.5);
    const supporting = scoreHits(claim, [
      hit('Did the city council approve the new stadium budget in 2019? Yes. Official minutes confirm the council approved the new stadium budget in 2019.', 'https://a.gov/1'),
      hit('In 2019 the city council approved the new stadium budget, records show.', 'https://b.org/2'),
    ]);
    const s = conclude(supporting, opts);
    expect(s.verdict).toBe('true');
    expect(s.trust_score).toBeGreaterThan(r.trust_score);
    expect(s.verdictProbs!.true).toBeGreaterThan(s.verdictProbs!.false);
  });
  it('explicit thresholds still select the first model’s rules', () => {
    const scored: ScoredHit[] = scoreHits(claim, [hit('The city council approved the new stadium budget in 2019.')]);
    const c = conclude(scored, { ...opts, thresholds: { minEvidence: 0.99, conflictFloor: 0.99, conflictRatio: 1 } });
    expect(c.verdict).toBe('unverifiable');
    expect(c.verdictProbs).toBeNull();
  });
});
