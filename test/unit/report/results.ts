/** Results the report tests render: real ones with hostile or extra fields added, and a hand-built business result. */
import type { BusinessResult, ClaimResult, DocumentResult } from '../../../src/api/results.js';

export const HOSTILE_TITLE = '<script>alert("x")</script><img src=x onerror=alert(1)>';

/** A sandbox claim result plus one refuting item whose source, snippet and URL are hostile. */
export function hostileClaim(base: ClaimResult): ClaimResult {
  return {
    ...base,
    evidence: [
      ...base.evidence,
      { source: HOSTILE_TITLE, url: 'javascript:alert(1)', snippet: '"><svg onload=alert(2)> passage', supports_claim: false, authority_score: 0.4, retrieved_at: '2026-01-15T12:00:00.000Z' },
    ],
  };
}

/**
 * The AI-text detector's optional field as the detector will add it (issue 13): built by hand
 * here, since the detector is another module's work.
 */
export function withAiText(r: DocumentResult): DocumentResult {
  return {
    ...r,
    ai_text: {
      probability: 0.82,
      words: 412,
      flagged: true,
      passages: [
        { start: 0, end: 120, excerpt: 'In this report, we delve into the multifaceted landscape of procurement <b>and</b> its pivotal role.', probability: 0.91, cues: ['low perplexity', 'stock phrases: "delve into", "multifaceted landscape"'] },
        { start: 300, end: 410, excerpt: 'In conclusion, it is important to note that every stakeholder plays a crucial role.', probability: 0.77, cues: ['uniform sentence length'] },
      ],
    },
  } as DocumentResult;
}

/** Three registries; one gives a different incorporation date. */
export function businessWithDisagreement(): BusinessResult {
  const base = { name: 'ACME WIDGETS LIMITED', registration_number: '01234567', jurisdiction: 'gb', status: 'active' as const, raw_status: 'active', as_of: '2026-01-15T12:00:00.000Z' };
  return {
    id: 'vrf_biz_0123456789abcdef01234567',
    trust_score: 0.74,
    dimensions: { source_authority: 0.95, cross_reference: 0.62, recency: 1, llm_analysis: 0.9 },
    dimension_producers: { source_authority: 'Companies House', cross_reference: 'registry agreement', recency: 'live registry answers', llm_analysis: 'name match' },
    latency_ms: 812,
    credits_used: 1,
    status: 'active',
    legal_name: 'ACME WIDGETS LIMITED',
    registration_number: '01234567',
    jurisdiction: 'gb',
    incorporation_date: '1999-04-01',
    evidence: [
      { source: 'companies_house', url: 'https://find-and-update.company-information.service.gov.uk/company/01234567', authority_score: 0.95, finding: 'ACME WIDGETS LIMITED; no. 01234567; gb; status active; incorporated 1999-04-01; basis of this result', record: { ...base, role: 'basis', incorporation_date: '1999-04-01', agrees: [], disagrees: [] } },
      { source: 'gleif', url: 'https://search.gleif.org/#/record/213800ABCDEFGHIJKL12', authority_score: 0.85, finding: 'ACME WIDGETS LIMITED; LEI 213800ABCDEFGHIJKL12; agrees on legal name, status, registration number', record: { ...base, role: 'corroborating', incorporation_date: '1999-04-01', agrees: ['legal_name', 'status', 'registration_number', 'incorporation_date'], disagrees: [] } },
      { source: 'opencorporates', url: 'https://opencorporates.com/companies/gb/01234567', authority_score: 0.7, finding: 'ACME WIDGETS LIMITED; DISAGREES: incorporation date 1999-05-01 vs 1999-04-01', record: { ...base, role: 'corroborating', incorporation_date: '1999-05-01', agrees: ['legal_name', 'status', 'registration_number'], disagrees: ['incorporation_date'] } },
    ],
  };
}
