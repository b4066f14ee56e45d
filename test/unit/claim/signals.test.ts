/**
 * Issue 34's explicit stance signals, each on its own and through the local stance model and the
 * verdict: entity substitution, quantities that measure different things, reported speech and
 * quotations, negation; and bad input (empty, stop words only, non-Latin, over-long) bounded.
 */
import { describe, expect, it } from 'vitest';
import { conclude, NEUTRAL_EVIDENCE, scoreHits } from '../../../src/engine/claim/assess.js';
import { entitySwap, mentions, ownText, quantityConflict, reportedShare } from '../../../src/engine/claim/signals.js';
import { ENTITY_SWAP_REFUTES, localStance, STANCE_MAX_CHARS, stanceFeatures } from '../../../src/engine/claim/stance.js';
import { decideVerdict, PRECISION_TARGET } from '../../../src/engine/claim/verdict.js';
import type { ClaimHit } from '../../../src/sources/claim-types.js';
import type { ClaimResult } from '../../../src/api/results.js';
import { completedData } from '../../../src/domain/events.js';

const now = new Date('2025-01-01T00:00:00Z');
const hit = (text: string, url = 'https://en.wikipedia.org/wiki/A'): ClaimHit => ({ source: 'local', url, title: '', text, published_at: null, publisher: null });
const EIFFEL = 'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.';
const judge = (claim: string, texts: string[]) => conclude(scoreHits(claim, texts.map((t) => hit(t))), { now, retrievedAt: now.toISOString(), maxEvidence: 10 });

describe('entity substitution', () => {
  it('the claim frame with another place in the same slot is a swap; the same place is not', () => {
    expect(entitySwap('The Eiffel Tower is in Berlin', EIFFEL)).toEqual({ claimed: 'Berlin', stated: 'Paris', kind: 'name' });
    expect(entitySwap('The Eiffel Tower is in Paris', EIFFEL)).toBeNull();
  });
  it('works for people and years, not only places', () => {
    expect(entitySwap('Iron Maiden was formed by Doug Sampson', 'Iron Maiden are an English heavy metal band formed in Leyton in 1975 by bassist Steve Harris.')).toMatchObject({
      claimed: 'Doug Sampson',
      stated: 'Steve Harris',
    });
    expect(entitySwap('The tower was completed in 1887', 'The tower was completed in 1889 for the World Fair.')).toMatchObject({ kind: 'year', stated: '1889' });
  });
  it('needs the same subject: a passage about another subject is no swap', () => {
    expect(entitySwap('Bush is a member of the Republican Party', 'Like his father, Walpole was a member of the Whig Party.')).toBeNull();
    // The claim's subject as a complement ("a replica of the Eiffel Tower") is another subject.
    expect(entitySwap('The Eiffel Tower is in Paris', 'A half-scale replica of the Eiffel Tower stands in Las Vegas.')).toBeNull();
    expect(judge('The Eiffel Tower is in Paris', [EIFFEL, 'A half-scale replica of the Eiffel Tower stands in Las Vegas.']).verdict).toBe('true');
  });
  it('a filler that abbreviates, shares a word with or misspells the claim’s is the same filler', () => {
    expect(entitySwap('Adams was the son of a president of the US', 'Adams was the son of John Adams, a president of the United States.')).toBeNull();
    expect(entitySwap('The gate was built on the orders of Fredrick William II', 'The gate was built on the orders of Frederick William II.')).toBeNull();
  });
  it('months are dates, not names: "in July" does not fill the slot of "in Florida"', () => {
    expect(mentions('They started in July').map((m) => m.kind)).toEqual(['date']);
    expect(entitySwap('The band started in Florida', 'The band started recording in July.')).toBeNull();
  });
  it('the local model reads a swap as refuting, at least with the rule’s strength, and weighs it by its frame', () => {
    const s = localStance('The Eiffel Tower is in Berlin', EIFFEL, 0.5);
    expect(s.label).toBe('refutes');
    expect(s.refutes).toBeGreaterThanOrEqual(ENTITY_SWAP_REFUTES);
    expect(s.reasons).toContain('states Paris where the claim has Berlin');
    expect(s.relevance).toBe(1);
    expect(localStance('The Eiffel Tower is in Paris', EIFFEL, 1).label).toBe('supports');
  });
  it('the verdict: Berlin is false, Paris is true, against the same sentence', () => {
    expect(judge('The Eiffel Tower is in Berlin', [EIFFEL]).verdict).toBe('false');
    expect(judge('The Eiffel Tower is in Paris', [EIFFEL]).verdict).toBe('true');
  });
});

