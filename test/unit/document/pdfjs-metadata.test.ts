/**
 * pdfjs-metadata.ts gives the Info strings and the XMP packet pdf.js gives, without pdf.js: each
 * case is read both ways and compared (pdf.js 5.4 through pdfjs-reader.ts, as the engine reads it).
 */
import { deflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts, type PDFObject } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { pdfJsInfo, pdfJsTextString, pdfJsXmp } from '../../../src/engine/document/pdf/pdfjs-metadata.js';
import { openPdfJs } from '../../../src/engine/document/pdf/pdfjs-reader.js';
import { readPdfStructure } from '../../../src/engine/document/pdf/structure.js';
import { DocObjects } from '../../../src/engine/document/pdf/text/doc-objects.js';

const TEXT_KEYS = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];

/** A one-page PDF whose Info dictionary holds `info` and whose catalog gets `catalog` entries. */
async function pdfWith(info: Record<string, PDFObject>, catalog: (doc: PDFDocument) => Record<string, PDFObject> = () => ({})): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([200, 200]).drawText('Metadata test page.', { x: 20, y: 100, size: 10, font });
  const infoDict = doc.context.obj({});
  for (const [k, v] of Object.entries(info)) infoDict.set(PDFName.of(k), v);
  doc.context.trailerInfo.Info = doc.context.register(infoDict);
  for (const [k, v] of Object.entries(catalog(doc))) doc.catalog.set(PDFName.of(k), v);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A PDF string literal holding these raw bytes (pdf-lib escapes what needs it). */
const raw = (bytes: number[]): PDFHexString => PDFHexString.of(Buffer.from(bytes).toString('hex'));

async function pdfJsReading(bytes: Buffer): Promise<{ info: Record<string, string>; xmpRaw: string | null }> {
  const doc = await openPdfJs(bytes);
  try {
    const info: Record<string, string> = {};
    for (const k of TEXT_KEYS) if (typeof doc.info[k] === 'string') info[k] = doc.info[k] as string;
    return { info, xmpRaw: doc.xmpRaw };
  } finally {
    await doc.destroy();
  }
}

async function expectLikePdfJs(bytes: Buffer): Promise<{ info: Record<string, string>; xmpRaw: string | null }> {
  const s = readPdfStructure(bytes);
  const objs = new DocObjects(bytes, s);
  const ours = { info: pdfJsInfo(objs, s), xmpRaw: pdfJsXmp(objs, s) };
  const theirs = await pdfJsReading(bytes);
  expect(ours).toEqual(theirs);
  return theirs;
}

const utf16be = (text: string): number[] => [0xfe, 0xff, ...Buffer.from(text, 'utf16le').swap16()];
const utf16le = (text: string): number[] => [0xff, 0xfe, ...Buffer.from(text, 'utf16le')];

