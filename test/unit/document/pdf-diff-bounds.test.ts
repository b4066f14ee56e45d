/**
 * Bounded work (issue 12): a PDF whose streams inflate to gigabytes stops at the decompression
 * caps with a warning naming the cap and still answers; the caps are enforced by zlib as data
 * arrives. (Memory is measured in bench/document.mjs, not here.)
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InflateBudget, INFLATE_LIMITS } from '../../../src/engine/document/budget.js';
import { ascii85Decode, exceedsInflateCaps, inflateBounded, lzwDecodedLength, runLengthDecodedLength } from '../../../src/engine/document/pdf/bounded-inflate.js';
import { createEngine } from '../../../src/engine/index.js';
import { b64, testPorts } from './build.js';
import { flateBombPdf, lzwEncode, lzwZeros, onePagePdf, zeroBomb } from './pdf-diff-build.js';

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

describe('LZW and RunLength measured without decoding', () => {
  it('counts what an LZW stream decodes to, for text and for a zero run', () => {
    const text = Buffer.from(Array.from({ length: 4000 }, (_, i) => `line ${i} of the purchase order ${i % 7}`).join('\n'));
    const enc = lzwEncode(text);
    expect(enc.length).toBeLessThan(text.length);
    expect(lzwDecodedLength(enc, Infinity)).toBe(text.length);
    expect(lzwDecodedLength(lzwEncode(Buffer.alloc(300_000)), Infinity)).toBe(300_000);
    expect(lzwDecodedLength(lzwZeros(5_000_000), Infinity)).toBe(5_000_000);
  });

  it('the test encoder writes LZW that pdf.js itself decodes (an independent check of the counter)', async () => {
    const ops = Array.from({ length: 200 }, (_, i) => `BT /F1 10 Tf 40 ${780 - (i % 70) * 11} Td (Clause ${i} of the LZW purchase order) Tj ET`).join('\n');
    const encoded = lzwEncode(Buffer.from(ops, 'latin1'));
    expect(lzwDecodedLength(encoded, Infinity)).toBe(ops.length);
    // pdf.js reads the text back, so the encoding (code widths, EarlyChange) is the one PDF readers use.
    const { analyzePdf } = await import('../../../src/engine/document/pdf/analyze.js');
    const { Budget } = await import('../../../src/engine/document/budget.js');
    const a = await analyzePdf(onePagePdf([{ filter: 'LZWDecode', data: encoded }]), new Date('2025-06-01T12:00:00Z'), new Budget(20_000));
    expect(a.warnings.some((w) => /pdf\.js could not|decompression/.test(w))).toBe(false);
    expect(a.text).toContain('Clause 199 of the LZW purchase order');
  });

  it('refuses to hand pdf.js a page whose LZW stream decodes past the cap', async () => {
    const r = await engine.verifyDocument({ source: 'upload', content: b64(onePagePdf([{ filter: 'LZWDecode', data: lzwZeros(100 * 1024 * 1024) }])), mime_type: 'application/pdf' });
    expect(r.warnings?.some((w) => /64 MB per-stream decompression cap/.test(w))).toBe(true);
  });

  it('stops an LZW bomb at the cap: ~100 KB that decodes to 256 MB', () => {
    const bomb = lzwZeros(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200_000);
    const budget = new InflateBudget();
    expect(exceedsInflateCaps([{ raw: bomb, filters: ['LZWDecode'] }], budget).exceeded).toMatch(/64 MB per-stream decompression cap/);
  });

  it('counts RunLength runs (up to 128 bytes from 2)', () => {
    expect(runLengthDecodedLength(Buffer.from([2, 65, 66, 67, 255, 0, 128]), Infinity)).toBe(3 + 2);
    expect(runLengthDecodedLength(Buffer.from([129, 7, 129, 7]), Infinity)).toBe(256);
  });
});

describe('filter chains', () => {
  it('decodes ASCII85 (checked against a known encoding) and measures Flate behind ASCIIHex, ASCII85 and another Flate', () => {
    expect(ascii85Decode(Buffer.from('87cURD]i,"Ebo80~>')).toString('latin1')).toBe('Hello World!');
    const bomb = zeroBomb(8);
    const small = { perStreamBytes: 1024 * 1024, documentBytes: 64 * 1024 * 1024 };
    const hex = Buffer.from(`${bomb.toString('hex')}>`);
    expect(exceedsInflateCaps([{ raw: hex, filters: ['ASCIIHexDecode', 'FlateDecode'] }], new InflateBudget(small)).exceeded).toMatch(/per-stream/);
    // Flate inside Flate: the outer layer is small, the inner one is the bomb.
    const nested = deflateSync(zeroBomb(8));
    expect(exceedsInflateCaps([{ raw: nested, filters: ['FlateDecode', 'FlateDecode'] }], new InflateBudget(small)).exceeded).toMatch(/per-stream/);
    expect(exceedsInflateCaps([{ raw: Buffer.alloc(10), filters: ['DCTDecode', 'FlateDecode'] }], new InflateBudget(small)).unmeasured).toBe(1);
  });
});

describe('nesting depth in PDF objects', () => {
  it('answers for a PDF whose catalog nests arrays 100,000 deep (no stack overflow)', async () => {
    const pdf = onePagePdf([{ filter: 'FlateDecode', data: deflateSync(Buffer.from('BT /F1 12 Tf 50 700 Td (deep) Tj ET')) }]);
    const s = pdf.toString('latin1');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const withDeep = Buffer.from(s.replace('<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Catalog /Pages 2 0 R /Deep ${deep} >>`), 'latin1');
    const r = await engine.verifyDocument({ source: 'upload', content: b64(withDeep), mime_type: 'application/pdf' });
    expect(Array.isArray(r.manipulation_flags)).toBe(true);
    expect(r.metadata.page_count).toBeGreaterThanOrEqual(0);
  });
});
