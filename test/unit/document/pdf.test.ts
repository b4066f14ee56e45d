import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { checkSignatures, parsePdfDate } from '../../../src/engine/document/pdf/signatures.js';
import { appendUpdate, b64, buildPdf, contentStream, findObject, nextObjectNumber, signPdf, testPorts } from './build.js';

const engine = createEngine(testPorts());
const verify = (pdf: Buffer) => engine.verifyDocument({ source: 'upload', content: b64(pdf), mime_type: 'application/pdf' });

describe('PDF structure reader', () => {
  it('reads a fresh pdf-lib file as one revision with its page count', async () => {
    const pdf = await buildPdf({ pages: 3 });
    const s = readPdfStructure(pdf);
    expect(s.xrefChainOk).toBe(true);
    expect(s.revisions).toHaveLength(1);
    expect(s.linearized).toBe(false);
    const r = await verify(pdf);
    expect(r.metadata.page_count).toBe(3);
    expect(r.metadata.producer).toBe('verity-tests');
    expect(r.metadata.author).toBe('Test Author');
    expect(r.manipulation_flags).toEqual([]);
  });

  it('counts an appended incremental update as a second revision and says what it changed', async () => {
    const pdf = await buildPdf();
    const page = findObject(pdf, /\/Type \/Page\b/);
    const contentsNum = Number(/\/Contents \[?\s*(\d+) 0 R/.exec(page.body)![1]);
    const edited = appendUpdate(pdf, [{ num: contentsNum, body: contentStream('Invoice 1042: total due 9,250.00 EUR') }]);
    const s = readPdfStructure(edited);
    expect(s.revisions).toHaveLength(2);
    expect(s.sections).toHaveLength(2);
    const r = await verify(edited);
    const rev = r.evidence.find((e) => e.source === 'pdf_revisions');
    expect(rev?.finding).toMatch(/page content stream \d+ rewritten/);
    expect(r.manipulation_flags).not.toContain('signature_forgery');
  });

  it('parses PDF dates with offsets', () => {
    expect(parsePdfDate("D:20230504133105-07'00'")).toBe('2023-05-04T20:31:05.000Z');
    expect(parsePdfDate('D:20230823164757Z')).toBe('2023-08-23T16:47:57.000Z');
    expect(parsePdfDate('D:2023')).toBe('2023-01-01T00:00:00.000Z');
    expect(parsePdfDate('garbage')).toBeNull();
  });
});

describe('PDF signatures', () => {
  it('accepts a signature covering the whole file and checks its digest', async () => {
    const signed = signPdf(await buildPdf());
    const sigs = checkSignatures(signed, readPdfStructure(signed));
    expect(sigs).toHaveLength(1);
    expect(sigs[0]!.coversWholeFile).toBe(true);
    expect(sigs[0]!.gapIsContents).toBe(true);
    expect(sigs[0]!.digestMatches).toBe(true);
    const r = await verify(signed);
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.dimensions.source_authority).toBeGreaterThanOrEqual(0.8);
    expect(r.evidence.some((e) => e.source === 'pdf_signature' && /digest of the signed bytes matches/.test(e.finding))).toBe(true);
  });

  it('flags signature_forgery when page content changes in an update after the signature', async () => {
    const pdf = await buildPdf();
    const page = findObject(pdf, /\/Type \/Page\b/);
    const contentsNum = Number(/\/Contents \[?\s*(\d+) 0 R/.exec(page.body)![1]);
    const signed = signPdf(pdf);
    const forged = appendUpdate(signed, [{ num: contentsNum, body: contentStream('Invoice 1042: total due 9,250.00 EUR') }]);
    const r = await verify(forged);
    expect(r.manipulation_flags).toContain('signature_forgery');
    const ev = r.evidence.find((e) => e.source === 'pdf_signature')!;
    expect(ev.finding).toMatch(/change what was signed: page content stream/);
    expect(r.trust_score).toBeLessThan(0.3);
  });

  it('flags an annotation added to a page after an approval signature (pyHanko\'s default policy; DocMDP /P 3 would allow it)', async () => {
    const signed = signPdf(await buildPdf());
    const n = nextObjectNumber(signed);
    const page = findObject(signed, /\/Type \/Page\b/);
    const withNote = appendUpdate(signed, [
      { num: n, body: '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (approved) >>' },
      { num: page.num, body: page.body.replace(/>>\s*$/, ` /Annots [${n} 0 R] >>`) },
    ]);
    const r = await verify(withNote);
    expect(r.manipulation_flags).toContain('signature_forgery');
    expect(r.evidence.find((e) => e.source === 'pdf_signature')?.finding).toMatch(/annotation \(\/Text\) was added to page \d+, but no certification signature allows annotations/);
  });

  it('flags signature_forgery when signed bytes were altered (digest mismatch)', async () => {
    const signed = signPdf(await buildPdf());
    const at = signed.indexOf('verity-tests');
    const tampered = Buffer.from(signed);
    tampered.write('T', at + 'verity-tes'.length, 'latin1');
    const sigs = checkSignatures(tampered, readPdfStructure(tampered));
    expect(sigs[0]!.digestMatches).toBe(false);
    const r = await verify(tampered);
    expect(r.manipulation_flags).toContain('signature_forgery');
  });

  it('flags a ByteRange that leaves bytes unsigned outside /Contents', async () => {
    const signed = signPdf(await buildPdf());
    const s = signed.toString('latin1');
    const m = /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/.exec(s)!;
    const shifted = `/ByteRange [0 ${String(Number(m[1]) - 20).padStart(10, '0')} ${m[2]} ${m[3]}]`;
    const bad = Buffer.from(s.replace(m[0], shifted), 'latin1');
    const r = await verify(bad);
    expect(r.manipulation_flags).toContain('signature_forgery');
    expect(r.evidence.find((e) => e.source === 'pdf_signature')?.finding).toMatch(/not exactly the signature \/Contents/);
  });
});

describe('PDF metadata and dates', () => {
  it('flags an Info date changed without the XMP date', async () => {
    const pdf = await buildPdf({
      creationDate: new Date('2024-01-10T08:00:00Z'),
      modDate: new Date('2024-05-20T16:30:00Z'),
      xmp: { create: '2024-01-10T08:00:00Z', modify: '2024-01-11T09:15:00Z' },
    });
    const r = await verify(pdf);
    expect(r.manipulation_flags).toContain('inconsistent_timestamps');
    expect(r.evidence.some((e) => /Info ModDate .* and XMP ModifyDate .* differ by 130 days/.test(e.finding))).toBe(true);
    expect(r.dimensions.cross_reference).toBeLessThan(0.8);
  });

  it('does not flag Info and XMP that agree', async () => {
    const pdf = await buildPdf({
      creationDate: new Date('2024-01-10T08:00:00Z'),
      modDate: new Date('2024-01-11T09:15:00Z'),
      xmp: { create: '2024-01-10T08:00:00Z', modify: '2024-01-11T09:15:00Z' },
    });
    const r = await verify(pdf);
    expect(r.manipulation_flags).toEqual([]);
    expect(r.metadata.created_at).toBe('2024-01-10T08:00:00.000Z');
  });

  it('flags ModDate before CreationDate and dates in the future', async () => {
    const reversed = await verify(await buildPdf({ creationDate: new Date('2024-05-01T00:00:00Z'), modDate: new Date('2024-04-01T00:00:00Z') }));
    expect(reversed.manipulation_flags).toContain('inconsistent_timestamps');
    expect(reversed.evidence.some((e) => /Info ModDate .* before Info CreationDate/.test(e.finding))).toBe(true);
    const future = await verify(await buildPdf({ creationDate: new Date('2031-01-01T00:00:00Z'), modDate: new Date('2031-01-02T00:00:00Z') }));
    expect(future.manipulation_flags).toContain('inconsistent_timestamps');
    expect(future.evidence.some((e) => /after the time of analysis/.test(e.finding))).toBe(true);
  });

  it('flags metadata_stripped when there is no Info and no XMP', async () => {
    const r = await verify(await buildPdf({ info: false }));
    expect(r.manipulation_flags).toContain('metadata_stripped');
    expect(r.metadata.producer).toBe('unknown');
    expect(r.metadata.created_at).toBeNull();
  });
});

describe('PDF bad input', () => {
  it('analyses a truncated PDF partially, with warnings', async () => {
    const pdf = await buildPdf({ text: 'A truncated statement' });
    const r = await verify(pdf.subarray(0, Math.floor(pdf.length * 0.8)));
    expect(r.warnings?.some((w) => /cross-reference|startxref|pdf.js/.test(w))).toBe(true);
    expect(r.metadata.page_count).toBeGreaterThanOrEqual(0);
  });

  it('refuses a file labelled PDF that is not one with 422', async () => {
    await expect(engine.verifyDocument({ source: 'upload', content: b64(Buffer.from('hello, not a pdf at all \u0001\u0002')), mime_type: 'application/pdf' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });

  it('refuses a PDF header followed by nothing readable with 422', async () => {
    await expect(verify(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n garbage garbage', 'latin1'))).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });

  it('stays within a tiny time budget and says what it skipped', async () => {
    const { verifyDocument } = await import('../../../src/engine/document/verify.js');
    const pdf = await buildPdf({ pages: 5 });
    const r = await verifyDocument({ source: 'upload', content: b64(pdf), check_deepfakes: true, check_watermarks: false }, testPorts(), {}, { budgetMs: 0 });
    expect(r.warnings?.some((w) => /time budget/.test(w))).toBe(true);
    expect(r.metadata.page_count).toBe(5);
  });
});
