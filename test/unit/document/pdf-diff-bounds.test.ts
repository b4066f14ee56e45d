/**
 * Bounded work (issue 12): a PDF whose streams inflate to gigabytes stops at the decompression
 * caps with a warning naming the cap and still answers; the caps are enforced by zlib as data
 * arrives. (Memory is measured in bench/document.mjs, not here.)
 */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InflateBudget, INFLATE_LIMITS } from '../../../src/engine/document/budget.js';
import { inflateBounded } from '../../../src/engine/document/pdf/bounded-inflate.js';
import { createEngine } from '../../../src/engine/index.js';
import { b64, testPorts } from './build.js';
import { flateBombPdf, zeroBomb } from './pdf-diff-build.js';

const engine = createEngine(testPorts());

describe('bounded inflation', () => {
  it('the bomb builder makes valid zlib data that inflates to what it says', () => {
    expect(inflateSync(zeroBomb(3)).length).toBe(3 * 1024 * 1024);
  });

  it('stops one stream at the per-stream cap and names the cap', () => {
    const budget = new InflateBudget({ perStreamBytes: 1024 * 1024, documentBytes: 8 * 1024 * 1024 });
    const r = inflateBounded(zeroBomb(4), budget);
    expect(r.capped).toBe(true);
    expect(r.data).toBeUndefined();
    expect(budget.exceeded).toMatch(/1 MB per-stream decompression cap/);
  });

  it('stops at the per-document cap when many streams each stay under the per-stream cap', () => {
    const budget = new InflateBudget({ perStreamBytes: 2 * 1024 * 1024, documentBytes: 5 * 1024 * 1024 });
    const one = zeroBomb(2);
    expect(inflateBounded(one, budget).data?.length).toBe(2 * 1024 * 1024);
    expect(inflateBounded(one, budget).data?.length).toBe(2 * 1024 * 1024);
    expect(budget.exceeded).toBeUndefined();
    expect(inflateBounded(one, budget).capped).toBe(true);
    expect(budget.exceeded).toMatch(/5 MB per-document decompression cap/);
  });

  it('answers for a ~4 MB PDF whose page streams inflate to 4 GB, with a warning naming the cap', async () => {
    const pdf = flateBombPdf(4, 1024);
    expect(pdf.length).toBeLessThan(6 * 1024 * 1024);
    const r = await engine.verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });
    const cap = `${INFLATE_LIMITS.perStreamBytes / (1024 * 1024)} MB per-stream decompression cap`;
    expect(r.warnings?.some((w) => w.includes(cap) && /pdf\.js was not run/.test(w))).toBe(true);
    // The structure was still read: one page, no signature, no forgery.
    expect(r.metadata.page_count).toBe(1);
    expect(r.manipulation_flags).not.toContain('signature_forgery');
  });
});
