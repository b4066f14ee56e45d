/**
 * Builds real test documents: PDFs with pdf-lib plus hand-written incremental updates (the way
 * signing tools and editors append them), CMS signatures made by openssl with a throw-away key,
 * and DOCX packages with jszip.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import type { EnginePorts } from '../../../src/engine/types.js';

export const FIXED_NOW = new Date('2025-06-01T12:00:00Z');

export function testPorts(overrides: Partial<EnginePorts> = {}): EnginePorts {
  const offline = async (): Promise<never> => {
    throw new Error('no network in this test');
  };
  return {
    clock: { now: () => FIXED_NOW },
    config: {},
    http: { request: offline, getJson: offline },
    fetchInput: offline,
    ...overrides,
  };
}

export const PROSE_HUMAN =
  "I wasn't sure the old boat would make it past the breakwater. Dad said it would. He always says that. We loaded the cooler, two rods, a bag of bread that had gone a bit stale, and my sister's radio, which only picks up one station (country, naturally). The engine coughed twice; then it caught. Gulls followed us out. By noon we'd caught nothing but sunburn, and honestly? Nobody minded much. Mum rang at one to ask where the car keys were. They were in my pocket. Oops.";

export interface PdfOptions {
  text?: string;
  pages?: number;
  info?: boolean;
  creationDate?: Date;
  modDate?: Date;
  xmp?: { create: string; modify: string } | null;
}

/** A PDF with classic xref tables (no object streams), so incremental updates can be appended by hand. */
export async function buildPdf(o: PdfOptions = {}): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: o.info !== false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < (o.pages ?? 1); p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(o.text ?? 'Invoice 1042: total due 1,250.00 EUR', { x: 50, y: 700, size: 12, font });
  }
  if (o.info !== false) {
    doc.setProducer('verity-tests');
    doc.setAuthor('Test Author');
    // Fixed dates (pdf-lib would use the wall clock), before the test signer's signing time.
    doc.setCreationDate(o.creationDate ?? new Date('2024-12-01T09:00:00Z'));
    doc.setModificationDate(o.modDate ?? new Date('2024-12-01T09:05:00Z'));
  }
  if (o.xmp) {
    const xml = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmp:CreateDate="${o.xmp.create}" xmp:ModifyDate="${o.xmp.modify}" pdf:Producer="verity-tests"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
    const stream = doc.context.stream(xml, { Type: 'Metadata', Subtype: 'XML' });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

export interface TrailerInfo {
  size: number;
  root: string;
  info: string | null;
  startxref: number;
}

export function trailerOf(pdf: Buffer): TrailerInfo {
  const s = pdf.toString('latin1');
  const t = s.lastIndexOf('trailer');
  const dict = s.slice(t, s.indexOf('startxref', t));
  return {
    size: Number(/\/Size (\d+)/.exec(dict)![1]),
    root: /\/Root (\d+ \d+ R)/.exec(dict)![1]!,
    info: /\/Info (\d+ \d+ R)/.exec(dict)?.[1] ?? null,
    startxref: Number(/startxref\s+(\d+)/.exec(s.slice(s.lastIndexOf('startxref')))![1]),
  };
}

/** Finds the object number of the first object whose dictionary matches `re`. */
export function findObject(pdf: Buffer, re: RegExp): { num: number; body: string } {
  const s = pdf.toString('latin1');
  const objRe = /(\d+) 0 obj\s*([\s\S]*?)endobj/g;
  let m: RegExpExecArray | null;
  while ((m = objRe.exec(s))) if (re.test(m[2]!)) return { num: Number(m[1]), body: m[2]! };
  throw new Error(`no object matches ${re}`);
}

/** Appends an incremental update (ISO 32000-1 §7.5.6) defining `objects`, with an xref table and /Prev. */
export function appendUpdate(pdf: Buffer, objects: { num: number; body: string }[]): Buffer {
  const t = trailerOf(pdf);
  let out = pdf.toString('latin1');
  if (!out.endsWith('\n')) out += '\n';
  const offsets: [number, number][] = [];
  for (const o of objects) {
    offsets.push([o.num, Buffer.byteLength(out, 'latin1')]);
    out += `${o.num} 0 obj\n${o.body}\nendobj\n`;
  }
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += 'xref\n';
  for (const [num, off] of offsets.sort((a, b) => a[0] - b[0])) out += `${num} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  const size = Math.max(t.size, ...objects.map((o) => o.num + 1));
  out += `trailer\n<< /Size ${size} /Root ${t.root}${t.info ? ` /Info ${t.info}` : ''} /Prev ${t.startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export function nextObjectNumber(pdf: Buffer): number {
  return trailerOf(pdf).size;
}

export function contentStream(text: string): string {
  const ops = `BT /F1 12 Tf 50 700 Td (${text}) Tj ET`;
  return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
}

// ---- CMS signatures with openssl and a throw-away self-signed certificate

let keyDir: string | undefined;
function signer(): { key: string; cert: string } {
  if (!keyDir) {
    keyDir = mkdtempSync(join(tmpdir(), 'verity-doc-sign-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=verity test signer', '-days', '2', '-keyout', join(keyDir, 'key.pem'), '-out', join(keyDir, 'cert.pem')], { stdio: 'ignore' });
  }
  return { key: join(keyDir, 'key.pem'), cert: join(keyDir, 'cert.pem') };
}

function cmsSign(data: Buffer): Buffer {
  const { key, cert } = signer();
  const input = join(keyDir!, `data-${process.pid}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(input, data);
  // Detached CMS with signed attributes (messageDigest), as adbe.pkcs7.detached requires.
  execFileSync('openssl', ['cms', '-sign', '-binary', '-md', 'sha256', '-in', input, '-signer', cert, '-inkey', key, '-outform', 'DER', '-out', `${input}.p7s`], { stdio: 'ignore' });
  return readFileSync(`${input}.p7s`);
}

const CONTENTS_HEX = 16384;

/** The /ByteRange every test signer writes first; fillSignature replaces it once offsets are known. */
export const BYTE_RANGE_PLACEHOLDER = '[0 0000000000 0000000000 0000000000]';

/**
 * Completes the newest signature of `withSig` (ISO 32000-1 §12.8.1): the last /ByteRange
 * placeholder becomes the range covering everything but the /Contents hex string, and /Contents
 * gets `sign(those bytes)` as hex, padded to the `contentsHex` digits reserved for it.
 */
export function fillSignature(withSig: Buffer, contentsHex: number, sign: (signedBytes: Buffer) => Buffer): Buffer {
  const s = withSig.toString('latin1');
  const start = s.lastIndexOf('/Contents <') + '/Contents '.length;
  const end = start + contentsHex + 2;
  const pad = (n: number): string => String(n).padStart(10, '0');
  const range = `[0 ${pad(start)} ${pad(end)} ${pad(withSig.length - end)}]`;
  const at = s.lastIndexOf(BYTE_RANGE_PLACEHOLDER);
  const filled = Buffer.from(s.slice(0, at) + range + s.slice(at + BYTE_RANGE_PLACEHOLDER.length), 'latin1');
  const hex = sign(Buffer.concat([filled.subarray(0, start), filled.subarray(end)])).toString('hex').padEnd(contentsHex, '0');
  if (hex.length > contentsHex) throw new Error('signature too large for the placeholder');
  filled.write(hex, start + 1, 'latin1');
  return filled;
}

/** Signs the whole current file in a new incremental update, the way PDF signers do. */
export function signPdf(pdf: Buffer): Buffer {
  const num = nextObjectNumber(pdf);
  const sig = `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /M (D:20250101120000Z) /ByteRange ${BYTE_RANGE_PLACEHOLDER} /Contents <${'0'.repeat(CONTENTS_HEX)}> >>`;
  const withSig = appendUpdate(pdf, [{ num, body: sig }]);
  return fillSignature(withSig, CONTENTS_HEX, cmsSign);
}

// ---- DOCX

export interface DocxOptions {
  core?: string | null;
  app?: string | null;
  body?: string;
  settings?: string;
  extraParts?: Record<string, string>;
}

export const coreXml = (created: string, modified: string, extra = ''): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>Alice Analyst</dc:creator><cp:lastModifiedBy>Bob Editor</cp:lastModifiedBy><cp:revision>3</cp:revision><dcterms:created xsi:type="dcterms:W3CDTF">${created}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${modified}</dcterms:modified>${extra}</cp:coreProperties>`;

export const appXml = (pages = 2, totalTime = 12): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Office Word</Application><AppVersion>16.0000</AppVersion><TotalTime>${totalTime}</TotalTime><Pages>${pages}</Pages></Properties>`;

export const paragraph = (text: string): string => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

export async function buildDocx(o: DocxOptions = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${o.body ?? paragraph('Quarterly statement for account 00417.')}</w:body></w:document>`);
  if (o.settings) zip.file('word/settings.xml', o.settings);
  const core = o.core === undefined ? coreXml('2024-03-01T09:00:00Z', '2024-03-02T10:00:00Z') : o.core;
  const app = o.app === undefined ? appXml() : o.app;
  if (core !== null) zip.file('docProps/core.xml', core);
  if (app !== null) zip.file('docProps/app.xml', app);
  for (const [p, v] of Object.entries(o.extraParts ?? {})) zip.file(p, v);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export const b64 = (b: Buffer): string => b.toString('base64');
