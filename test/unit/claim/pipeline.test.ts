import { describe, expect, it } from 'vitest';
import { buildQuery } from '../../../src/engine/claim/query.js';
import { rankPassages } from '../../../src/engine/claim/passages.js';
import { localStance, ratingStance, stanceFeatures } from '../../../src/engine/claim/stance.js';
import { aggregate, recencyOf, UNDATED_RECENCY } from '../../../src/engine/claim/aggregate.js';
import { conclude, dedupeHits, scoreHits } from '../../../src/engine/claim/assess.js';
import { CONFLICT_FLOOR, decideVerdict, truthProbability, WRONG_COST } from '../../../src/engine/claim/verdict.js';
import { VERDICT_PARAMS } from '../../../src/engine/claim/claim-weights.js';
import { normalizeRating } from '../../../src/sources/fact-check.js';
import { registrableDomainOf, type ClaimHit } from '../../../src/sources/claim-types.js';
import { entities, hasStemmer, loadLanguage, quantities, sentences, terms, years } from '../../../src/engine/claim/text.js';

const now = new Date('2025-01-01T00:00:00Z');
const hit = (text: string, url = 'https://example.org/a', extra: Partial<ClaimHit> = {}): ClaimHit => ({
  source: 'local',
  url,
  title: '',
  text,
  published_at: null,
  publisher: null,
  ...extra,
});

describe('text: tokens, stems, sentences, quantities', () => {
  it('stems with the language\'s stemmer and drops its stop words', async () => {
    expect(terms('The tests identified running dogs')).toEqual(['test', 'identifi', 'run', 'dog']);
    const de = await loadLanguage('de');
    expect(de.stemmed).toBe(true);
    expect(terms('Die Häuser wurden gebaut', de)).toEqual(terms('Das Haus wurde gebaut', de).map(() => expect.any(String)));
    expect(terms('Häuser', de)[0]).toBe(terms('Haus', de)[0]);
    const ru = await loadLanguage('ru');
    expect(terms('стоянки', ru)).toEqual(terms('стоянка', ru));
  });
  it('falls back honestly for a language without a stemmer', async () => {
    expect(hasStemmer('zu')).toBe(false);
    const zu = await loadLanguage('zu');
    expect(zu.stemmed).toBe(false);
    expect(terms('abantu abaningi', zu)).toEqual(['abantu', 'abaningi']);
  });
  it('segments sentences with Intl.Segmenter, and words of scripts without spaces', () => {
    expect(sentences('Dr. Smith arrived at 3 p.m. on Monday. He left.\nNew line here')).toEqual(['Dr. Smith arrived at 3 p.m. on Monday. ', 'He left.', 'New line here'].map((s) => s.trim()));
    expect(terms('東京は日本の首都です').length).toBeGreaterThan(1);
  });
  it('reads what a number measures', () => {
    expect(quantities('in 30 min')).toEqual([{ value: 30, unit: 'minute' }]);
    expect(quantities('in thirty minutes')).toEqual([{ value: 30, unit: 'minute' }]);
    expect(quantities('$5 billion and 20% of 1,200 people')).toEqual([
      { value: 5e9, unit: 'usd' },
      { value: 20, unit: 'percent' },
      { value: 1200, unit: 'peopl' },
    ]);
    expect(years('built from 1887 to 1889')).toEqual([1887, 1889]);
    expect(entities('In 2020, the WHO declared a pandemic.')).toContain('WHO');
  });
  it('builds a keyword query and keeps every content word for the local index', () => {
    const q = buildQuery('Joe Biden said the United States spent $75 million on hospice fraud in 2013', 'en');
    expect(q.terms.slice(0, 2)).toEqual(['Joe Biden', 'United States']);
    expect(q.keywords).not.toMatch(/\bthe\b|\bon\b/);
    expect(q.content!.words).toEqual(['joe', 'biden', 'united', 'states', 'spent', '75', 'million', 'hospice', 'fraud', '2013']);
    expect(q.content!.stems).toContain('spent');
  });
});

