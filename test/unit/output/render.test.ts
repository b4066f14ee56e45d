/** Human output (issue 14 items 2 and 3): truthful labels, plain words first, layout that fits. */
import { describe, expect, it } from 'vitest';
import type { BusinessResult, ClaimResult, MediaResult } from '../../../src/api/results.js';
import { Output } from '../../../src/output/output.js';
import { renderBusiness } from '../../../src/output/human/business.js';
import { renderClaim } from '../../../src/output/human/claim.js';
import { dimensionLabel } from '../../../src/output/human/common.js';
import { visibleWidth, wrap } from '../../../src/output/human/layout.js';
import { renderMedia } from '../../../src/output/human/media.js';
import { fakeContext } from '../cli/fake-context.js';

const out = (o: { env?: NodeJS.ProcessEnv; tty?: boolean; verbose?: boolean } = {}): Output =>
  new Output(fakeContext({ env: o.env, stdoutTTY: o.tty }).ctx, { json: false, ndjson: false, quiet: false, verbose: Boolean(o.verbose), noColor: false });

const LONG_URL = 'https://www.example-news-site.com/2026/03/01/a-rather-long-article-path/that-goes-on-and-on?utm_source=feed&id=1234567890';
const claim: ClaimResult = {
  id: 'vrf_clm_AAAAAAAAAAAAAAAAAAAA',
  trust_score: 0.8,
  dimensions: { source_authority: 0.7, cross_reference: 0.8, recency: 0.5, llm_analysis: 0.66 },
  latency_ms: 10,
  credits_used: 1,
  verdict: 'true',
  evidence: [
    {
      source: 'Wikipedia',
      url: LONG_URL,
      snippet: 'The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France, named after the engineer Gustave Eiffel, whose company designed and built the tower.',
      supports_claim: true,
      authority_score: 0.75,
      retrieved_at: '2026-03-01T12:00:00.000Z',
    },
  ],
};

describe('labels that tell the truth', () => {
  it('the fourth dimension is "analysis" unless its producer is named; never "LLM" by default', () => {
    expect(dimensionLabel('llm_analysis', undefined)).toBe('analysis');
    expect(dimensionLabel('llm_analysis', { llm_analysis: 'name match' })).toBe('name match');
    expect(dimensionLabel('recency', { recency: 'no dated evidence' })).toBe('recency (no dated evidence)');
    const text = renderClaim(claim, out());
    expect(text).not.toMatch(/LLM/);
    expect(text).toContain('analysis 0.66');
    expect(renderClaim({ ...claim, dimension_producers: { llm_analysis: 'LLM' } }, out())).toContain('LLM 0.66');
  });

  it('says what trust means under the verdict, and words, not "Auth.", for authority', () => {
    const lines = renderClaim(claim, out()).split('\n');
    const at = lines.findIndex((l) => l.startsWith('Verdict'));
    expect(lines[at + 1]).toMatch(/Trust: the chance that the claim is true/);
    expect(lines.join('\n')).toContain('authority 0.75');
    expect(lines.join('\n')).not.toContain('Auth.');
  });

  it('business results name the fourth dimension "name match" (the engine sets it)', () => {
    const biz: BusinessResult = {
      id: 'vrf_biz_AAAAAAAAAAAAAAAAAAAA',
      trust_score: 0.9,
      dimensions: { source_authority: 0.9, cross_reference: 0.8, recency: 0.6, llm_analysis: 0.97 },
      dimension_producers: { llm_analysis: 'name match' },
      latency_ms: 5,
      credits_used: 2,
      status: 'active',
      legal_name: 'ACME WIDGETS LIMITED',
      registration_number: '01234567',
      jurisdiction: 'gb',
      incorporation_date: '2001-02-03',
      officers: [{ name: 'SMITH, Jane', role: 'company-secretary-and-director-of-operations', appointed_on: '2001-02-03' }],
      evidence: [{ source: 'companies_house', url: 'https://find-and-update.company-information.service.gov.uk/company/01234567', authority_score: 0.95 }],
    };
    const text = renderBusiness(biz, out({ env: { COLUMNS: '80' } }));
    expect(text).toContain('name match 0.97');
    // The role is not cut, whatever the width.
    expect(text).toContain('company-secretary-and-director-of-operations');
    // At 80 columns the evidence is a table; its URL is a numbered reference under it, whole.
    expect(text.split('\n')).toContain('    [1] https://find-and-update.company-information.service.gov.uk/company/01234567');
  });
});

describe('plain words first, technical detail with --verbose', () => {
  const media: MediaResult = {
    id: 'vrf_med_AAAAAAAAAAAAAAAAAAAA',
    trust_score: 0.7,
    dimensions: { source_authority: 0.6, cross_reference: 0, recency: 0.5, llm_analysis: 0.7 },
    latency_ms: 40,
    credits_used: 5,
    authenticity: 'likely_authentic',
    deepfake_score: 0.1,
    provenance: [],
    provenance_source: null,
    watermark: null,
    metadata: { format: 'jpeg', width: 64, height: 48, exif: { make: null, model: null, datetime_original: null, gps: null } },
    evidence: [
      { source: 'forensics.jpeg_grid', finding: 'grid phase (0,0) in 100% of blocks', summary: 'the compression pattern is the same across the whole image', authority_score: 0.6 },
    ],
  };
  it('shows the summary and what the analyzer checks; the technical finding only with --verbose', () => {
    const plain = renderMedia(media, out());
    expect(plain).toContain('the compression pattern is the same across the whole image');
    expect(plain).toContain('JPEG block grid');
    expect(plain).not.toContain('grid phase');
    expect(renderMedia(media, out({ verbose: true }))).toContain('forensics.jpeg_grid: grid phase (0,0) in 100% of blocks');
  });
});

