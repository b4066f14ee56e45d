/**
 * Issue 28: every XML part of a DOCX passes the XML budget (xml-budget.ts: well-formed, no
 * DOCTYPE, depth 256, element count) before it is read, and every failure to read the package is
 * the client's error (422 naming the part and the cause), never INTERNAL_ERROR. Issue 12's nested
 * documents (10,000 deep) overflowed the recursive reader; 20,000 levels in `_rels/.rels` cost
 * seconds in saxes's namespace resolution (quadratic): both are now refused at level 257.
 */
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../src/engine/index.js';
import { XML_LIMITS, xmlProblem } from '../../../src/engine/document/xml-budget.js';
import { b64, buildDocx, paragraph, testPorts } from './build.js';

const engine = createEngine(testPorts());
const verify = (docx: Buffer) => engine.verifyDocument({ source: 'upload', content: b64(docx) });
const RELS_OPEN = '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>';
const nestedRels = (depth: number): string => `${RELS_OPEN}${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}</Relationships>`;
const nestedBody = (depth: number): string => `${'<w:sdt><w:sdtContent>'.repeat(depth)}${paragraph('deep')}${'</w:sdtContent></w:sdt>'.repeat(depth)}`;
const refusal = (part: string, cause: RegExp) => ({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(new RegExp(`the DOCX part ${part.replace(/[.[\]]/g, '\\$&')} cannot be read: ${cause.source}`)) });

