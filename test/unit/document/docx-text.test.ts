/**
 * DOCX text (docx/text.ts) must equal what mammoth's extractRawText gives — mammoth stays a dev
 * dependency as the reference — on the shared mammoth fixtures and on documents built here with
 * each construct whose text mammoth keeps, moves or drops.
 */
import { readdirSync, readFileSync } from 'node:fs';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { analyzeDocx } from '../../../src/engine/document/docx/analyze.js';
import { documentXmlText, docxText } from '../../../src/engine/document/docx/text.js';
import { Budget } from '../../../src/engine/document/budget.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { buildDocx, paragraph } from './build.js';

const ours = async (docx: Buffer): Promise<string> => docxText(await JSZip.loadAsync(docx));
const theirs = async (docx: Buffer): Promise<string> => (await mammoth.extractRawText({ buffer: docx })).value;

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const run = (t: string): string => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`;

const bodies: Record<string, string> = {
  'runs, tabs, breaks, hyphens, entities': `<w:p>${run('Tom &amp; Jerry &lt;3')}<w:r><w:tab/><w:t>after tab</w:t><w:br/><w:noBreakHyphen/><w:softHyphen/><w:t>end</w:t></w:r></w:p>`,
  'insertions kept, deletions and moves-from dropped': `<w:p><w:ins w:id="1" w:author="A">${run('inserted ')}</w:ins><w:del w:id="2" w:author="A"><w:r><w:delText>deleted</w:delText></w:r></w:del><w:moveFrom>${run('moved away')}</w:moveFrom><w:moveTo>${run('moved here')}</w:moveTo></w:p>`,
  'a deleted paragraph mark joins the next paragraph': `<w:p><w:pPr><w:rPr><w:del w:id="3" w:author="A"/></w:rPr></w:pPr>${run('first half ')}</w:p>${paragraph('second half')}${paragraph('third')}`,
  'a VML text box follows its paragraph': `<w:p>${run('before ')}<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>${paragraph('in the box')}</w:txbxContent></v:textbox></v:shape></w:pict></w:r>${run('after')}</w:p>`,
  'a DrawingML text box is not read': `<w:p>${run('text ')}<w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData><w:txbxContent>${paragraph('hidden')}</w:txbxContent></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`,
  'markup compatibility keeps the fallback': `<w:p><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps">${run('choice')}</mc:Choice><mc:Fallback>${run('fallback')}</mc:Fallback></mc:AlternateContent></w:p>`,
  'content controls, hyperlinks, smart tags, custom XML; simple fields and unknown elements dropped': `<w:sdt><w:sdtContent>${paragraph('in a control')}</w:sdtContent></w:sdt><w:p><w:hyperlink w:anchor="x">${run('link')}</w:hyperlink><w:smartTag>${run(' tag')}</w:smartTag><w:customXml>${run(' custom')}</w:customXml><w:fldSimple w:instr="PAGE">${run('7')}</w:fldSimple><w:unknownThing>${run('unknown')}</w:unknownThing></w:p>`,
  'check-box content control and form check box': `<w:sdt><w:sdtPr><w14:checkbox xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml"/></w:sdtPr><w:sdtContent><w:p>${run('☐')}${run(' agree')}</w:p></w:sdtContent></w:sdt><w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> FORMCHECKBOX </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run('shown')}<w:r><w:fldChar w:fldCharType="end"/></w:r>${run(' label')}</w:p>`,
  'tables: merged cells dropped, deleted rows dropped': `<w:tbl><w:tblPr/><w:tblGrid/><w:tr><w:tc><w:tcPr><w:vMerge w:val="restart"/></w:tcPr>${paragraph('A1')}</w:tc><w:tc>${paragraph('B1')}</w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr>${paragraph('A2 merged')}</w:tc><w:tc>${paragraph('B2')}</w:tc></w:tr><w:tr><w:trPr><w:del w:id="9" w:author="A"/></w:trPr><w:tc>${paragraph('deleted row')}</w:tc></w:tr></w:tbl>`,
  'a table with a stray element keeps its merged cells': `<w:tbl><w:bookmarkStart w:id="0" w:name="b"/><w:tr><w:tc>${paragraph('A1')}</w:tc></w:tr><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr>${paragraph('A2 kept')}</w:tc></w:tr></w:tbl>`,
  'symbols from Wingdings and Symbol fonts': `<w:p><w:r><w:sym w:font="Wingdings" w:char="F0FC"/><w:sym w:font="Symbol" w:char="61"/><w:sym w:font="Nope" w:char="41"/></w:r></w:p>`,
  'empty text elements and comments': `<w:p><w:r><w:t/></w:r><!-- a comment -->${run('x')}</w:p>`,
};