describe('quantities conflict only when they measure the same thing', () => {
  it('same unit, different subject: no conflict ("33 years" old vs a 140-year-old church)', () => {
    expect(quantityConflict('He was married for 33 years', 'The church, 140 years old, hosted the wedding where he married.').conflict).toBeNull();
    expect(quantityConflict('The festival has run for 35 years', 'The town, founded 30 years ago, lies 35 mi from the coast.').conflict).toBeNull();
  });
  it('same unit and same subject: a conflict', () => {
    expect(quantityConflict('The bridge is 300 metres long', 'The bridge spans 250 metres across the river.').conflict).toBe('metre');
  });
  it('a true claim whose passage holds an unrelated number is not false', () => {
    const r = judge('Smith was married to Jones for 33 years', ['Smith married Jones in the 140 years old chapel and they were married for 33 years.', 'The chapel is 140 years old.']);
    expect(r.verdict).not.toBe('false');
    const only = judge('Smith has lived in the town for 35 years', ['Smith has lived in the town, which lies 35 mi from the sea and was founded 30 years ago, since childhood.']);
    expect(only.verdict).not.toBe('false');
  });
});

describe('reported speech and quotations', () => {
  it('what the passage attributes to someone else is blanked from its own text', () => {
    const own = ownText('Fact: Trump claimed climate change is a hoax.', 'Climate change is real');
    expect(own.text).not.toMatch(/hoax/);
    expect(own.text).toMatch(/Trump claimed/);
    expect(ownText('She said "the vaccine is not safe" on air.', 'The vaccine is safe').text).not.toMatch(/not safe/);
  });
  it('the passage’s own verdict on a report stays its own', () => {
    expect(ownText('The myth that vaccines are not safe is false.', 'Vaccines are safe').text).toMatch(/is false/);
    expect(ownText('The viral post claiming the test detects the virus is false.', 'The test detects the virus').text).toMatch(/is false/);
  });
  it('a claim about what someone said keeps the report (it is what the claim is about)', () => {
    expect(ownText('Biden said he would not ban fracking.', 'Biden said he would ban fracking').spans).toEqual([]);
  });
  it('does not lend its cue words: "Trump claimed climate change is a hoax" does not refute "climate change is real"', () => {
    const passage = 'Fact: Trump claimed climate change is a hoax.';
    const { x } = stanceFeatures('Climate change is real', passage, 0.8);
    expect(x.refute_cues).toBe(0);
    expect(x.reported).toBe(1);
    expect(reportedShare('Climate change is real', passage, ownText(passage, 'Climate change is real'))).toBe(1);
    expect(localStance('Climate change is real', passage, 0.8).label).not.toBe('refutes');
  });
  it('a negation inside the report is not the passage’s negation', () => {
    const { x } = stanceFeatures('Vaccines are safe', 'Some posts alleged that vaccines are not safe.', 0.8);
    expect(x.negated_claim_term).toBe(0);
    const own = stanceFeatures('Vaccines are safe', 'Vaccines are not safe.', 0.8).x;
    expect(own.negated_claim_term).toBeGreaterThan(0);
  });
});

describe('negation scoped to the shared predicate', () => {
  it('negating another predicate does not refute; negating the claim’s does', () => {
    expect(stanceFeatures('The Eiffel Tower is in Paris', 'The Eiffel Tower is not in London; it stands in Paris.', 1).x.negated_claim_term).toBe(0);
    expect(stanceFeatures('The Eiffel Tower is in London', 'The Eiffel Tower is not in London.', 1).x.negated_claim_term).toBeGreaterThan(0);
  });
});

