import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { b64, testPorts } from './build.js';

const engine = createEngine(testPorts());
const upload = (path: string) => engine.verifyDocument({ source: 'upload', content: b64(readFileSync(path)) });

function pdfinfo(path: string): Record<string, string> | null {
  try {
    const out = execFileSync('pdfinfo', ['-isodates', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return Object.fromEntries(out.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]));
  } catch {
    return null; // pdfinfo cannot open it either (password)
  }
}

/** pdfinfo -isodates prints offsets as "-07" or "+05:30"; make them parseable. */
const isoInstant = (s: string): string => new Date(s.replace(/([+-]\d{2})$/, '$1:00')).toISOString();

let havePdfinfo = true;
try {
  execFileSync('pdfinfo', ['-v'], { stdio: 'ignore' });
} catch {
  havePdfinfo = false;
}

describeFixtures('document fixtures: PDFs agree with pdfinfo', () => {
  const pdfs = readdirSync(fixture('pdf')).filter((f) => f.endsWith('.pdf'));
  for (const f of pdfs) {
    it.skipIf(!havePdfinfo)(`${f}: page count, producer and dates equal pdfinfo`, async () => {
      const r = await upload(fixture('pdf', f));
      const ref = pdfinfo(fixture('pdf', f));
      if (!ref) {
        expect(r.warnings?.some((w) => /encrypted with a user password/.test(w))).toBe(true);
        return;
      }
      expect(r.metadata.page_count).toBe(Number(ref.Pages));
      expect(r.metadata.producer).toBe(ref.Producer ?? 'unknown');
      expect(r.metadata.created_at).toBe(ref.CreationDate ? isoInstant(ref.CreationDate) : null);
    });
  }
});

describeFixtures('document fixtures: expected readings', () => {
  it('basic.pdf (linearized, two %%EOF) is one revision, not an edit', async () => {
    const s = readPdfStructure(readFileSync(fixture('pdf', 'c2pa-rs-basic.pdf')));
    expect(s.linearized).toBe(true);
    expect(s.revisions).toHaveLength(1);
    const r = await upload(fixture('pdf', 'c2pa-rs-basic.pdf'));
    expect(r.manipulation_flags).toEqual([]);
    expect(r.evidence.some((e) => e.source === 'pdf_revisions')).toBe(false);
  });

  it('basic-no-xmp.pdf has no XMP (and no Info): metadata_stripped', async () => {
    const r = await upload(fixture('pdf', 'c2pa-rs-basic-no-xmp.pdf'));
    expect(r.manipulation_flags).toContain('metadata_stripped');
  });

  it('basic-signed.pdf: the signature covers the whole file and its digest matches', async () => {
    const r = await upload(fixture('pdf', 'c2pa-rs-basic-signed.pdf'));
    expect(r.manipulation_flags).not.toContain('signature_forgery');
    expect(r.evidence.some((e) => e.source === 'pdf_signature' && /covers the whole file.*sha256 digest of the signed bytes matches/.test(e.finding))).toBe(true);
  });

  it('basic-password.pdf: partial analysis with a warning, no crash', async () => {
    const r = await upload(fixture('pdf', 'c2pa-rs-basic-password.pdf'));
    expect(r.warnings?.some((w) => /encrypted with a user password/.test(w))).toBe(true);
    expect(r.evidence.some((e) => /encrypted/.test(e.finding))).toBe(true);
  });

  it('express-signed.pdf carries a C2PA manifest → watermark; its compositeWithTrainedAlgorithmicMedia declaration → the deepfake flag', async () => {
    const r = await upload(fixture('pdf', 'c2pa-rs-express-signed.pdf'));
    expect(r.watermark?.type).toBe('c2pa');
    expect(['valid', 'trusted']).toContain(r.watermark?.validation_state);
    expect(r.evidence.some((e) => e.source === 'c2pa')).toBe(true);
    expect(r.manipulation_flags).toContain('deepfake');
    expect(r.manipulation_flags).not.toContain('ai_generated_text');
    expect(r.evidence.some((e) => /compositeWithTrainedAlgorithmicMedia: the document contains content made with a generative model/.test(e.finding))).toBe(true);
    expect(r.file?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the malformed pdf.js files are analysed without crashing', async () => {
    for (const f of ['pdfjs-bad-PageLabels.pdf', 'pdfjs-helloworld-bad.pdf', 'pdfjs-xref_command_missing.pdf']) {
      const r = await upload(fixture('pdf', f));
      expect(r.metadata.page_count).toBe(1);
      expect(r.trust_score).toBeGreaterThanOrEqual(0);
    }
  });

  it('every mammoth DOCX is read; the comments file reports its comments', async () => {
    for (const f of readdirSync(fixture('docx'))) {
      const r = await upload(fixture('docx', f));
      expect(r.metadata.page_count).toBeGreaterThanOrEqual(1);
    }
    const c = await upload(fixture('docx', 'mammoth-comments.docx'));
    expect(c.evidence.some((e) => e.source === 'docx_comments' && /2 comment\(s\)/.test(e.finding))).toBe(true);
  });

  it('a camera JPEG is reported in document terms', async () => {
    const r = await upload(fixture('images', 'camera', 'DSCN0010.jpg'));
    expect(r.metadata.page_count).toBe(1);
    expect(r.metadata.producer).not.toBe('');
    expect(r.ai_generated_probability).toBe(0.5);
  });
});

describe('document input handling', () => {
  it('refuses an image that is not one (declared image/png) with 422', async () => {
    await expect(engine.verifyDocument({ source: 'upload', content: b64(Buffer.from('\u0000\u0001garbage bytes that are no image\u0002', 'latin1')), mime_type: 'image/png' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });

  it('refuses an empty download with 422', async () => {
    const e = createEngine(testPorts({ fetchInput: async () => ({ bytes: Buffer.alloc(0), contentType: 'application/pdf', finalUrl: 'https://example.org/x.pdf' }) }));
    await expect(e.verifyDocument({ source: 'url', content: 'https://example.org/x.pdf' })).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });

  it('refuses an unsupported binary type with 415', async () => {
    const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0xc2, 0x41, 0x24, 0x35, 0x03, 0x00, 0x00, 0x00]);
    await expect(engine.verifyDocument({ source: 'upload', content: b64(gz) })).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('reads an uploaded plain-text file as text and notes a mismatched hint', async () => {
    const r = await engine.verifyDocument({ source: 'upload', content: b64(Buffer.from('A short note.')), mime_type: 'application/pdf' }).catch((e: unknown) => e);
    expect(r).toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
    const ok = await engine.verifyDocument({ source: 'upload', content: b64(Buffer.from('A short note.')), mime_type: 'text/plain' });
    expect(ok.metadata.page_count).toBe(1);
  });
});