describe('passage ranking (BM25 over every sentence)', () => {
  it('ranks sentences from all items, keeps two good sentences of one article, drops duplicates by text', () => {
    const article =
      'Paris is the capital of France. The Eiffel Tower is 330 metres tall. The Eiffel Tower was built in 1889 for the fair. ' +
      'Bananas are yellow. '.repeat(30);
    const ps = rankPassages('The Eiffel Tower was built in 1889', [article, 'The Eiffel Tower was built in 1889 for the fair.', 'Bananas are rich in potassium.']);
    expect(ps[0]!.text).toBe('The Eiffel Tower was built in 1889 for the fair.');
    // The same sentence from the mirror is not a second passage.
    expect(ps.filter((p) => p.text === 'The Eiffel Tower was built in 1889 for the fair.')).toHaveLength(1);
    expect(ps.some((p) => p.text === 'The Eiffel Tower is 330 metres tall.' && p.item === 0)).toBe(true);
    expect(ps.some((p) => p.text.includes('potassium'))).toBe(false);
    expect(ps[0]!.relevance).toBe(1);
  });
  it('ranks the passages of items retrieved only to fill a short list after the others', () => {
    const claim = 'The Eiffel Tower was built in 1889 in Paris';
    const items = ['The tower in Paris was built long ago by a company.', 'Paris has many old buildings and a tower.', 'The tower was painted.'];
    const fills = ['Eiffel 1889.', 'Eiffel designed bridges.', 'The tower was painted.'];
    // Ranked together, a short sentence with the two rarest words leads.
    expect(rankPassages(claim, [...items, ...fills])[0]!.text).toBe('Eiffel 1889.');
    const after = new Set([3, 4, 5]);
    const ps = rankPassages(claim, [...items, ...fills], { after });
    // The others' passages first, in the order (and with the scores) they have without the fills;
    // a sentence both have stays the other item's.
    const alone = rankPassages(claim, items);
    expect(ps.slice(0, 3)).toEqual(alone);
    expect(ps.slice(3).map((p) => [p.item, p.text])).toEqual([
      [3, 'Eiffel 1889.'],
      [4, 'Eiffel designed bridges.'],
    ]);
    // They only fill what the others leave of the limit.
    expect(rankPassages(claim, [...items, ...fills], { after, limit: 3 })).toEqual(alone);
    expect(rankPassages(claim, [...fills, ...items], { after: new Set([0, 1, 2]), limit: 4 }).map((p) => p.item)).toEqual([...alone.map((p) => p.item + 3), 0]);
  });
  it('de-duplicates hits by text, not by URL', () => {
    const hits = [hit('First sentence about the tower.', 'https://a.org/x'), hit('Second sentence about the tower.', 'https://a.org/x'), hit('First sentence about the tower.', 'https://mirror.org/y')];
    expect(dedupeHits(hits).map((h) => h.text)).toEqual(['First sentence about the tower.', 'Second sentence about the tower.']);
  });
});

describe('local stance: reads what is said', () => {
  it('a negation of something else does not refute ("X is not in London; it stands in Paris")', () => {
    const s = localStance('The Eiffel Tower is in Paris', 'The Eiffel Tower is not in London; it stands in Paris.', 1);
    expect(s.label).toBe('supports');
    expect(s.features!.negated_claim_term).toBe(0);
  });
  it('a negation scoping a claim term the passage states does', () => {
    const { x, reasons } = stanceFeatures('The Eiffel Tower is in London', 'The Eiffel Tower is not in London; it stands in Paris.', 0.8);
    expect(x.negated_claim_term).toBeGreaterThan(0);
    expect(reasons).toContain('negates 1 claim term');
  });
  it('a negated claim agrees with a passage that denies the same thing', () => {
    const { x } = stanceFeatures('The tower is not in London', 'It is not in London.', 1);
    expect(x.negated_claim_term).toBe(0);
    expect(x.negation_agrees).toBe(1);
    const { x: y } = stanceFeatures('The tower is not in Paris', 'The tower stands in Paris.', 1);
    expect(y.negation_contradicted).toBeGreaterThan(0);
  });
  it('numbers conflict only when they measure the same thing', () => {
    const claim = 'The test gives a result in 30 minutes';
    expect(stanceFeatures(claim, 'The test gives a result in thirty minutes.', 1).x.quantity_match).toBe(1);
    expect(stanceFeatures(claim, 'The test gives a result in 90 minutes.', 1).x.quantity_mismatch).toBe(1);
    const other = stanceFeatures(claim, 'The test was given to 400 patients in 3 hospitals.', 0.6).x;
    expect(other.quantity_mismatch).toBe(0);
  });
  it('dates conflict only in a clause about the claim', () => {
    expect(stanceFeatures('The tower was built in 1889', 'The tower was built in 1925.', 0.8).x.year_mismatch).toBe(1);
    expect(stanceFeatures('The tower was built in 1889', 'The tower was built by Eiffel; a museum opened in 1925.', 0.8).x.year_mismatch).toBe(0);
  });
  it('refuting cue words count only in fact-check discourse', () => {
    const claim = 'The rapid test detects the virus';
    expect(stanceFeatures(claim, 'The rapid test detects the virus with a false positive rate of 2%.', 1).x.refute_cues).toBe(0);
    expect(stanceFeatures(claim, 'The viral post claiming the rapid test detects the virus is false.', 1).x.refute_cues).toBeGreaterThan(0);
    expect(stanceFeatures(claim, 'The rapid test detects the virus: false.', 1, { factCheck: true }).x.refute_cues).toBeGreaterThan(0);
  });
  it('is neutral when nothing was found', () => {
    expect(localStance('The unemployment rate rose to 8 percent in 2020', 'No answer could be found.', 0).label).toBe('neutral');
  });
  it('reads a rating the other way round when only one wording is negated', () => {
    const r = ratingStance('Vaccines do not cause autism', 'Vaccines cause autism', normalizeRating('False'));
    expect(r.label).toBe('supports');
    expect(ratingStance('Vaccines cause autism', 'Vaccines cause autism', normalizeRating('False')).label).toBe('refutes');
  });
});

