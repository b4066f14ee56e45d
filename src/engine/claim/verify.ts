/**
 * Live claim verification (SPEC 2.2, 4.1): build queries, ask the selected sources in parallel,
 * pick passages, judge stance (fact-check rating, local model, optional LLM judge), aggregate into
 * a verdict with trust score, dimensions and an evidence chain cut at `max_evidence`.
 *
 * Sources that fail or are not configured become `warnings`; when no source answered at all the
 * request fails with UNAVAILABLE naming each source and why.
 */
import { VerityError } from '../../api/errors.js';
import type { ClaimRequest } from '../../api/requests.js';
import type { ClaimResult } from '../../api/results.js';
import { UpstreamError } from '../../sources/http.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';
import { applyJudge, conclude, dedupeHits, scoreHits } from './assess.js';
import { itemWeight } from './aggregate.js';
import { judgeWithLlm, llmConfigured } from './llm-judge.js';
import { buildQuery } from './query.js';
import { retrieve, selectSources } from './retrieve.js';

/** Passages sent to the LLM judge: the strongest by local weight. */
const LLM_PASSAGES = 8;

export async function verifyClaim(req: ClaimRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<ClaimResult>> {
  const query = buildQuery(req.claim, req.language);
  const sources = await selectSources(req.sources, ports);
  const outcomes = await retrieve(sources, query, ports, opts.signal);

  const answered = outcomes.filter((o) => o.status === 'answered');
  const warnings = outcomes
    .filter((o) => o.status !== 'answered')
    .map((o) => `${o.source} ${o.status === 'skipped' ? 'skipped' : 'failed'}: ${o.reason}`);
  if (answered.length === 0) {
    throw new VerityError('UNAVAILABLE', `no claim source answered — ${warnings.join('; ')}`);
  }

  const now = ports.clock.now();
  const scored = scoreHits(query.claim, dedupeHits(answered.flatMap((o) => o.hits)));

  let llmTruth: number | undefined;
  if (llmConfigured(ports.config) && scored.length > 0) {
    const order = scored
      .map((s, i) => ({ i, w: itemWeight(s) * (s.relevance > 0 ? 1 : 0.1) }))
      .sort((a, b) => b.w - a.w)
      .slice(0, LLM_PASSAGES)
      .map((x) => x.i);
    try {
      const out = await judgeWithLlm(
        { claim: query.claim, passages: order.map((i) => ({ source: scored[i]!.hit.source, text: scored[i]!.passage || scored[i]!.hit.title })) },
        ports.config,
        ports.http,
        opts.signal,
      );
      applyJudge(scored, order, out);
      llmTruth = out.truth_probability;
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const why = err instanceof UpstreamError ? err.message : 'unexpected error';
      warnings.push(`llm judge failed: ${why}; the local stance model was used`);
    }
  }

  const c = conclude(scored, { now, retrievedAt: now.toISOString(), maxEvidence: req.max_evidence, llmTruth, claim: query.claim });
  const result: Computed<ClaimResult> = {
    trust_score: c.trust_score,
    dimensions: c.dimensions,
    verdict: c.verdict,
    evidence: c.evidence,
  };
  if (warnings.length) result.warnings = warnings;
  return result;
}
