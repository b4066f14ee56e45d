/**
 * Issue 32 item 4: the words say what each number is. Claims: the chance the claim is true;
 * companies: why the score is below its dimensions; numbers nobody measured read "not measured"
 * (human output and the HTML report) while the JSON keeps SPEC's value and says so in warnings;
 * video is video; EXIF times print as ISO.
 */
import { describe, expect, it } from 'vitest';
import { notMeasured, notMeasuredWarning } from '../../../src/api/not-measured.js';
import type { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../../../src/api/results.js';
import { renderBusiness } from '../../../src/output/human/business.js';
import { renderClaim } from '../../../src/output/human/claim.js';
import { renderDocument } from '../../../src/output/human/document.js';
import { renderMedia } from '../../../src/output/human/media.js';
import { Output } from '../../../src/output/output.js';
import { renderReport } from '../../../src/report/index.js';
import { fakeContext } from '../cli/fake-context.js';

const out = (columns = '100'): Output => new Output(fakeContext({ env: { COLUMNS: columns } }).ctx, { json: false, ndjson: false, quiet: false, verbose: false, noColor: true });
const flat = (s: string): string => s.replace(/\s+/g, ' ');
const report = (kind: 'business' | 'document' | 'media', result: object): Promise<string> =>
  renderReport({ kind, result: result as never, now: new Date('2026-03-01T00:00:00Z'), version: 'test' });

describe('claims: trust is the chance the claim is true', () => {
  const r: ClaimResult = {
    id: 'vrf_clm_AAAAAAAAAAAAAAAAAAAA',
    trust_score: 0.17,
    dimensions: { source_authority: 0.8, cross_reference: 0.7, recency: 0.6, llm_analysis: 0.9 },
    latency_ms: 1,
    credits_used: 1,
    verdict: 'false',
    evidence: [],
  };
  it('a FALSE at 0.17 reads as a confident false, not as weak backing', () => {
    const text = flat(renderClaim(r, out()));
    expect(text).toContain('Trust: the chance that the claim is true');
    expect(text).toContain('0.17 means the claim is likely false: about a 83 % chance that it is false');
    expect(text).not.toMatch(/how strongly the sources/);
  });
});

describe('companies: why the trust is low', () => {
  const dissolved: BusinessResult = {
    id: 'vrf_biz_AAAAAAAAAAAAAAAAAAAA',
    trust_score: 0.41,
    dimensions: { source_authority: 0.97, cross_reference: 0.5, recency: 0.8, llm_analysis: 1 },
    dimension_producers: { llm_analysis: 'name match' },
    latency_ms: 1,
    credits_used: 1,
    status: 'dissolved',
    legal_name: 'OLD WIDGETS LTD',
    registration_number: '01234567',
    jurisdiction: 'gb',
    incorporation_date: '1990-01-01',
    evidence: [{ source: 'companies_house', url: 'https://example.org/c/01234567', authority_score: 0.95, finding: 'OLD WIDGETS LTD; status dissolved; basis of this result' }],
  };
  it('a dissolved company at 0.41 with dimensions of 0.50–1.00 says the status halved it', async () => {
    const text = flat(renderBusiness(dissolved, out()));
    // 0.3·0.97 + 0.3·0.5 + 0.1·0.8 + 0.3·1 = 0.821; × 0.5 = 0.41
    expect(text).toContain('Trust: how far the registry record confirms a live company matching the name you gave');
    expect(text).toContain('Why 0.41: the four numbers below give 0.82; the company is dissolved: the record confirms a company that no longer exists (× 0.50).');
    const html = await report('business', dissolved);
    expect(html).toContain('Why 0.41');
  });
  it('a score the formula did not make (the sandbox draws from bands) names the status without a factor', () => {
    const text = flat(renderBusiness({ ...dissolved, trust_score: 0.57 }, out()));
    expect(text).toContain('Why 0.57: the four numbers below give 0.82; the company is dissolved: the record confirms a company that no longer exists, which lowers it.');
    expect(text).not.toContain('×');
  });

  it('an active company scored as its dimensions give has no "why" line', () => {
    const active = { ...dissolved, status: 'active' as const, trust_score: 0.821 };
    expect(renderBusiness(active, out())).not.toContain('Why ');
  });
});

describe('numbers nobody measured', () => {
  const doc: DocumentResult = {
    id: 'vrf_doc_AAAAAAAAAAAAAAAAAAAA',
    trust_score: 0.45,
    dimensions: { source_authority: 0.3, cross_reference: 0.5, recency: 0.5, llm_analysis: 0.5 },
    dimension_producers: { source_authority: 'none (plain text has no provenance)', cross_reference: 'no cross-checks possible', recency: 'no dates', llm_analysis: 'too little text' },
    latency_ms: 1,
    credits_used: 1,
    ai_generated_probability: 0.5,
    manipulation_flags: [],
    watermark: null,
    metadata: { author: null, created_at: null, producer: 'unknown', page_count: 1 },
    evidence: [],
    warnings: [
      notMeasuredWarning('recency', 'no dates in the file', 0.5),
      notMeasuredWarning('cross_reference', 'no metadata cross-checks possible', 0.5),
      notMeasuredWarning('ai_generated_probability', 'no text to read', 0.5),
      notMeasuredWarning('llm_analysis', 'no text to read', 0.5),
    ],
  };
  it('the warning line reads back (scripts can tell a neutral value from a measurement)', () => {
    expect(doc.warnings![0]).toBe('not measured: recency (no dates in the file); 0.5 is the neutral value, not a measurement');
    expect([...notMeasured(doc.warnings).keys()]).toEqual(['recency', 'cross_reference', 'ai_generated_probability', 'llm_analysis']);
  });
  it('human output says "not measured" and why, never "0.50 produced by no dates"', () => {
    const text = flat(renderDocument(doc, out()));
    expect(text).toContain('recency not measured (no dates in the file)');
    expect(text).toContain('AI text not measured (no text to read)');
    expect(text).not.toMatch(/no dates\) 0\.50|0\.50 probability/);
    expect(text).toContain('source authority (none (plain text has no provenance)) 0.30');
  });
  it('the HTML report shows "not measured" with no bar for those numbers', async () => {
    const html = await report('document', doc);
    expect(html).toContain('aria-label="Recency: not measured"');
    expect(html).toContain('aria-label="AI-text probability: not measured"');
    expect(html).not.toContain('aria-label="Recency: 0.50 of 1"');
  });
});

