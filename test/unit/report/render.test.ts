/**
 * The renderer without a browser: untrusted text is escaped everywhere it can appear, result
 * files are recognised or refused clearly, and a 12-megapixel photo's report stays under 5 MB.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ClaimResult, DocumentResult, MediaResult } from '../../../src/api/results.js';
import { createEngine, createSandboxEngine } from '../../../src/engine/index.js';
import { html, link } from '../../../src/report/html.js';
import { readResult, renderReport } from '../../../src/report/index.js';
import { testPorts } from '../document/build.js';
import { makePorts } from '../media/helpers.js';
import { businessWithDisagreement, HOSTILE_TITLE, hostileClaim } from './results.js';

const now = new Date('2026-01-15T12:00:00Z');

describe('escaping', () => {
  it('the html template escapes values and keeps its own markup', () => {
    expect(String(html`<td>${'<b>&"\''}</td>`)).toBe('<td>&lt;b&gt;&amp;&quot;&#39;</td>');
    expect(String(html`<p>${[html`<i>${'<x>'}</i>`, '<y>']}</p>`)).toBe('<p><i>&lt;x&gt;</i>&lt;y&gt;</p>');
  });

  it('only http(s) URLs become links', () => {
    expect(String(link('javascript:alert(1)'))).not.toContain('href');
    expect(String(link('data:text/html,<script>alert(1)</script>'))).not.toMatch(/href|<script/);
    expect(String(link('https://example.org/a?b="c"'))).toBe('<a href="https://example.org/a?b=&quot;c&quot;" rel="noopener noreferrer nofollow">https://example.org/a?b=&quot;c&quot;</a>');
  });

  it('a claim whose evidence title, snippet and URL are hostile renders them as text', async () => {
    const base = (await createSandboxEngine(testPorts()).verifyClaim({ claim: 'x' })) as ClaimResult;
    const page = await renderReport({ kind: 'claim', result: hostileClaim(base), subject: '<script>claim</script>', now, version: 't' });
    expect(page).not.toMatch(/<script|<img src=x|<svg onload|href="javascript:/i);
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).toContain('&lt;script&gt;claim&lt;/script&gt;');
    expect(HOSTILE_TITLE).toContain('<script>');
  });

  it('document metadata and AI-text passages from the file are escaped', async () => {
    const r = {
      ...(await createEngine(testPorts()).verifyDocument({ source: 'raw', content: 'Plain text. '.repeat(20) })),
    } as DocumentResult;
    r.metadata = { ...r.metadata, author: '</td><script>x()</script>', producer: '<iframe src=//evil>' };
    const withAi = { ...r, ai_text: { probability: 0.9, words: 50, flagged: true, passages: [{ start: 0, end: 5, excerpt: '<img src=x onerror=y>', probability: 0.9, cues: ['<b>'] }] } };
    const page = await renderReport({ kind: 'document', result: withAi as DocumentResult, now, version: 't' });
    expect(page).not.toMatch(/<script>x|<iframe|<img src=x|<b>/);
    expect(page).toContain('<mark class="ai">&lt;img src=x onerror=y&gt;</mark>');
  });
});

describe('reading a saved result', () => {
  it('recognises each kind by its id and keeps fields the schema does not know', () => {
    const b = businessWithDisagreement();
    expect(readResult(b).kind).toBe('business');
    const extra = { ...b, future_field: 1 };
    expect((readResult(extra).result as unknown as { future_field: number }).future_field).toBe(1);
  });

  it('refuses an error body, an array and a result that breaks its schema, naming the field', () => {
    expect(() => readResult({ error: { code: 'NOT_FOUND' } })).toThrow(/not a claim, business, media or document result/);
    expect(() => readResult([])).toThrow(/expected a JSON object/);
    expect(() => readResult({ ...businessWithDisagreement(), trust_score: 7 })).toThrow(/not a valid business result: trust_score/);
  });
});

describe('forged picture data', () => {
  it('a saved media result with an absurd tile grid renders without its maps (no allocation from cols × rows)', async () => {
    const { heatmapPng } = await import('../../../src/report/index.js');
    const bytes = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 40, g: 90, b: 160 } } }).jpeg().toBuffer();
    const result = (await createEngine(makePorts()).verifyMedia({ file: bytes.toString('base64') })) as MediaResult;
    const forged = { ...result, forensics: { ...result.forensics!, cols: 1_000_000, rows: 1_000_000 } };
    const page = await renderReport({ kind: 'media', result: forged, input: bytes, now, version: 't' });
    expect(page).not.toContain('class="overlay ov-grid"');
    expect(page).not.toContain('id="ov-grid"');
    expect((await heatmapPng(forged)).length).toBeGreaterThan(0);
  }, 30_000);
});

describe('size', () => {
  it('a 12-megapixel photo gives a report under 5 MB, its image downscaled to 1600 px', async () => {
    const bytes = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
      .jpeg({ quality: 92 })
      .toBuffer();
    const result = (await createEngine(makePorts()).verifyMedia({ file: bytes.toString('base64') })) as MediaResult;
    expect(result.forensics!.cols * result.forensics!.rows).toBe(62 * 46);
    const page = await renderReport({ kind: 'media', result, input: bytes, now, version: 't' });
    console.log(`12 MP report: ${(page.length / 1048576).toFixed(2)} MB (input ${(bytes.length / 1048576).toFixed(2)} MB)`);
    expect(page.length).toBeLessThan(5 * 1024 * 1024);
    expect(page).toMatch(/width="1600" height="1200"/);
  }, 60_000);
});

describe('what the page says matches what it shows (issue 32 item 7)', () => {
  it('a media report: the base name as title and heading, the tile overlay off by default, authority bars neutral', async () => {
    const bytes = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 40, g: 90, b: 160 } } }).jpeg().toBuffer();
    const result = (await createEngine(makePorts()).verifyMedia({ file: bytes.toString('base64') })) as MediaResult;
    const page = await renderReport({ kind: 'media', result, input: bytes, subject: '/home/someone/photos/2026/harbour.jpg', now, version: 't' });
    expect(page).toContain('<title>verity media report — harbour.jpg</title>');
    expect(page).not.toContain('/home/someone');
    expect(page).toMatch(/<input type="checkbox" id="ov-grid">/); // present, not checked
    expect(page).not.toMatch(/id="ov-grid" checked/);
    // Every authority bar is neutral: weight, not good or bad news.
    const authority = [...page.matchAll(/<div class="bar tone-(\w+)[^"]*" role="img" aria-label="Authority:/g)].map((m) => m[1]);
    expect(authority.length).toBeGreaterThan(0);
    expect(new Set(authority)).toEqual(new Set(['neutral']));
  }, 30_000);

  it('a claim keeps its text as the subject, slashes and all', async () => {
    const base = (await createSandboxEngine(makePorts()).verifyClaim({ claim: 'Turnout was 2/3 of voters' })) as ClaimResult;
    const page = await renderReport({ kind: 'claim', result: base, subject: 'Turnout was 2/3 of voters', now, version: 't' });
    expect(page).toContain('Turnout was 2/3 of voters');
  });
});
