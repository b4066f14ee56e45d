/** The file's own Content Credentials are its history, not "earlier appearances" (issue 32 item 7). */
import { describe, expect, it } from 'vitest';
import type { MediaResult } from '../../../src/api/results.js';
import { Output } from '../../../src/output/output.js';
import { renderMedia } from '../../../src/output/human/media.js';
import { fakeContext } from '../cli/fake-context.js';

const out = (): Output => new Output(fakeContext({}).ctx, { json: false, ndjson: false, quiet: false, verbose: false, noColor: true });

const base: MediaResult = {
  id: 'vrf_med_AAAAAAAAAAAAAAAAAAAA',
  trust_score: 0.05,
  dimensions: { source_authority: 0.7, cross_reference: 0.5, recency: 0.8, llm_analysis: 0.03 },
  latency_ms: 10,
  credits_used: 5,
  authenticity: 'manipulated',
  deepfake_score: 0.97,
  provenance: [
    { url: 'c2pa:active_manifest', first_seen: '2024-09-25T08:29:07.000Z', source: 'c2pa:Amazon Web Services, Inc.' },
    { url: 'c2pa:ingredient/prompt.png', first_seen: '2024-09-25T08:29:07.000Z', source: 'c2pa_ingredient:parentOf' },
  ],
  provenance_source: 'c2pa:Amazon Web Services, Inc.',
  watermark: null,
  metadata: { width: 10, height: 10, format: 'png', exif: { make: null, model: null, datetime_original: null, gps: null } },
  evidence: [{ source: 'provenance.media_index', finding: 'No identical or near-duplicate file in the local known-media index', authority_score: 0.3 }],
};

describe('media provenance in human output', () => {
  it('its own signing and ingredient are its history; no "Earlier appearances" when the index found none', () => {
    const text = renderMedia(base, out());
    expect(text).toContain('History in its Content Credentials');
    expect(text).toContain('signed by Amazon Web Services, Inc.');
    expect(text).toContain('ingredient prompt.png (parentOf)');
    expect(text).not.toContain('Earlier appearances');
  });

  it('an index match is an earlier appearance', () => {
    const seen = { ...base, provenance: [...base.provenance, { url: 'https://news.example/photo', first_seen: '2023-01-01T00:00:00.000Z', source: 'news' }] };
    expect(renderMedia(seen, out())).toMatch(/Earlier appearances \(1\)\n\s+2023-01-01\s+news/);
  });

  it('embedded results are marked as not billed', () => {
    const o = out();
    o.notBilled = true;
    expect(renderMedia(base, o)).toContain('not billed (run here; 5 credits on a service)');
    expect(renderMedia(base, out())).toMatch(/· 5 credits/);
  });
});