describe('video and times', () => {
  const video: MediaResult = {
    id: 'vrf_med_AAAAAAAAAAAAAAAAAAAA',
    trust_score: 0.55,
    dimensions: { source_authority: 0.3, cross_reference: 0.5, recency: 0.8, llm_analysis: 0.97 },
    latency_ms: 1,
    credits_used: 1,
    authenticity: 'likely_authentic',
    deepfake_score: 0.03,
    provenance: [],
    provenance_source: null,
    watermark: null,
    metadata: { format: 'mp4', width: 0, height: 0, exif: { make: null, model: null, datetime_original: '2026:05:17 20:41:09', gps: null } },
    evidence: [{ source: 'metadata.timestamps', finding: 'ModifyDate 2026:05:18 10:00:00 is later than DateTimeOriginal 2026:05:17 20:41:09', authority_score: 0.3 }],
    warnings: [notMeasuredWarning('deepfake_score', 'no video decoder: pixels not analysed', 0.03)],
  };
  it('a video is "Video mp4", its deepfake score is not measured, times are ISO', async () => {
    const text = flat(renderMedia(video, out()));
    expect(text).toContain('Video mp4');
    expect(text).not.toContain('Image mp4');
    expect(text).toContain('Deepfake not measured (no video decoder: pixels not analysed)');
    expect(text).not.toMatch(/Deepfake 0\.03/);
    expect(text).toContain('recorded 2026-05-17T20:41:09');
    // (the findings as a list, so that the sentence reads in one piece)
    expect(flat(renderMedia(video, out('50')))).toContain('ModifyDate 2026-05-18T10:00:00 is later than DateTimeOriginal 2026-05-17T20:41:09');
    const html = await report('media', video);
    expect(html).toContain('Deepfake score not measured (no video decoder: pixels not analysed)');
    expect(html).toContain('2026-05-17T20:41:09');
    expect(html).not.toContain('Image and forensic overlays');
  });
});

describe('the command: not measured in the result, in warnings for scripts, not repeated on stderr', () => {
  it('verify document on a three-word text file', async () => {
    const { runCli, tempHome } = await import('../cli/fake-context.js');
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(tempHome(), 'note.txt');
    writeFileSync(file, 'see you tomorrow\n');
    const human = await runCli(['verify', 'document', file, '--no-color'], { env: { COLUMNS: '100' } });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/AI text\s+not measured \(3 words: too short to judge\)/);
    expect(human.stdout).toMatch(/recency not measured \(no dates in the file\)/);
    expect(human.stderr).not.toContain('not measured:');
    const json = await runCli(['verify', 'document', file, '--json']);
    const r = JSON.parse(json.stdout) as DocumentResult;
    expect(r.ai_generated_probability).toBe(0.5);
    expect(r.dimensions.recency).toBe(0.5);
    expect(r.warnings).toContain('not measured: ai_generated_probability (3 words: too short to judge); 0.5 is the neutral value, not a measurement');
    expect([...notMeasured(r.warnings).keys()].sort()).toEqual(['ai_generated_probability', 'cross_reference', 'llm_analysis', 'recency']);
  });
});