describe('precision-first verdict', () => {
  it('each side has its own threshold, and a side above 1 is never given', () => {
    const p = { minEvidence: 0.1, conflictFloor: 0.6, calibration: 3, confidenceTrue: 0.9, confidenceFalse: 0.6 };
    expect(decideVerdict(0.1, 0.5, p)).toBe('false');
    expect(decideVerdict(0.5, 0.1, p)).toBe('unverifiable');
    expect(decideVerdict(0.9, 0.05, p)).toBe('true');
    expect(decideVerdict(0.05, 0.9, { ...p, confidenceFalse: 1.01 })).toBe('unverifiable');
    expect(PRECISION_TARGET).toBeGreaterThanOrEqual(0.7);
  });
  it('an unverifiable result still shows the closest passages read, with their stance', () => {
    const r = judge('The Eiffel Tower was painted green by Gustave Eiffel in 1920', [
      'The tower is repainted every seven years.',
      'The Eiffel Tower was designed by the company of Gustave Eiffel.',
      'Paint protects the iron from rust.',
      'Gustave Eiffel also built bridges.',
      'Eiffel had the tower painted several times.',
    ]);
    expect(r.verdict).toBe('unverifiable');
    expect(r.evidence.length).toBeGreaterThan(0);
    const neutral = r.evidence.filter((e) => e.stance === 'neutral');
    expect(neutral.length).toBeLessThanOrEqual(NEUTRAL_EVIDENCE);
    for (const e of neutral) expect(e.supports_claim).toBe(false);
    for (const e of r.evidence) expect(['supports', 'refutes', 'neutral']).toContain(e.stance);
  });
  it('the webhook event keeps SPEC 6.2 meaning: passages that took no side are left out of it', () => {
    const r = judge('The Eiffel Tower was painted green by Gustave Eiffel in 1920', ['The Eiffel Tower was designed by the company of Gustave Eiffel.', 'Gustave Eiffel also built bridges.']);
    expect(r.evidence.some((e) => e.stance === 'neutral')).toBe(true);
    const result = { id: 'vrf_clm_0123456789abcdefghij', trust_score: r.trust_score, dimensions: r.dimensions, dimension_producers: r.producers, verdict: r.verdict, evidence: r.evidence, latency_ms: 1, credits_used: 1 } as unknown as ClaimResult;
    const data = completedData(result);
    expect(data.evidence).toHaveLength(r.evidence.filter((e) => e.stance !== 'neutral').length);
  });
  it('a true or false result lists only passages that take a side', () => {
    const r = judge('The Eiffel Tower is in Paris', [EIFFEL, 'Bananas are yellow.']);
    expect(r.evidence.every((e) => e.stance !== 'neutral')).toBe(true);
  });
});

describe('bad input reaches the model bounded', () => {
  it('empty and stop-word-only claims and passages give a neutral stance, not a crash', () => {
    for (const [c, p] of [
      ['', ''],
      ['the of and', 'it is what it is'],
      ['The Eiffel Tower is in Paris', ''],
      ['', EIFFEL],
    ])
      expect(localStance(c!, p!, 0).label).toBe('neutral');
    expect(judge('the of and', [EIFFEL]).verdict).toBe('unverifiable');
  });
  it('non-Latin text is read without a crash', () => {
    expect(() => localStance('埃菲尔铁塔在柏林', '埃菲尔铁塔位于巴黎。', 0.5)).not.toThrow();
    expect(() => localStance('Эйфелева башня в Берлине', 'Эйфелева башня находится в Париже.', 0.5)).not.toThrow();
    expect(() => judge('Эйфелева башня в Берлине', ['Эйфелева башня находится в Париже.'])).not.toThrow();
  });
  it('an over-long passage is cut at STANCE_MAX_CHARS and the result says so', () => {
    const long = `The Eiffel Tower is in Paris ${'and it is made of iron '.repeat(20_000)}`;
    const f = stanceFeatures('The Eiffel Tower is in Paris', long, 1);
    expect(f.x.relevance).toBe(1);
    const r = judge('The Eiffel Tower is in Paris', [long.replace(/\s*$/, '')]);
    expect(r.warnings.some((w) => w.includes(`longer than ${STANCE_MAX_CHARS} characters`))).toBe(true);
    // The cut keeps the cost linear in the bound, not in the input: a 100,000-word quote and a
    // 100,000-digit number are read like any other text.
    expect(() => stanceFeatures('The bridge is 300 metres long', `"${'word '.repeat(100_000)}" ${'9'.repeat(100_000)} metres`, 1)).not.toThrow();
  });
});
