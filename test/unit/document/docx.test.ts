import { createHash } from 'node:crypto';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { appXml, b64, buildDocx, coreXml, paragraph, testPorts } from './build.js';

const engine = createEngine(testPorts());
const verify = (docx: Buffer) => engine.verifyDocument({ source: 'upload', content: b64(docx) });

describe('DOCX analysis', () => {
  it('reads docProps into the metadata', async () => {
    const r = await verify(await buildDocx());
    expect(r.metadata).toEqual({ author: 'Alice Analyst', created_at: '2024-03-01T09:00:00.000Z', producer: 'Microsoft Office Word 16.0000', page_count: 2 });
    expect(r.manipulation_flags).toEqual([]);
    expect(r.evidence.some((e) => e.source === 'docx_properties' && /last modified by "Bob Editor"/.test(e.finding))).toBe(true);
  });

  it('a docProps with no creator or application says "not stated", never prints null', async () => {
    const core = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dcterms:created xsi:type="dcterms:W3CDTF">2015-05-17T16:02:49Z</dcterms:created></cp:coreProperties>`;
    const app = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>1</Pages></Properties>`;
    const r = await verify(await buildDocx({ core, app }));
    const props = r.evidence.find((e) => e.source === 'docx_properties' && /created 2015-05-17/.test(e.finding))!;
    expect(props.finding).not.toMatch(/null/);
    expect(props.finding).toMatch(/^creator not stated, last editor not stated, created 2015-05-17T16:02:49\.000Z, modified not stated, .*application not stated/);
  });

  it('flags created after modified as inconsistent_timestamps', async () => {
    const r = await verify(await buildDocx({ core: coreXml('2024-06-10T12:00:00Z', '2024-02-01T08:00:00Z') }));
    expect(r.manipulation_flags).toContain('inconsistent_timestamps');
    expect(r.evidence.some((e) => /dcterms:modified .* before dcterms:created/.test(e.finding))).toBe(true);
  });

  it('flags metadata_stripped when docProps are removed', async () => {
    const r = await verify(await buildDocx({ core: null, app: null }));
    expect(r.manipulation_flags).toContain('metadata_stripped');
    expect(r.metadata.producer).toBe('unknown');
    expect(r.metadata.page_count).toBe(1);
    expect(r.warnings?.some((w) => /page count/.test(w))).toBe(true);
  });

  it('reports tracked changes, and flags one dated after the modified date', async () => {
    const body = `${paragraph('Amount due: ')}<w:p><w:ins w:id="1" w:author="Mallory" w:date="2024-09-01T10:00:00Z"><w:r><w:t>9,000</w:t></w:r></w:ins><w:del w:id="2" w:author="Mallory" w:date="2024-09-01T10:00:00Z"><w:r><w:delText>1,000</w:delText></w:r></w:del></w:p>`;
    const r = await verify(await buildDocx({ body }));
    expect(r.evidence.some((e) => e.source === 'docx_tracked_changes' && /1 tracked insertion\(s\) and 1 deletion\(s\) by 1 author\(s\) \(Mallory\)/.test(e.finding))).toBe(true);
    expect(r.manipulation_flags).toContain('inconsistent_timestamps');
  });

  it('reads editing sessions from w:rsids', async () => {
    const rsids = Array.from({ length: 40 }, (_, i) => `<w:rsid w:val="00${(0xa000 + i).toString(16).toUpperCase()}00"/>`).join('');
    const settings = `<?xml version="1.0"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:rsids><w:rsidRoot w:val="00A00000"/>${rsids}</w:rsids></w:settings>`;
    const r = await verify(await buildDocx({ settings }));
    expect(r.evidence.find((e) => e.source === 'docx_revisions')?.finding).toMatch(/40 editing-session id\(s\).*revision 3: far more sessions than saves/);
  });

  it('flags editing time longer than the document has existed', async () => {
    const r = await verify(await buildDocx({ app: appXml(2, 5000) }));
    expect(r.evidence.some((e) => /5000 min of editing/.test(e.finding))).toBe(true);
    expect(r.dimensions.cross_reference).toBeLessThan(0.75);
  });

  // Full XML-DSig verification is in signatures-docx.test.ts; a digest alone proves nothing
  // (anyone can recompute it), so a "signature" without a value or certificate is unknown.
  it('does not count a digest-only XML signature (no SignatureValue, no certificate) as verified', async () => {
    const docx = await buildDocx();
    const zip = await JSZip.loadAsync(docx);
    const docBytes = await zip.file('word/document.xml')!.async('nodebuffer');
    const digest = createHash('sha256').update(docBytes).digest('base64');
    const sig = (value: string) =>
      `<?xml version="1.0"?><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><Reference URI="/word/document.xml?ContentType=application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"><DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue>${value}</DigestValue></Reference></SignedInfo></Signature>`;
    const good = await verify(await buildDocx({ extraParts: { '_xmlsignatures/sig1.xml': sig(digest) } }));
    expect(good.manipulation_flags).not.toContain('signature_forgery');
    expect(good.signatures?.[0]).toMatchObject({ integrity: 'unknown', trust: 'unknown' });
    expect(good.warnings?.some((w) => /could not be verified cryptographically: the signature carries no readable signer certificate/.test(w))).toBe(true);
    const bad = await verify(await buildDocx({ extraParts: { '_xmlsignatures/sig1.xml': sig(createHash('sha256').update('other').digest('base64')) } }));
    expect(bad.signatures?.[0]?.integrity).toBe('unknown');
    expect(bad.dimensions.source_authority).toBeLessThan(0.7);
  });
});

describe('DOCX bad input', () => {
  it('refuses a ZIP that is not a DOCX with 415', async () => {
    const zip = new JSZip();
    zip.file('readme.txt', 'just a zip');
    const bytes = await zip.generateAsync({ type: 'nodebuffer' });
    await expect(verify(bytes)).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('refuses a corrupt ZIP with 422', async () => {
    const docx = await buildDocx();
    await expect(verify(docx.subarray(0, 200))).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});