describe('verdict: symmetric, calibrated, abstaining', () => {
  const p = { minEvidence: 0.3, conflictFloor: 0.6, calibration: 3 };
  it('follows the documented order and treats both sides alike', () => {
    expect(decideVerdict(0.1, 0.2, p)).toBe('unverifiable');
    expect(decideVerdict(0.7, 0.65, p)).toBe('conflicting');
    expect(decideVerdict(0.8, 0.1, p)).toBe('true');
    expect(decideVerdict(0.1, 0.8, p)).toBe('false');
    // Leaning a little is not enough to answer.
    expect(decideVerdict(0.45, 0.35, p)).toBe('unverifiable');
    for (const [s, r] of [[0.9, 0.1], [0.5, 0.2], [0.35, 0.05], [0.6, 0.55]] as const) {
      const a = decideVerdict(s, r, p);
      const b = decideVerdict(r, s, p);
      expect({ true: 'false', false: 'true' }[a as 'true' | 'false'] ?? a).toBe(b);
      expect(truthProbability(s, r, p) + truthProbability(r, s, p)).toBeCloseTo(1, 10);
    }
    expect(truthProbability(0, 0, VERDICT_PARAMS)).toBe(0.5);
  });
  it('conflicting needs both sides strong: two opposite ratings conflict, weak two-sided readings abstain', () => {
    // The shipped floor is the stated policy, not a number fitted on sets without two-sided evidence.
    expect(VERDICT_PARAMS.conflictFloor).toBe(CONFLICT_FLOOR);
    // Two authoritative fact-check ratings, opposite: w × P ≈ 0.85 on each side.
    expect(decideVerdict(0.85, 0.8, VERDICT_PARAMS)).toBe('conflicting');
    // The local model's typical two-sided reading (best passage ≈ 0.4 each side) does not conflict.
    expect(decideVerdict(0.45, 0.4, VERDICT_PARAMS)).toBe('unverifiable');
    expect(decideVerdict(0.4, 0.45, VERDICT_PARAMS)).toBe('unverifiable');
  });
  it('two opposite fact-check ratings of the claim are conflicting; one rating alone decides', () => {
    const claim = 'The city banned cars from its centre in 2020';
    const rated = (url: string, rating: string): ClaimHit =>
      hit(claim, url, { source: 'google_fact_check', reviewed_claim: claim, rating: normalizeRating(rating), published_at: '2024-01-01T00:00:00Z' });
    const both = conclude(scoreHits(claim, [rated('https://www.politifact.com/a', 'True'), rated('https://www.snopes.com/b', 'False')]), { now, retrievedAt: now.toISOString(), maxEvidence: 5 });
    expect(Math.min(both.support, both.refute)).toBeGreaterThanOrEqual(CONFLICT_FLOOR);
    expect(both.verdict).toBe('conflicting');
    const one = conclude(scoreHits(claim, [rated('https://www.snopes.com/b', 'False')]), { now, retrievedAt: now.toISOString(), maxEvidence: 5 });
    expect(one.verdict).toBe('false');
  });
  it('a fitted confidence replaces the stated one, on both sides alike', () => {
    const strict = { ...p, confidence: 0.75 };
    // σ(3 × 0.3) ≈ 0.71: enough at 0.6, not at 0.75.
    expect(decideVerdict(0.6, 0.3, p)).toBe('true');
    expect(decideVerdict(0.6, 0.3, strict)).toBe('unverifiable');
    expect(decideVerdict(0.3, 0.6, strict)).toBe('unverifiable');
    expect(decideVerdict(0.9, 0.1, strict)).toBe('true');
    expect(decideVerdict(0.1, 0.9, strict)).toBe('false');
    // The wrong-verdict cost is the same break-even as the confidence: 0.6 right ⇔ utility 0.
    expect(0.6 - 0.4 * WRONG_COST).toBeCloseTo(0, 10);
  });
  it('no relevant evidence → unverifiable, trust 0.5', () => {
    const scored = scoreHits('The Eiffel Tower is in Paris', [hit('Bananas are rich in potassium.')]);
    const c = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: 5 });
    expect(c.verdict).toBe('unverifiable');
    expect(c.trust_score).toBe(0.5);
    expect(c.warnings).toEqual(['no dated evidence: recency is 0.5 (unknown)']);
  });
  it('the negated-but-agreeing passage gives true', () => {
    const scored = scoreHits('The Eiffel Tower is in Paris', [
      hit('The Eiffel Tower is not in London; it stands in Paris.', 'https://en.wikipedia.org/wiki/Eiffel_Tower', { source: 'wikipedia', published_at: '2024-06-01T00:00:00Z' }),
      hit('The Eiffel Tower, in Paris, opened in 1889.', 'https://www.britannica.com/topic/Eiffel-Tower', { source: 'web', published_at: '2023-06-01T00:00:00Z' }),
    ]);
    const c = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: 5 });
    expect(c.verdict).toBe('true');
    expect(c.trust_score).toBeGreaterThan(0.6);
    expect(c.producers.llm_analysis).toBe('local stance model');
    expect(c.producers.recency).toBe('publication dates (2 of 2 dated)');
  });
});