describe('DOCX text equals mammoth extractRawText', () => {
  it.each(Object.entries(bodies))('%s', async (_, body) => {
    const docx = await buildDocx({ body });
    const want = await theirs(docx);
    expect(await ours(docx)).toBe(want);
  });

  it('another prefix for the same namespace, and strict OOXML', async () => {
    for (const ns of [W, 'http://purl.oclc.org/ooxml/wordprocessingml/main']) {
      const zip = await JSZip.loadAsync(await buildDocx());
      zip.file('word/document.xml', `<?xml version="1.0"?><x:document xmlns:x="${ns}"><x:body><x:p><x:r><x:t>prefixed</x:t></x:r></x:p></x:body></x:document>`);
      const docx = await zip.generateAsync({ type: 'nodebuffer' });
      expect(await ours(docx)).toBe(await theirs(docx));
      expect(await ours(docx)).toBe('prefixed\n\n');
    }
  });

  it('the main document part named by the package relationships, not its usual path', async () => {
    const zip = await JSZip.loadAsync(await buildDocx({ body: paragraph('usual path') }));
    zip.file('word/main.xml', `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${paragraph('named part')}</w:body></w:document>`);
    zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/word/main.xml"/></Relationships>');
    const docx = await zip.generateAsync({ type: 'nodebuffer' });
    expect(await ours(docx)).toBe('named part\n\n');
    expect(await ours(docx)).toBe(await theirs(docx));
  });

  it('malformed XML in the main document is refused, as mammoth refuses it', async () => {
    const docx = await buildDocx({ body: '<w:p><w:r><w:t>unclosed</w:r></w:p>' });
    await expect(theirs(docx)).rejects.toThrow();
    await expect(ours(docx)).rejects.toThrow();
  });
});

describe('a large main document part', () => {
  // Over 2 MB of XML: parsed in 1 MB chunks, with emoji (surrogate pairs) everywhere, so chunk ends fall inside them.
  const para = (i: number): string => `<w:p><w:r><w:t>${i} 😀 naïve café 😀😀</w:t></w:r></w:p>`;
  const xml = `<?xml version="1.0"?><w:document xmlns:w="${W}"><w:body>${Array.from({ length: 60_000 }, (_, i) => para(i)).join('')}</w:body></w:document>`;

  it('reads the same text across chunk boundaries', () => {
    expect(xml.length).toBeGreaterThan(2 * 1024 * 1024);
    const text = documentXmlText(xml)!;
    expect(text).toBe(Array.from({ length: 60_000 }, (_, i) => `${i} 😀 naïve café 😀😀\n\n`).join(''));
  });

  it('stops between chunks when the stop check says so', () => {
    let asked = 0;
    expect(documentXmlText(xml, () => ++asked > 1)).toBeUndefined();
    expect(asked).toBe(2);
  });

  it('an analysis out of time says the text was not extracted', async () => {
    const docx = await buildDocx({ body: Array.from({ length: 60_000 }, (_, i) => para(i)).join('') });
    let t = 0;
    const budget = new Budget(1000, undefined, () => (t += 400));
    const a = await analyzeDocx(docx, new Date('2025-06-01T00:00:00Z'), budget);
    expect(a.text).toBe('');
    expect(a.warnings).toContain('text extraction did not finish within the time budget; AI-text analysis had no text');
  });
});

describeFixtures('DOCX text on the shared mammoth fixtures', () => {
  it.each(readdirSync(fixture('docx')).filter((f) => f.endsWith('.docx')))('%s', async (f) => {
    const docx = readFileSync(fixture('docx', f));
    expect(await ours(docx)).toBe(await theirs(docx));
  });
});
