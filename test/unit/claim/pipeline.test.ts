import { describe, expect, it } from 'vitest';
import { buildQuery } from '../../../src/engine/claim/query.js';
import { selectPassages } from '../../../src/engine/claim/passages.js';
import { localStance, ratingStance, stanceFeatures } from '../../../src/engine/claim/stance.js';
import { aggregate, decideVerdict, recencyOf } from '../../../src/engine/claim/aggregate.js';
import { normalizeRating } from '../../../src/sources/fact-check.js';
import { entities, numbers, years } from '../../../src/engine/claim/text.js';

const now = new Date('2025-01-01T00:00:00Z');

describe('query building', () => {
  it('keeps entities, numbers and dates, drops stop words', () => {
    const q = buildQuery('Joe Biden said the United States spent $75 million on hospice fraud in 2013', 'en');
    expect(q.terms.slice(0, 2)).toEqual(['Joe Biden', 'United States']);
    expect(q.terms).toContain('2013');
    expect(q.terms).toContain('75');
    expect(q.keywords).not.toMatch(/\bthe\b|\bon\b/);
    expect(entities('In 2020, the WHO declared a pandemic.')).toContain('WHO');
    expect(numbers('about 1,200 people and 75 million dollars, 20%')).toEqual([1200, 75e6, 20]);
    expect(years('built from 1887 to 1889')).toEqual([1887, 1889]);
  });
});

describe('passage selection (BM25)', () => {
  it('picks the sentence that matches the claim and scores relevance by covered claim terms', () => {
    const [a, b] = selectPassages('The Eiffel Tower is 330 metres tall', [
      'Paris is the capital of France. The Eiffel Tower is 330 metres tall and was the tallest structure until 1930. It has three levels.',
      'Bananas are rich in potassium.',
    ]);
    expect(a!.text).toContain('330 metres tall');
    expect(a!.text).not.toContain('Bananas');
    expect(a!.relevance).toBeGreaterThan(0.8);
    expect(b!.relevance).toBe(0);
  });
});

describe('local stance model', () => {
  const claim = 'The unemployment rate rose to 8 percent in 2020';
  it('supports an agreeing passage', () => {
    const s = localStance(claim, 'Official data confirmed the unemployment rate rose to 8 percent in 2020.', 0.9);
    expect(s.label).toBe('supports');
  });
  it('refutes on numeric mismatch plus refuting cues', () => {
    const s = localStance(claim, 'This is false: the unemployment rate rose to 3 percent in 2020, not 8.', 0.9);
    expect(s.label).toBe('refutes');
    expect(s.reasons).toContain('numbers agree'); // "not 8" mentions 8 — the cue words still decide
  });
  it('flags antonyms, date mismatch and negation as features', () => {
    const { x, reasons } = stanceFeatures(claim, 'The unemployment rate fell in 2019 and did not reach that level.', 0.6);
    expect(x.antonym).toBe(1);
    expect(x.year_mismatch).toBe(1);
    expect(x.negation_mismatch).toBe(1);
    expect(reasons).toEqual(expect.arrayContaining(['antonym rose/fell', 'dates differ', 'negation differs']));
  });
  it('is neutral when nothing was found', () => {
    expect(localStance(claim, 'No answer could be found.', 0).label).toBe('neutral');
  });
  it('reads a rating the other way round when only one wording is negated', () => {
    const r = ratingStance('Vaccines do not cause autism', 'Vaccines cause autism', normalizeRating('False'));
    expect(r.label).toBe('supports');
    expect(ratingStance('Vaccines cause autism', 'Vaccines cause autism', normalizeRating('False')).label).toBe('refutes');
  });
});

describe('aggregation rules', () => {
  const item = (supports: number, refutes: number, publisher: string, authority = 0.9) => ({
    stance: { supports, refutes, neutral: 1 - supports - refutes },
    relevance: 1,
    authority,
    publisher,
    published_at: '2024-01-01',
  });
  const t = { minEvidence: 0.25, conflictFloor: 0.35, conflictRatio: 0.6 };
  it('follows the documented order: unverifiable, conflicting, then the stronger side', () => {
    expect(decideVerdict(0.1, 0.2, t)).toBe('unverifiable');
    expect(decideVerdict(0.5, 0.45, t)).toBe('conflicting');
    expect(decideVerdict(0.8, 0.3, t)).toBe('true');
    expect(decideVerdict(0.3, 0.8, t)).toBe('false');
  });
  it('strong agreeing support from independent sources → true with high cross-reference', () => {
    const a = aggregate([item(0.9, 0.05, 'a.org'), item(0.8, 0.1, 'b.org'), item(0.85, 0.05, 'c.gov')], { now, thresholds: t });
    expect(a.verdict).toBe('true');
    expect(a.trust_score).toBeGreaterThan(0.8);
    expect(a.dimensions.cross_reference).toBeGreaterThan(0.7);
    expect(a.dimensions.llm_analysis).toBeCloseTo(a.support / (a.support + a.refute));
  });
  it('the same publisher twice is not independent corroboration', () => {
    const one = aggregate([item(0.9, 0.05, 'a.org'), item(0.9, 0.05, 'a.org')], { now, thresholds: t });
    const two = aggregate([item(0.9, 0.05, 'a.org'), item(0.9, 0.05, 'b.org')], { now, thresholds: t });
    expect(two.dimensions.cross_reference).toBeGreaterThan(one.dimensions.cross_reference);
  });
  it('support and refutation of similar strength → conflicting; an LLM truth probability moves the trust score', () => {
    const a = aggregate([item(0.9, 0, 'a.org'), item(0, 0.9, 'b.org')], { now, thresholds: t });
    expect(a.verdict).toBe('conflicting');
    const withLlm = aggregate([item(0.9, 0, 'a.org'), item(0, 0.9, 'b.org')], { now, thresholds: t, llmTruth: 0.9 });
    expect(withLlm.trust_score).toBeGreaterThan(a.trust_score);
    expect(withLlm.dimensions.llm_analysis).toBe(0.9);
  });
  it('recency halves every two years; undated counts 0.5', () => {
    expect(recencyOf('2023-01-01', now)).toBeCloseTo(0.5, 2);
    expect(recencyOf(null, now)).toBe(0.5);
    expect(recencyOf('2025-01-01', now)).toBe(1);
  });
});