describe('dimensions', () => {
  const item = (supports: number, refutes: number, publisher: string, published_at: string | null = '2024-01-01') => ({
    stance: { supports, refutes, neutral: 1 - supports - refutes },
    relevance: 1,
    authority: 0.9,
    publisher,
    published_at,
  });
  it('cross_reference counts registrable domains: mirrors on one site are one publisher', () => {
    expect(registrableDomainOf('https://news.bbc.co.uk/a')).toBe('bbc.co.uk');
    expect(registrableDomainOf('https://www.bbc.co.uk/b')).toBe('bbc.co.uk');
    expect(registrableDomainOf('https://alice.github.io/x')).toBe('alice.github.io');
    const mirrors = aggregate([item(0.9, 0.05, 'bbc.co.uk'), item(0.9, 0.05, 'bbc.co.uk')], { now });
    const two = aggregate([item(0.9, 0.05, 'bbc.co.uk'), item(0.9, 0.05, 'reuters.com')], { now });
    expect(two.dimensions.cross_reference).toBeGreaterThan(mirrors.dimensions.cross_reference);
  });
  it('recency ignores undated items and says when none is dated', () => {
    expect(recencyOf('2023-01-01', now)).toBeCloseTo(0.5, 2);
    expect(recencyOf(null, now)).toBeNull();
    const mixed = aggregate([item(0.9, 0, 'a.org', '2025-01-01'), item(0.9, 0, 'b.org', null)], { now });
    expect(mixed.dimensions.recency).toBe(1);
    expect(mixed.dated).toBe(1);
    const none = aggregate([item(0.9, 0, 'a.org', null)], { now });
    expect(none.dimensions.recency).toBe(UNDATED_RECENCY);
    expect(none.dated).toBe(0);
  });
  it('an LLM truth probability is llm_analysis and moves the trust score', () => {
    const scored = scoreHits('The Eiffel Tower is in Paris', [hit('The Eiffel Tower stands in Paris.', 'https://a.org/x', { published_at: '2024-01-01' })]);
    const base = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: 5 });
    const withLlm = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: 5, llm: { truth: 0.1, model: 'm' } });
    expect(withLlm.trust_score).toBeLessThan(base.trust_score);
    expect(withLlm.dimensions.llm_analysis).toBe(0.1);
    expect(withLlm.producers.llm_analysis).toBe('LLM (m)');
  });
});
