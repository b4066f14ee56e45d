/**
 * The stance producers behind `llm_analysis` and the claim's honest answers to thin input: a
 * pluggable NLI classifier (EnginePorts.nli: an in-process port, so a deterministic classifier
 * object stands in for the ONNX model here), the local model's fallback, and bad input.
 * Evidence comes from a real local corpus in a real (in-memory) SQLite store.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaimResult } from '../../../src/api/results.js';
import { createEngine } from '../../../src/engine/index.js';
import type { NliClassifier, NliPair, NliScores } from '../../../src/engine/claim/nli-port.js';
import { importCorpus } from '../../../src/sources/local-corpus.js';
import { ports, testHttp } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-stance-'));
const ROWS = [
  { text: 'The Eiffel Tower is not in London; it stands on the Champ de Mars in Paris.', url: 'https://en.wikipedia.org/wiki/Eiffel_Tower', source: 'Wikipedia', published_at: '2024-06-01T00:00:00Z' },
  { text: 'Gustave Eiffel\'s company built the Eiffel Tower in Paris for the 1889 World Fair.', url: 'https://www.britannica.com/topic/Eiffel-Tower', source: 'Britannica' },
  { text: 'Bananas are a good source of potassium and vitamin B6.', url: 'https://nutrition.example.org/bananas', source: 'Nutrition' },
];

async function corpusPorts(extra: { nli?: NliClassifier } = {}) {
  const { http } = testHttp();
  const p = { ...ports({}, http, true), ...extra };
  const file = join(dir, `${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, ROWS.map((r) => JSON.stringify(r)).join('\n'));
  await importCorpus(await p.store!(), file);
  return p;
}

/** A deterministic classifier: entails when the premise names the claim's city, contradicts when it names another. */
function keywordNli(calls: NliPair[][]): NliClassifier {
  return {
    name: 'NLI model (test classifier)',
    async classify(pairs: NliPair[]): Promise<NliScores[]> {
      calls.push(pairs);
      return pairs.map(({ premise, hypothesis }) => {
        const city = /Paris|London/.exec(hypothesis)?.[0] ?? '';
        if (city && premise.includes(`in ${city}`) && !premise.includes(`not in ${city}`)) return { entailment: 0.9, neutral: 0.08, contradiction: 0.02 };
        if (city && premise.includes(`not in ${city}`)) return { entailment: 0.02, neutral: 0.08, contradiction: 0.9 };
        return { entailment: 0.05, neutral: 0.9, contradiction: 0.05 };
      });
    },
  };
}

describe('acceptance: negation that scopes something else, and no evidence', () => {
  it('"X is not in London; it stands in Paris" supports "X is in Paris" (local stance model)', async () => {
    const r = ClaimResult.parse(await createEngine(await corpusPorts()).verifyClaim({ claim: 'The Eiffel Tower is in Paris', sources: ['local'] }));
    expect(r.verdict).toBe('true');
    expect(r.trust_score).toBeGreaterThan(0.6);
    expect(r.evidence.every((e) => e.supports_claim)).toBe(true);
    expect(r.dimension_producers?.llm_analysis).toBe('local stance model');
    expect(r.warnings).toContain("no LLM configured: llm_analysis is the local stance model's reading");
  });
  it('a claim with no relevant evidence is unverifiable', async () => {
    const r = ClaimResult.parse(await createEngine(await corpusPorts()).verifyClaim({ claim: 'The Moon landing was filmed in a studio in Nevada', sources: ['local'] }));
    expect(r).toMatchObject({ verdict: 'unverifiable', trust_score: 0.5, evidence: [] });
    expect(r.warnings).toContain('no dated evidence: recency is 0.5 (unknown)');
    expect(r.dimension_producers?.recency).toBe('no dated evidence (0.5)');
  });
});

describe('NLI classifier as the stance producer', () => {
  it('judges every passage in one batch (premise = passage, hypothesis = claim) and is named as the producer', async () => {
    const calls: NliPair[][] = [];
    const r = ClaimResult.parse(await createEngine(await corpusPorts({ nli: keywordNli(calls) })).verifyClaim({ claim: 'The Eiffel Tower is in London', sources: ['local'] }));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.every((p) => p.hypothesis === 'The Eiffel Tower is in London')).toBe(true);
    expect(calls[0]!.map((p) => p.premise)).toContain(ROWS[0]!.text);
    expect(r.verdict).toBe('false');
    expect(r.trust_score).toBeLessThan(0.4);
    expect(r.dimension_producers?.llm_analysis).toBe('NLI model (test classifier)');
    expect(r.dimensions.llm_analysis).toBeLessThan(0.2);
    expect(r.warnings).toContain("no LLM configured: llm_analysis is NLI model (test classifier)'s reading");
  });
  it('a failing classifier is a warning, and the local model stands in', async () => {
    const broken: NliClassifier = { name: 'NLI model (broken)', classify: async () => Promise.reject(new Error('model file truncated')) };
    const r = await createEngine(await corpusPorts({ nli: broken })).verifyClaim({ claim: 'The Eiffel Tower is in Paris', sources: ['local'] });
    expect(r.verdict).toBe('true');
    expect(r.warnings).toContain('NLI model failed (model file truncated); the local stance model was used');
    expect(r.dimension_producers?.llm_analysis).toBe('local stance model');
  });
  it('a classifier answering the wrong number of pairs is not trusted', async () => {
    const short: NliClassifier = { name: 'short', classify: async () => [{ entailment: 1, neutral: 0, contradiction: 0 }] };
    const r = await createEngine(await corpusPorts({ nli: short })).verifyClaim({ claim: 'The Eiffel Tower is in Paris', sources: ['local'] });
    expect(r.warnings?.some((w) => /^NLI model failed \(returned 1 results for \d+ passages\)/.test(w))).toBe(true);
  });
});

describe('bad input: unverifiable with a warning, never a confident verdict from nothing', () => {
  it('a claim of only stop words asks no source', async () => {
    const p = await corpusPorts();
    const r = ClaimResult.parse(await createEngine(p).verifyClaim({ claim: 'it is what it is and so on', sources: ['local'] }));
    expect(r).toMatchObject({ verdict: 'unverifiable', trust_score: 0.5, evidence: [] });
    expect(r.warnings).toContain('the claim has no content words to check (only stop words, numbers or punctuation)');
  });
  it('a non-Latin claim under "en" is not judged by the English cue model', async () => {
    const r = ClaimResult.parse(await createEngine(await corpusPorts()).verifyClaim({ claim: 'Эйфелева башня находится в Париже', sources: ['local'] }));
    expect(r.verdict).toBe('unverifiable');
    expect(r.warnings?.some((w) => w.startsWith('the local stance model reads English only'))).toBe(true);
    expect(r.warnings).toContain('no LLM configured: llm_analysis is 0.5 (nothing could judge this language)');
    expect(r.dimension_producers?.llm_analysis).toBe('none (local stance model reads English only)');
  });
  it('a language without a stemmer says so', async () => {
    const r = ClaimResult.parse(await createEngine(await corpusPorts()).verifyClaim({ claim: 'Umbhoshongo i-Eiffel useParis', language: 'zu', sources: ['local'] }));
    expect(r.verdict).toBe('unverifiable');
    expect(r.warnings).toContain('no stemmer for language "zu": words are matched as written');
  });
  it('a Japanese claim (no spaces) is tokenized and handled without a crash', async () => {
    const r = ClaimResult.parse(await createEngine(await corpusPorts()).verifyClaim({ claim: 'エッフェル塔はパリにあります', language: 'ja', sources: ['local'] }));
    expect(r.verdict).toBe('unverifiable');
  });
});
