/**
 * Truncated and empty documents (issue 13, item 1): a partial result only when something before
 * the cut was readable, with trust_score ≤ 0.4 and a warning naming what could not be checked;
 * otherwise 422 UNPROCESSABLE_CONTENT. Never a confident result from nothing. The files are real:
 * pdf-lib PDFs (with and without object streams) and a jszip DOCX, cut at 10 %, 50 % and 90 %.
 */
import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import type { DocumentResult } from '../../../src/api/results.js';
import { detectTruncation } from '../../../src/engine/document/truncation.js';
import { createEngine } from '../../../src/engine/index.js';
import { testPorts } from './build.js';

const PARA = 'The committee met on Tuesday to review the budget for the coming year. Members raised concerns about rising maintenance costs at the north depot.';

async function makePdf(useObjectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < 6; p++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < 20; l++) page.drawText(`${p + 1}.${l + 1} ${PARA.slice(0, 80)}`, { x: 40, y: 740 - l * 16, size: 10, font });
  }
  doc.setAuthor('Test Author');
  doc.setProducer('verity-tests');
  doc.setCreationDate(new Date('2024-12-01T09:00:00Z'));
  doc.setModificationDate(new Date('2024-12-01T09:05:00Z'));
  return Buffer.from(await doc.save({ useObjectStreams }));
}

async function makeDocx(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  const paras = Array.from({ length: 40 }, (_, i) => `<w:p><w:r><w:t>${i + 1}. ${PARA}</w:t></w:r></w:p>`).join('');
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paras}</w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const verify = (bytes: Buffer) => createEngine(testPorts()).verifyDocument({ source: 'upload', content: bytes.toString('base64') });

/** The rule for every cut file: 422, or a partial result that says so and never looks trustworthy. */
async function outcome(bytes: Buffer): Promise<{ kind: '422' } | { kind: 'partial'; r: DocumentResult }> {
  try {
    const r = await verify(bytes);
    expect(r.trust_score).toBeLessThanOrEqual(0.4);
    expect(r.warnings?.[0]).toMatch(/^partial result: .*truncated.*not checked: /);
    expect(r.manipulation_flags).not.toContain('metadata_stripped');
    expect(r.dimension_producers?.source_authority).toBe('truncated file: provenance unknown');
    return { kind: 'partial', r };
  } catch (err) {
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).code).toBe('UNPROCESSABLE_CONTENT');
    expect((err as VerityError).message).toMatch(/truncated|cannot be opened|nothing/);
    return { kind: '422' };
  }
}

describe('truncated PDFs (pdf-lib, cut at 10 %, 50 %, 90 %)', () => {
  for (const objectStreams of [false, true])
    it(`${objectStreams ? 'with' : 'without'} object streams: 422 or a partial result capped at 0.4`, async () => {
      const pdf = await makePdf(objectStreams);
      const whole = await verify(pdf);
      expect(whole.warnings?.some((w) => /partial result/.test(w)) ?? false).toBe(false);
      expect(whole.metadata.page_count).toBe(6);
      expect(whole.dimension_producers).toEqual({ source_authority: 'file metadata', cross_reference: expect.stringMatching(/^\d+ metadata cross-check\(s\)$/), recency: 'file dates', llm_analysis: 'stylometric model' });
      const kinds: string[] = [];
      for (const f of [0.1, 0.5, 0.9]) {
        const cut = pdf.subarray(0, Math.floor(pdf.length * f));
        expect(detectTruncation('pdf', cut)?.evidence).toMatch(/without the %%EOF marker/);
        kinds.push((await outcome(cut)).kind);
      }
      // Classic xref tables: every object before the cut parses, so the page tree is readable.
      if (!objectStreams) expect(kinds).toEqual(['partial', 'partial', 'partial']);
      // Object streams: the first 10 % holds only the header and the first objects — nothing to verify.
      else expect(kinds[0]).toBe('422');
    });

  it('the partial result says what was read before the cut', async () => {
    const pdf = await makePdf(false);
    const r = (await outcome(pdf.subarray(0, Math.floor(pdf.length / 2)))) as { kind: 'partial'; r: DocumentResult };
    expect(r.kind).toBe('partial');
    expect(r.r.evidence.find((e) => e.source === 'document_integrity')?.finding).toMatch(/read before the cut: .*page count \(6\)/);
    expect(r.r.warnings![0]).toMatch(/signatures and incremental updates at the end of the file/);
  });

  it('a complete PDF is not called truncated', async () => {
    expect(detectTruncation('pdf', await makePdf(true))).toBeNull();
  });
});

describe('truncated DOCX and empty input', () => {
  it('a DOCX cut at 10 %, 50 %, 90 % (no ZIP directory) is 422, never a result', async () => {
    const docx = await makeDocx();
    expect(detectTruncation('docx', docx)).toBeNull();
    expect((await verify(docx)).metadata.page_count).toBeGreaterThan(0);
    for (const f of [0.1, 0.5, 0.9]) {
      const cut = docx.subarray(0, Math.floor(docx.length * f));
      expect(detectTruncation('docx', cut)?.evidence).toMatch(/end-of-central-directory/);
      expect((await outcome(cut)).kind).toBe('422');
    }
  });

  it('an empty file fetched from a URL is 422', async () => {
    const engine = createEngine(testPorts({ fetchInput: async () => ({ bytes: Buffer.alloc(0), finalUrl: 'http://127.0.0.1/empty.pdf', contentType: 'application/pdf' }) as never }));
    await expect(engine.verifyDocument({ source: 'url', content: 'http://127.0.0.1/empty.pdf' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});