describe('Info strings as pdf.js decodes them', () => {
  const cases: [string, number[]][] = [
    ['ASCII', [...Buffer.from('Quarterly report')]],
    ['PDFDocEncoding: bullet, ligatures, euro, breve, Latin-1 and the undefined 0x9F', [0x80, 0x20, 0x93, 0x94, 0xa0, 0x18, 0xe9, 0x9f, 0x41]],
    ['an escape sequence in PDFDocEncoding', [0x41, 0x1b, 0x65, 0x6e, 0x1b, 0x42]],
    ['an escape sequence left open', [0x41, 0x1b, 0x65, 0x6e]],
    ['UTF-16BE', utf16be('Rapport annuel – été 2025 ✓')],
    ['UTF-16BE, odd length', [...utf16be('Odd'), 0x41]],
    ['UTF-16BE with a language escape', [...utf16be('A'), 0x00, 0x1b, 0x65, 0x6e, 0x00, 0x1b, ...Buffer.from('\0B')]],
    ['UTF-16BE with a lone surrogate (not valid: read as PDFDocEncoding)', [0xfe, 0xff, 0xd8, 0x00, 0x00, 0x41]],
    ['UTF-16LE', utf16le('Überblick')],
    ['UTF-8 with a mark', [0xef, 0xbb, 0xbf, ...Buffer.from('Zürich ✓')]],
    ['UTF-8 mark, invalid body', [0xef, 0xbb, 0xbf, 0xc3, 0x28]],
    ['starts with 0xEF but no mark', [0xef, 0x41, 0x42]],
    ['empty', []],
  ];
  for (const [name, bytes] of cases)
    it(name, async () => {
      const got = await expectLikePdfJs(await pdfWith({ Title: raw(bytes), Author: PDFString.of('A. Writer') }));
      expect(got.info.Author).toBe('A. Writer');
    });

  it('every Info key verity reads, indirect strings, and values that are not strings', async () => {
    const bytes = await pdfWith({
      Author: PDFString.of('J. Doe'),
      Creator: PDFString.of('Writer'),
      Producer: PDFString.of('LibreOffice 7.5'),
      CreationDate: PDFString.of("D:20240101120000+01'00'"),
      ModDate: PDFString.of('D:20240102'),
      Subject: PDFName.of('NotAString'),
      Keywords: PDFString.of('a, b'),
      Trapped: PDFName.of('False'),
    });
    const got = await expectLikePdfJs(bytes);
    expect(got.info).not.toHaveProperty('Subject');
    expect(got.info.Producer).toBe('LibreOffice 7.5');
  });

  it('an indirect Title string', async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([100, 100]);
    const title = doc.context.register(PDFString.of('Indirect title'));
    doc.context.trailerInfo.Info = doc.context.register(doc.context.obj({ Title: title }));
    const got = await expectLikePdfJs(Buffer.from(await doc.save({ useObjectStreams: false })));
    expect(got.info.Title).toBe('Indirect title');
  });

  it('no Info dictionary', async () => {
    const doc = await PDFDocument.create({ updateMetadata: false });
    doc.addPage([100, 100]);
    expect((await expectLikePdfJs(Buffer.from(await doc.save()))).info).toEqual({});
  });

  it('matches pdf.js on random byte strings', async () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = [0x00, 0x1b, 0x18, 0x41, 0x7f, 0x80, 0x93, 0x9f, 0xa0, 0xc3, 0xd8, 0xdc, 0xe9, 0xef, 0xbb, 0xbf, 0xfe, 0xff];
    const info: Record<string, PDFObject> = {};
    const keys = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer'];
    for (const k of keys) {
      const len = Math.floor(rnd() * 9);
      const starts = [[], [0xfe, 0xff], [0xff, 0xfe], [0xef, 0xbb, 0xbf]][Math.floor(rnd() * 4)]!;
      info[k] = raw([...starts, ...Array.from({ length: len }, () => pick[Math.floor(rnd() * pick.length)]!)]);
    }
    await expectLikePdfJs(await pdfWith(info));
  });

  it('decodes as pdf.js documents: a few fixed strings', () => {
    expect(pdfJsTextString('\x80 \x93')).toBe('\u2022 \ufb01');
    expect(pdfJsTextString('\xfe\xff\x00A\x00')).toBe('A');
  });
});

describe('the XMP packet as pdf.js returns it', () => {
  const XMP = '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreatorTool>Zürich Writer</xmp:CreatorTool></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const withXmp = (data: Buffer, dict: Record<string, string> = { Type: 'Metadata', Subtype: 'XML' }, opts: { direct?: boolean; flate?: boolean } = {}) =>
    pdfWith({ Producer: PDFString.of('test') }, (doc) => {
      const entries: Record<string, PDFObject> = {};
      for (const [k, v] of Object.entries(dict)) entries[k] = PDFName.of(v);
      if (opts.flate) entries.Filter = PDFName.of('FlateDecode');
      const stream = doc.context.stream(opts.flate ? deflateSync(data) : data, entries);
      return { Metadata: opts.direct ? (stream as unknown as PDFDict) : doc.context.register(stream) };
    });

  it('a plain packet', async () => expect((await expectLikePdfJs(await withXmp(Buffer.from(XMP)))).xmpRaw).toContain('Zürich Writer'));
  it('Flate-compressed', async () => expect((await expectLikePdfJs(await withXmp(Buffer.from(XMP), undefined, { flate: true }))).xmpRaw).toContain('<x:xmpmeta'));
  it('a UTF-8 mark and blanks before the first <', async () => {
    const got = await expectLikePdfJs(await withXmp(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`  \n${XMP}`)])));
    expect(got.xmpRaw?.startsWith('<?xpacket')).toBe(true);
  });
  it('not valid UTF-8: no packet', async () => expect((await expectLikePdfJs(await withXmp(Buffer.from([0x3c, 0x61, 0xff, 0x3e])))).xmpRaw).toBeNull());
  it('empty: no packet', async () => expect((await expectLikePdfJs(await withXmp(Buffer.alloc(0)))).xmpRaw).toBeNull());
  it('no /Subtype /XML: no packet', async () => expect((await expectLikePdfJs(await withXmp(Buffer.from(XMP), { Type: 'Metadata' }))).xmpRaw).toBeNull());
  it('XML that does not parse is still returned', async () => expect((await expectLikePdfJs(await withXmp(Buffer.from('<x:xmpmeta><unclosed>')))).xmpRaw).toBe('<x:xmpmeta><unclosed>'));
  it('pdf.js rewrites octal-escaped UTF-16: not reproduced, said so', async () => {
    const bytes = await withXmp(Buffer.from('<a>\\376\\377\\000A</a>'));
    const s = readPdfStructure(bytes);
    expect(pdfJsXmp(new DocObjects(bytes, s), s)).toEqual({ notLikePdfJs: expect.stringContaining('UTF-16') });
  });
});