describe('XML budget (xml-budget.ts)', () => {
  it('passes ordinary XML and names what is wrong with the rest', () => {
    expect(xmlProblem('<?xml version="1.0"?><a><b/><c><!-- <x> --><d>t</d></c></a>')).toBeUndefined();
    expect(xmlProblem('\uFEFF<a x="1>2"><b/></a>')).toBeUndefined();
    expect(xmlProblem(`${'<a>'.repeat(256)}${'</a>'.repeat(256)}`)).toBeUndefined();
    expect(xmlProblem(`${'<a>'.repeat(257)}${'</a>'.repeat(257)}`)).toMatch(/nests elements more than 256 deep \(the depth limit\)/);
    // Self-closing elements do not add depth; they count as elements.
    expect(xmlProblem(`<r>${'<b/>'.repeat(500)}</r>`, { maxDepth: 2, maxElements: 1000 })).toBeUndefined();
    expect(xmlProblem(`<r>${'<b/>'.repeat(500)}</r>`, { maxDepth: 2, maxElements: 100 })).toMatch(/more than 100 elements \(the element limit\)/);
    expect(xmlProblem('<w:r><w:t>x</w:r>')).toMatch(/not well-formed XML \(.*unexpected close tag/);
    expect(xmlProblem('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')).toMatch(/declares a DOCTYPE/);
    expect(xmlProblem('<a>&undefined;</a>')).toMatch(/not well-formed XML/);
    expect(XML_LIMITS.maxDepth).toBe(256);
  });

  it('stops at the first element past the limit (200,000 levels are never scanned)', () => {
    // Not a timing assertion: the thrown position shows where the scan ended.
    const deep = `${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}`;
    expect(xmlProblem(deep)).toMatch(/more than 256 deep/);
  });
});

describe('DOCX parts past the budget are refused with 422 naming the part and the limit', () => {
  it.each([5_000, 20_000, 200_000])('_rels/.rels nested %i deep', async (depth) => {
    const docx = await buildDocx({ extraParts: { '_rels/.rels': nestedRels(depth) } });
    await expect(verify(docx)).rejects.toMatchObject(refusal('_rels/.rels', /it nests elements more than 256 deep \(the depth limit\)/));
  });

  it('word/document.xml nested 5,000 deep', async () => {
    await expect(verify(await buildDocx({ body: nestedBody(5000) }))).rejects.toMatchObject(refusal('word/document.xml', /it nests elements more than 256 deep/));
  });

  it('docProps/core.xml, word/settings.xml and word/comments.xml are guarded as well', async () => {
    const deep = (root: string) => `<${root}>${'<x>'.repeat(300)}${'</x>'.repeat(300)}</${root}>`;
    await expect(verify(await buildDocx({ core: deep('cp:coreProperties') }))).rejects.toMatchObject(refusal('docProps/core.xml', /it nests/));
    await expect(verify(await buildDocx({ settings: deep('w:settings') }))).rejects.toMatchObject(refusal('word/settings.xml', /it nests/));
    await expect(verify(await buildDocx({ extraParts: { 'word/comments.xml': deep('w:comments') } }))).rejects.toMatchObject(refusal('word/comments.xml', /it nests/));
  });

  it('a DOCTYPE with entity declarations is refused', async () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><cp:coreProperties xmlns:cp="x">&lol2;</cp:coreProperties>`;
    await expect(verify(await buildDocx({ core: lol }))).rejects.toMatchObject(refusal('docProps/core.xml', /it declares a DOCTYPE/));
  });

  it('an ordinarily nested document (20 levels) is read, text included', async () => {
    const r = await verify(await buildDocx({ body: nestedBody(20) }));
    expect(r.metadata.author).toBe('Alice Analyst');
    expect(r.warnings?.some((w) => /deep|not extracted/.test(w)) ?? false).toBe(false);
  });
});

describe('malformed DOCX is the client error (422), never INTERNAL_ERROR', () => {
  it('an unclosed w:t in the main document', async () => {
    const docx = await buildDocx({ body: '<w:p><w:r><w:t>open</w:r></w:p>' });
    await expect(verify(docx)).rejects.toMatchObject(refusal('word/document.xml', /it is not well-formed XML/));
  });

  it('a main document without w:body', async () => {
    const zip = await JSZip.loadAsync(await buildDocx());
    zip.file('word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:other/></w:document>');
    const docx = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    await expect(verify(docx)).rejects.toMatchObject(refusal('word/document.xml', /it has no w:body element/));
  });

  it('an unbound namespace prefix, and an element inside w:t', async () => {
    const zip = await JSZip.loadAsync(await buildDocx());
    zip.file('word/document.xml', '<w:document><w:body/></w:document>');
    await expect(verify(await zip.generateAsync({ type: 'nodebuffer' }))).rejects.toMatchObject(refusal('word/document.xml', /it is not well-formed XML \(.*prefix/));
    await expect(verify(await buildDocx({ body: '<w:p><w:r><w:t>a<w:b/></w:t></w:r></w:p>' }))).rejects.toMatchObject(refusal('word/document.xml', /w:t holds elements where only text belongs/));
  });

  it('a part whose declared size does not match its data (jszip: uncompressed data size mismatch)', async () => {
    const docx = await buildDocx();
    // The central directory entry of word/document.xml: its uncompressed size (offset 24) plus one.
    const name = Buffer.from('word/document.xml');
    let at = docx.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    while (at >= 0 && !docx.subarray(at + 46, at + 46 + name.length).equals(name)) at = docx.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4);
    expect(at).toBeGreaterThan(0);
    docx.writeUInt32LE(docx.readUInt32LE(at + 24) + 1, at + 24);
    await expect(verify(docx)).rejects.toMatchObject(refusal('word/document.xml', /its compressed data is corrupt \(uncompressed data size mismatch\)/));
  });

  it('a corrupt deflate stream in a part', async () => {
    const docx = await buildDocx({ body: paragraph('x'.repeat(2000)) });
    const zip = await JSZip.loadAsync(docx);
    const entry = (zip.file('word/document.xml') as unknown as { _data: { compressedContent: Uint8Array } })._data.compressedContent;
    const at = docx.indexOf(Buffer.from(entry.subarray(0, 16)));
    docx.fill(0xff, at + 4, at + 24);
    await expect(verify(docx)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/DOCX (part word\/document\.xml|package)/) });
  });
});