describe('layout', () => {
  it('piped with no $COLUMNS: no wrapping at all (whole lines for grep)', () => {
    const text = renderClaim(claim, out());
    expect(text).toContain(claim.evidence[0]!.snippet);
  });

  it.each([40, 59])('at %i columns (too narrow for a table): the numbered list, every line fits except a URL, whole on its own line', (cols) => {
    const text = renderClaim(claim, out({ env: { COLUMNS: String(cols) } }));
    expect(text).not.toContain('┌');
    // URLs and ids are never cut: a line holding one may be wider than a very narrow terminal.
    for (const l of text.split('\n')) if (!/https:\/\/|vrf_/.test(l)) expect(visibleWidth(l), l).toBeLessThanOrEqual(cols);
    expect(text.split('\n').map((l) => l.trim())).toContain(LONG_URL);
    expect(text.replace(/\s+/g, ' ')).toContain(claim.evidence[0]!.snippet);
  });

  it.each([60, 80, 120])('at %i columns: a table exactly as wide as the terminal at most, words whole in their cells, URLs as references under it', (cols) => {
    const text = renderClaim(claim, out({ env: { COLUMNS: String(cols) } }));
    const rows = text.split('\n').filter((l) => l.startsWith('│'));
    expect(rows[0]).toMatch(/│ # │ Stance\s+│ Source\s+│ Authority │ Passage\s+│/);
    for (const l of text.split('\n')) if (!/https:\/\//.test(l)) expect(visibleWidth(l), l).toBeLessThanOrEqual(cols);
    // The passage column read top to bottom gives the snippet back word for word: no word was cut.
    const passage = rows.slice(1).map((l) => l.split('│').at(-2)!.trim()).join(' ');
    expect(passage).toContain(claim.evidence[0]!.snippet);
    expect(passage).toContain('[1]');
    expect(text.split('\n')).toContain(`    [1] ${LONG_URL}`);
    expect(rows[1]).toMatch(/│ 1 │ supports │ Wikipedia\s+│\s+0\.75 │/);
  });

  it('a URL inside a passage becomes a reference too ([1.1]), so the cell never splits it', () => {
    const inner = 'https://archive.example.org/2026/03/01/a-long-path-that-would-not-fit-a-cell/index.html';
    const text = renderClaim({ ...claim, evidence: [{ ...claim.evidence[0]!, snippet: `Reported at ${inner}, then retracted.` }] }, out({ env: { COLUMNS: '80' } }));
    const lines = text.split('\n');
    expect(lines).toContain(`  [1.1] ${inner}`);
    expect(lines).toContain(`    [1] ${LONG_URL}`);
    const passage = lines.filter((l) => l.startsWith('│')).slice(1).map((l) => l.split('│').at(-2)!.trim()).join(' ');
    expect(passage).toContain('Reported at [1.1], then retracted. [1]');
  });

  it('piped with no $COLUMNS: the plain list, no table (whole lines for grep and scripts)', () => {
    const text = renderClaim(claim, out());
    expect(text).not.toMatch(/[┌│└]/);
    expect(text.split('\n').map((l) => l.trim())).toContain(LONG_URL);
  });

  it('wrap breaks at spaces only; a word longer than the line keeps a line of its own', () => {
    expect(wrap('aaa bbb ccc', 7)).toBe('aaa bbb\nccc');
    expect(wrap('short averyveryverylongword end', 10, '  ')).toBe('short\n  averyveryverylongword\n  end');
    expect(wrap('keeps  two spaces', 80)).toBe('keeps  two spaces');
  });

  it('OSC 8 hyperlinks only where the terminal shows them; the URL text is there either way', () => {
    const osc = (o: Output) => renderClaim(claim, o).includes(`\u001b]8;;${LONG_URL}\u001b\\`);
    expect(osc(out({ tty: true, env: { TERM_PROGRAM: 'iTerm.app' } }))).toBe(true);
    expect(osc(out({ tty: true, env: { TERM: 'xterm-256color' } }))).toBe(false);
    expect(osc(out({ tty: false, env: { TERM_PROGRAM: 'iTerm.app' } }))).toBe(false);
    expect(osc(out({ tty: true, env: { TERM_PROGRAM: 'iTerm.app', TMUX: '/tmp/tmux' } }))).toBe(false);
  });

  it('the simulated-data notice heads sandbox results', () => {
    const text = renderClaim({ ...claim, warnings: ['sandbox: simulated data (test mode); no source was contacted'] }, out());
    expect(text.split('\n')[0]).toMatch(/^SIMULATED \(sandbox: --test or a test key\): no source was contacted/);
    expect(renderClaim(claim, out()).split('\n')[0]).toMatch(/^Verdict/);
  });
});
