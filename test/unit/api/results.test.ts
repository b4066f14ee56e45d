import { describe, expect, it } from 'vitest';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../../../src/api/results.js';
import { sandbox } from '../sandbox/engine.js';

describe('result schemas (SPEC 2)', async () => {
  const claim = await sandbox.verifyClaim({ claim: 'The Eiffel Tower is in Paris' });
  const business = await sandbox.verifyBusiness({ company_name: 'Acme Ltd', officers: true, filings: true });
  const media = await sandbox.verifyMedia({ url: 'https://example.com/verity-sandbox:authentic.jpg' });
  const document = await sandbox.verifyDocument({ source: 'raw', content: 'text #ai_generated_text' });
  const cases = [
    ['claim', ClaimResult, claim],
    ['business', BusinessResult, business],
    ['media', MediaResult, media],
    ['document', DocumentResult, document],
  ] as const;

  it.each(cases)('%s: accepts sandbox output', (_kind, schema, result) => {
    const r = schema.safeParse(result);
    expect(r.success, JSON.stringify(r.error?.issues)).toBe(true);
  });

  it.each(cases)('%s: refuses scores outside 0–1 and a wrong id prefix', (_kind, schema, result) => {
    for (const trust_score of [1.01, -0.01]) expect(schema.safeParse({ ...result, trust_score }).success).toBe(false);
    expect(schema.safeParse({ ...result, dimensions: { ...result.dimensions, recency: 2 } }).success).toBe(false);
    expect(schema.safeParse({ ...result, id: 'vrf_xxx_abc' }).success).toBe(false);
    const { credits_used: _c, ...noCredits } = result;
    expect(schema.safeParse(noCredits).success).toBe(false);
  });

  it('refuses values outside each enum', () => {
    expect(ClaimResult.safeParse({ ...claim, verdict: 'mostly_true' }).success).toBe(false);
    expect(BusinessResult.safeParse({ ...business, status: 'bankrupt' }).success).toBe(false);
    expect(MediaResult.safeParse({ ...media, authenticity: 'fake' }).success).toBe(false);
    expect(MediaResult.safeParse({ ...media, deepfake_score: 1.5 }).success).toBe(false);
    expect(DocumentResult.safeParse({ ...document, manipulation_flags: ['photoshopped'] }).success).toBe(false);
    expect(DocumentResult.safeParse({ ...document, ai_generated_probability: -0.2 }).success).toBe(false);
  });

  it('claim evidence needs a boolean stance, an authority in 0–1 and an ISO timestamp', () => {
    const ev = claim.evidence[0]!;
    expect(ClaimResult.safeParse({ ...claim, evidence: [{ ...ev, supports_claim: 'yes' }] }).success).toBe(false);
    expect(ClaimResult.safeParse({ ...claim, evidence: [{ ...ev, authority_score: 1.2 }] }).success).toBe(false);
    expect(ClaimResult.safeParse({ ...claim, evidence: [{ ...ev, retrieved_at: 'last week' }] }).success).toBe(false);
  });

  it('nullables: media watermark and provenance_source, business incorporation_date, document metadata', () => {
    expect(MediaResult.safeParse({ ...media, watermark: null, provenance_source: null }).success).toBe(true);
    expect(BusinessResult.safeParse({ ...business, incorporation_date: null }).success).toBe(true);
    expect(BusinessResult.safeParse({ ...business, incorporation_date: '2020-13-01' }).success).toBe(false);
    expect(DocumentResult.safeParse({ ...document, metadata: { ...document.metadata, author: null, created_at: null } }).success).toBe(true);
  });
});
