/**
 * Live claim verification (SPEC 2.2, 4.1): build queries, ask the selected sources in parallel,
 * rank passages, judge stance (fact-check rating; an NLI classifier when one is plugged in, else
 * the local stance model; optionally the LLM judge on top), then the symmetric verdict with a
 * calibrated trust score, dimensions with their producers, and an evidence chain cut at
 * `max_evidence`.
 *
 * Missing inputs become `warnings` (a source not configured or failing, no LLM, no dated evidence,
 * no stemmer for the language, a language or script the local stance model cannot read); when no
 * source answered at all the request fails with UNAVAILABLE naming each source and why. A claim
 * with nothing to look up (only stop words) is `unverifiable` without asking anyone.
 */
import { notMeasuredWarning } from '../../api/not-measured.js';
import { VerityError } from '../../api/errors.js';
import type { ClaimRequest } from '../../api/requests.js';
import type { ClaimResult } from '../../api/results.js';
import { registrableDomainOf } from '../../sources/claim-types.js';
import { UpstreamError } from '../../sources/http.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';
import { itemWeight } from './aggregate.js';
import { applyJudge, applyNli, conclude, dedupeHits, scoreHits, type ScoredHit } from './assess.js';
import { judgeWithLlm, llmConfigured, type JudgeOutput } from './llm-judge.js';
import { buildQuery } from './query.js';
import { NO_CORPUS, retrieve, selectSources } from './retrieve.js';
import { localStanceReads } from './stance.js';
import { loadLanguage, terms } from './text.js';

/** Passages sent to the LLM judge: the strongest by local weight. */
const LLM_PASSAGES = 8;
/** Passages given a stance (and sent to an NLI classifier, in one batch). */
const STANCE_PASSAGES = 20;

export async function verifyClaim(req: ClaimRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<ClaimResult>> {
  const lang = await loadLanguage(req.language);
  const warnings: string[] = [];
  if (!lang.stemmed) warnings.push(`no stemmer for language "${req.language}": words are matched as written`);
  const query = buildQuery(req.claim, req.language, lang);
  if (!terms(query.claim, lang).length) {
    return {
      trust_score: 0.5,
      dimensions: { source_authority: 0, cross_reference: 0, recency: 0.5, llm_analysis: 0.5 },
      dimension_producers: {
        source_authority: 'nothing retrieved',
        cross_reference: 'nothing retrieved',
        recency: 'nothing retrieved (0.5)',
        llm_analysis: 'not run (no content words)',
      },
      verdict: 'unverifiable',
      evidence: [],
      warnings: [
        ...warnings,
        'the claim has no content words to check (only stop words, numbers or punctuation)',
        notMeasuredWarning('recency', 'nothing retrieved', 0.5),
        notMeasuredWarning('llm_analysis', 'not run: no content words', 0.5),
      ],
    };
  }
  // The local model's cue words are English; a claim in another language or script gets no stance
  // from it (an NLI model or the LLM may still read it).
  const localReads = localStanceReads(req.language) && /\p{Script=Latin}/u.test(query.claim);

  const sources = await selectSources(req.sources, ports);
  const outcomes = await retrieve(sources, query, ports, opts.signal);
  const answered = outcomes.filter((o) => o.status === 'answered');
  warnings.push(
    ...outcomes.filter((o) => o.status !== 'answered').map((o) => `${o.source} ${o.status === 'skipped' ? 'skipped' : 'failed'}: ${o.reason}`),
  );
  if (answered.length === 0) {
    if (outcomes.length === 1 && outcomes[0]!.source === 'local' && outcomes[0]!.reason === NO_CORPUS)
      throw new VerityError('NOT_FOUND', `No corpus to search: ${NO_CORPUS} (on the service, run it where the service runs)`, {
        details: [{ field: 'sources', issue: 'local is the only source and the local corpus is empty' }],
      });
    throw new VerityError('UNAVAILABLE', `no claim source answered — ${warnings.join('; ')}`);
  }

  const now = ports.clock.now();
  const scored = scoreHits(query.claim, dedupeHits(answered.flatMap((o) => o.hits)), { lang, limit: STANCE_PASSAGES, localReads });
  let stanceProducer = localReads ? 'local stance model' : 'none (local stance model reads English only)';

  const unrated = scored.map((s, i) => (s.judgedBy === 'rating' ? -1 : i)).filter((i) => i >= 0);
  if (ports.nli && unrated.length) {
    try {
      const scores = await ports.nli.classify(
        unrated.map((i) => ({ premise: scored[i]!.passage, hypothesis: query.claim })),
        { signal: opts.signal },
      );
      if (scores.length !== unrated.length) throw new Error(`returned ${scores.length} results for ${unrated.length} passages`);
      applyNli(scored, unrated, scores, ports.nli.name);
      stanceProducer = ports.nli.name;
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      warnings.push(`NLI model failed (${err instanceof Error ? err.message : 'unexpected error'}); ${localReads ? 'the local stance model was used' : 'passages were left without a stance'}`);
    }
  } else if (!localReads) {
    warnings.push(`the local stance model reads English only: configure an LLM or an NLI model to judge claims in "${req.language}" or non-Latin scripts`);
  }

  let llm: { truth: number; verdict: JudgeOutput['verdict']; model: string } | undefined;
  if (!llmConfigured(ports.config)) {
    const reader =
      stanceProducer === 'local stance model'
        ? "the local stance model's reading"
        : stanceProducer === ports.nli?.name
          ? `${stanceProducer}'s reading`
          : '0.5 (nothing could judge this language)';
    warnings.push(`no LLM configured: llm_analysis is ${reader}`);
  } else if (scored.length > 0) {
    const order = strongest(scored, LLM_PASSAGES);
    try {
      const out = await judgeWithLlm(
        {
          claim: query.claim,
          passages: order.map((i) => {
            const s = scored[i]!;
            return { source: s.hit.source, publisher: s.hit.publisher || registrableDomainOf(s.hit.url) || s.hit.source, url: s.hit.url, text: s.passage || s.hit.title };
          }),
        },
        ports.config,
        ports.http,
        opts.signal,
      );
      applyJudge(scored, order, out);
      llm = { truth: out.truth_probability, verdict: out.verdict, model: out.model };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const why = err instanceof UpstreamError ? err.message : 'unexpected error';
      warnings.push(`llm judge failed: ${why}; the ${stanceProducer} was used`);
    }
  }

  const c = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: req.max_evidence, llm, stanceProducer });
  warnings.push(...c.warnings);
  // A recency with no dated passage behind it is SPEC's neutral value, not a measurement: say so.
  if (c.producers.recency?.startsWith('no dated evidence')) warnings.push(notMeasuredWarning('recency', 'no dated evidence', c.dimensions.recency));
  const result: Computed<ClaimResult> = {
    trust_score: c.trust_score,
    dimensions: c.dimensions,
    dimension_producers: c.producers,
    verdict: c.verdict,
    evidence: c.evidence,
  };
  if (warnings.length) result.warnings = warnings;
  return result;
}

/** Indexes of the `n` passages that count most, relevant ones first. */
function strongest(scored: readonly ScoredHit[], n: number): number[] {
  return scored
    .map((s, i) => ({ i, w: itemWeight(s) * (s.relevance > 0 ? 1 : 0.1) }))
    .sort((a, b) => b.w - a.w)
    .slice(0, n)
    .map((x) => x.i);
}
