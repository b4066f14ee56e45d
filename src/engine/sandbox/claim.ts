import { VERDICTS, type Verdict } from '../../api/enums.js';
import type { ClaimEvidence, ClaimResult } from '../../api/results.js';
import { CLAIM_SOURCES, type ClaimRequest } from '../../api/requests.js';
import type { Computed } from '../types.js';
import { maybeUnavailable, sandboxTime, sandboxUrl, Seed, triggersIn } from './seed.js';

const SOURCE_NAMES: Record<string, [string, number]> = {
  wikipedia: ['Wikipedia', 0.75],
  google_fact_check: ['Google Fact Check', 0.9],
  semantic_scholar: ['Semantic Scholar', 0.85],
  gdelt: ['GDELT', 0.55],
  web: ['Web', 0.45],
  local: ['Local corpus', 0.7],
};

/** Trust bands per verdict, so a sandbox score never contradicts its verdict. */
const TRUST: Record<Verdict, [number, number]> = {
  true: [0.72, 0.95],
  false: [0.05, 0.3],
  conflicting: [0.35, 0.6],
  unverifiable: [0.2, 0.45],
};

export function sandboxClaim(req: ClaimRequest): Computed<ClaimResult> {
  const triggers = triggersIn(req.claim, VERDICTS, { hashtags: true });
  maybeUnavailable(triggers);
  const verdict: Verdict = VERDICTS.find((v) => triggers.has(v)) ?? 'true';
  const seed = Seed.of({ kind: 'claim', claim: req.claim, language: req.language, sources: req.sources ?? null });
  const sources = req.sources ?? [...CLAIM_SOURCES];
  const count = verdict === 'unverifiable' ? Math.min(1, req.max_evidence) : req.max_evidence;
  const subject = req.claim.length > 80 ? `${req.claim.slice(0, 77)}…` : req.claim;
  const evidence: ClaimEvidence[] = [];
  for (let i = 0; i < count; i++) {
    const key = sources[i % sources.length]!;
    const [name, authority] = SOURCE_NAMES[key] ?? [key, 0.5];
    const supports = verdict === 'true' ? true : verdict === 'false' ? false : verdict === 'conflicting' ? i % 2 === 0 : seed.next() < 0.5;
    evidence.push({
      source: name,
      url: sandboxUrl(key, seed),
      snippet: `[sandbox] Simulated ${name} passage ${supports ? 'supporting' : 'disputing'}: “${subject}”`,
      supports_claim: supports,
      authority_score: verdict === 'unverifiable' ? Math.min(0.3, authority) : seed.between(authority - 0.05, authority),
      retrieved_at: sandboxTime(seed, 30),
    });
  }
  evidence.sort((a, b) => b.authority_score - a.authority_score);
  const [lo, hi] = TRUST[verdict];
  return {
    trust_score: seed.between(lo, hi),
    verdict,
    evidence,
    dimensions: {
      source_authority: seed.between(0.5, 0.9),
      cross_reference: verdict === 'conflicting' ? seed.between(0.2, 0.4) : seed.between(0.5, 0.9),
      recency: seed.between(0.4, 0.9),
      llm_analysis: seed.between(0.4, 0.9),
    },
    dimension_producers: { llm_analysis: 'simulated analysis' },
    warnings: ['sandbox: simulated data (test mode); the verdict, scores and sources are made up, no source was contacted'],
  };
}
