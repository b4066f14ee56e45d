/**
 * Builders for the difference-analysis and bounded-work tests: Flate bombs made without
 * compressing gigabytes, and incremental updates written by hand.
 */
import { deflateRawSync, constants as zc } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFName, PDFRef, PDFString, StandardFonts } from 'pdf-lib';
import { BYTE_RANGE_PLACEHOLDER, fillSignature, trailerOf } from './build.js';

/**
 * A zlib stream that inflates to `chunks` MiB of zeros, built from one compressed MiB repeated:
 * each piece ends on a sync flush, so pieces can be concatenated; a final empty block and the
 * Adler-32 of n zero bytes ((n mod 65521) << 16 | 1) close it. ~1 KB of output per MiB.
 */
export function zeroBomb(chunks: number): Buffer {
  const piece = deflateRawSync(Buffer.alloc(1024 * 1024), { finishFlush: zc.Z_SYNC_FLUSH });
  const n = chunks * 1024 * 1024;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((n % 65521) << 16) | 1) >>> 0);
  const parts: Buffer[] = [Buffer.from([0x78, 0x9c])];
  for (let i = 0; i < chunks; i++) parts.push(piece);
  parts.push(Buffer.from([0x03, 0x00]), adler);
  return Buffer.concat(parts);
}

/**
 * Writes a classic (non-incremental) PDF object by object, streams as raw bytes: for files pdf-lib
 * would not write (bombs, odd filters). `finish(count)` adds the xref for objects 1..count-1 with
 * object 1 as the catalog.
 */
function pdfFileWriter(): { obj(num: number, body: string, stream?: Buffer): void; finish(count: number): Buffer } {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Buffer | string): void => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    size += buf.length;
  };
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  return {
    obj(num, body, stream) {
      offsets[num] = size;
      push(`${num} 0 obj\n${body}\n`);
      if (stream) {
        push('stream\n');
        push(stream);
        push('\nendstream\n');
      }
      push('endobj\n');
    },
    finish(count) {
      const xrefAt = size;
      let xref = `xref\n0 ${count}\n0000000000 65535 f \n`;
      for (let i = 1; i < count; i++) xref += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
      push(`${xref}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`);
      return Buffer.concat(parts);
    },
  };
}

/** A one-page PDF whose page content is `streams` Flate streams of `mibEach` MiB of zeros each. */
export function flateBombPdf(streams: number, mibEach: number): Buffer {
  const bomb = zeroBomb(mibEach);
  const w = pdfFileWriter();
  const obj = w.obj;
  const contents = Array.from({ length: streams }, (_, i) => `${4 + i} 0 R`).join(' ');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${contents}] >>`);
  for (let i = 0; i < streams; i++) obj(4 + i, `<< /Length ${bomb.length} /Filter /FlateDecode >>`, bomb);
  return w.finish(4 + streams);
}

// ---- signed forms with hand-appended incremental updates


export interface FormPdf {
  pdf: Buffer;
  catalog: number;
  page: number;
  /** Field name → object number of the field dictionary. */
  fields: Record<string, number>;
  /** Field name → object number of its (separate) widget annotation. */
  widgets: Record<string, number>;
}

const lastBody = (pdf: Buffer, num: number): string => {
  const s = pdf.toString('latin1');
  const re = new RegExp(`(?:^|[^0-9])${num} 0 obj\\s*([\\s\\S]*?)\\s*endobj`, 'g');
  let m: RegExpExecArray | null;
  let body: string | undefined;
  while ((m = re.exec(s))) body = m[1];
  if (body === undefined) throw new Error(`object ${num} not found`);
  return body;
};
export { lastBody };

/** Adds entries to a dictionary body (before its closing >>), replacing keys it already has. */
export function setEntries(body: string, entries: Record<string, string>): string {
  let out = body;
  for (const key of Object.keys(entries)) out = out.replace(new RegExp(`/${key}\\s+(\\d+ \\d+ R|\\([^)]*\\)|/\\w+|\\[[^\\]]*\\]|<<[^>]*>>|[\\d.]+)`), '');
  const at = out.lastIndexOf('>>');
  return `${out.slice(0, at)} ${Object.entries(entries).map(([k, v]) => `/${k} ${v}`).join(' ')}\n>>`;
}

/**
 * A pdf-lib form: text fields `name` and `amount`, empty signature fields `Sig1`, `Sig2` and
 * the invisible `TS` (merged field/widget, as signers make them). With `sharedAppearance`, the catalog also points
 * at the appearance stream of `name`'s widget — the set-up of pyHanko's "sneaky" cases.
 */
export async function buildForm(o: { sharedAppearance?: boolean } = {}): Promise<FormPdf> {
  const doc = await PDFDocument.create();
  // Fixed dates (pdf-lib would use the wall clock), before the test signer's signing time.
  doc.setCreationDate(new Date('2024-12-01T09:00:00Z'));
  doc.setModificationDate(new Date('2024-12-01T09:05:00Z'));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText('Purchase order 77: please fill in and sign', { x: 50, y: 740, size: 12, font });
  const form = doc.getForm();
  for (const [name, y] of [['name', 650], ['amount', 600]] as const) {
    const f = form.createTextField(name);
    f.setText(name === 'name' ? 'Alice' : '100');
    f.addToPage(page, { x: 50, y, width: 200, height: 24, font });
  }
  const sigRefs: Record<string, number> = {};
  // Sig1 and Sig2 visible; TS invisible (zero-size), where document time-stamps go.
  for (const [name, y, h] of [['Sig1', 100, 50], ['Sig2', 200, 50], ['TS', 0, 0]] as const) {
    const ref = doc.context.register(doc.context.obj({ FT: 'Sig', T: PDFString.of(name), Type: 'Annot', Subtype: 'Widget', F: 132, Rect: h ? [50, y, 250, y + h] : [0, 0, 0, 0], P: page.ref }));
    form.acroForm.addField(ref);
    page.node.addAnnot(ref);
    sigRefs[name] = ref.objectNumber;
  }
  form.updateFieldAppearances(font);
  const fields: Record<string, number> = { ...sigRefs };
  const widgets: Record<string, number> = { ...sigRefs };
  for (const name of ['name', 'amount']) {
    const f = form.getTextField(name);
    fields[name] = f.ref.objectNumber;
    const w = f.acroField.getWidgets()[0]!;
    widgets[name] = doc.context.getObjectRef(w.dict)!.objectNumber;
  }
  if (o.sharedAppearance) {
    const w = form.getTextField('name').acroField.getWidgets()[0]!;
    const ap = w.getNormalAppearance();
    doc.catalog.set(PDFName.of('FooBar'), ap as never);
  }
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false, updateFieldAppearances: false }));
  return { pdf, catalog: (doc.context.trailerInfo.Root as PDFRef).objectNumber, page: page.ref.objectNumber, fields, widgets };
}

export const nextNum = (pdf: Buffer): number => trailerOf(pdf).size;

/** An incremental update (ISO 32000-1 §7.5.6): objects defined (body may carry a stream) and object numbers freed. */
export function appendRevision(pdf: Buffer, objects: { num: number; body: string }[], freed: number[] = []): Buffer {
  const t = trailerOf(pdf);
  let out = pdf.toString('latin1');
  if (!out.endsWith('\n')) out += '\n';
  const entries: [number, string][] = [];
  for (const o of objects) {
    entries.push([o.num, `${String(Buffer.byteLength(out, 'latin1')).padStart(10, '0')} 00000 n \n`]);
    out += `${o.num} 0 obj\n${o.body}\nendobj\n`;
  }
  for (const num of freed) entries.push([num, `0000000000 00001 f \n`]);
  const xrefAt = Buffer.byteLength(out, 'latin1');
  out += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [num, line] of entries.sort((a, b) => a[0] - b[0])) out += `${num} 1\n${line}`;
  const size = Math.max(t.size, ...objects.map((o) => o.num + 1));
  out += `trailer\n<< /Size ${size} /Root ${t.root}${t.info ? ` /Info ${t.info}` : ''} /Prev ${t.startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export const streamBody = (data: string, dict = ''): string => `<< /Length ${data.length}${dict ? ` ${dict}` : ''} >>\nstream\n${data}\nendstream`;

let keys: { dir: string; key: string; cert: string } | undefined;
function signerKeys(): { dir: string; key: string; cert: string } {
  if (!keys) {
    const dir = mkdtempSync(join(tmpdir(), 'verity-sigdiff-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=verity diff-analysis signer', '-days', '2', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    keys = { dir, key: join(dir, 'key.pem'), cert: join(dir, 'cert.pem') };
  }
  return keys;
}

/** The signer's certificate, DER, for DSS tests. */
export function signerCertDer(): Buffer {
  const k = signerKeys();
  return execFileSync('openssl', ['x509', '-in', k.cert, '-outform', 'DER']);
}

function cms(data: Buffer): Buffer {
  const k = signerKeys();
  const input = join(k.dir, `in-${process.pid}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(input, data);
  execFileSync('openssl', ['cms', '-sign', '-binary', '-md', 'sha256', '-in', input, '-signer', k.cert, '-inkey', k.key, '-outform', 'DER', '-out', `${input}.p7s`], { stdio: 'ignore' });
  return readFileSync(`${input}.p7s`);
}

const CONTENTS_HEX = 8192;

export interface SignOptions {
  /** Certify with DocMDP /P 1, 2 or 3 (the catalog gets /Perms /DocMDP). */
  certify?: 1 | 2 | 3;
  /** FieldMDP: lock these fields (/Action /Include) when signing. */
  lock?: string[];
  /** Sign as a document time-stamp (/Type /DocTimeStamp, /ETSI.RFC3161), normally into the invisible field `TS`. */
  timeStamp?: boolean;
}

/** Signs the empty signature field `field` in a new incremental update, covering the whole file. */
export function signField(f: FormPdf, pdf: Buffer, field: string, o: SignOptions = {}): Buffer {
  const sigNum = nextNum(pdf);
  const ref = o.certify
    ? ` /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${o.certify} /V /1.2 >> >>]`
    : o.lock
      ? ` /Reference [<< /Type /SigRef /TransformMethod /FieldMDP /TransformParams << /Type /TransformParams /Action /Include /Fields [${o.lock.map((n) => `(${n})`).join(' ')}] /V /1.2 >> >>]`
      : '';
  const type = o.timeStamp ? '/Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161' : '/Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /M (D:20250101120000Z)';
  const sig = `<< ${type}${ref} /ByteRange ${BYTE_RANGE_PLACEHOLDER} /Contents <${'0'.repeat(CONTENTS_HEX)}> >>`;
  const fieldNum = f.fields[field]!;
  const objects = [{ num: fieldNum, body: setEntries(lastBody(pdf, fieldNum), { V: `${sigNum} 0 R` }) }, { num: sigNum, body: sig }];
  if (o.certify) objects.push({ num: f.catalog, body: setEntries(lastBody(pdf, f.catalog), { Perms: `<< /DocMDP ${sigNum} 0 R >>` }) });
  const withSig = appendRevision(pdf, objects);
  return fillSignature(withSig, CONTENTS_HEX, cms);
}

/** Fills text field `name` in a new revision: a new value and a new appearance stream on its widget. */
export function fillField(f: FormPdf, pdf: Buffer, name: string, value: string): Buffer {
  const ap = nextNum(pdf);
  const text = `/Tx BMC BT /Helv 12 Tf 2 6 Td (${value}) Tj ET EMC`;
  return appendRevision(pdf, [
    { num: f.fields[name]!, body: setEntries(lastBody(pdf, f.fields[name]!), { V: `(${value})` }) },
    { num: f.widgets[name]!, body: setEntries(lastBody(pdf, f.widgets[name]!), { AP: `<< /N ${ap} 0 R >>` }) },
    { num: ap, body: streamBody(text, '/Type /XObject /Subtype /Form /BBox [0 0 200 24]') },
  ]);
}

/** The object number of the normal appearance stream of a widget, as last written. */
export function appearanceOf(pdf: Buffer, widget: number): number {
  return Number(/\/N\s+(\d+) 0 R/.exec(lastBody(pdf, widget))![1]);
}

// ---- LZW (§7.4.4, EarlyChange 1), written here to test the decoded-length counter

class BitWriter {
  private bytes: number[] = [];
  private acc = 0;
  private bits = 0;
  write(code: number, width: number): void {
    this.acc = (this.acc << width) | code;
    this.bits += width;
    while (this.bits >= 8) {
      this.bytes.push((this.acc >>> (this.bits - 8)) & 0xff);
      this.bits -= 8;
      this.acc &= (1 << this.bits) - 1;
    }
  }
  done(): Buffer {
    if (this.bits > 0) this.bytes.push((this.acc << (8 - this.bits)) & 0xff);
    return Buffer.from(this.bytes);
  }
}

/** The code width the decoder expects when the encoder has `next` entries allocated. */
const widthFor = (next: number): number => (next < 512 ? 9 : next < 1024 ? 10 : next < 2048 ? 11 : 12);

/** A plain LZW encoder (no table resets: the table stays full at 4,096 entries). */
export function lzwEncode(data: Buffer): Buffer {
  const out = new BitWriter();
  const dict = new Map<string, number>();
  let next = 258;
  out.write(256, 9);
  let w = '';
  for (const byte of data) {
    const c = String.fromCharCode(byte);
    const wc = w + c;
    if (w === '' || dict.has(wc)) {
      w = wc;
      continue;
    }
    out.write(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!, widthFor(next));
    if (next < 4096) dict.set(wc, next++);
    w = c;
  }
  if (w) out.write(w.length === 1 ? w.charCodeAt(0) : dict.get(w)!, widthFor(next));
  out.write(257, widthFor(next));
  return out.done();
}

/** LZW for `n` zero bytes without building strings: entry 258 + k holds k + 2 zeros. */
export function lzwZeros(n: number): Buffer {
  const out = new BitWriter();
  let next = 258;
  out.write(256, 9);
  let left = n;
  while (left > 0) {
    // The longest entry so far (or the literal 0) that fits.
    const longest = next > 258 ? next - 258 + 1 : 1; // entries 258..next-1 hold 2..next-256 zeros
    const len = Math.min(longest, left);
    out.write(len === 1 ? 0 : 258 + len - 2, widthFor(next));
    if (next < 4096) next++;
    left -= len;
  }
  out.write(257, widthFor(next));
  return out.done();
}

/** A one-page PDF (Helvetica as /F1) whose content is the given streams, each with its filter. */
export function onePagePdf(streams: { filter: string; data: Buffer }[]): Buffer {
  const w = pdfFileWriter();
  const obj = w.obj;
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents [${streams.map((_, i) => `${4 + i} 0 R`).join(' ')}] >>`);
  streams.forEach((st, i) => obj(4 + i, `<< /Length ${st.data.length} /Filter /${st.filter} >>`, st.data));
  return w.finish(4 + streams.length);
}

/** Signed in Sig1, then in Sig2, then the page's text rewritten in a third update. */
export function signedTwiceThenEdited(f: FormPdf): Buffer {
  const twice = signField(f, signField(f, f.pdf, 'Sig1'), 'Sig2');
  const contents = /\/Contents\s*\[?\s*(\d+) 0 R/.exec(lastBody(twice, f.page))![1]!;
  return appendRevision(twice, [{ num: Number(contents), body: streamBody('BT /F1 12 Tf 50 740 Td (Purchase order 77: pay 9999 to Mallory) Tj ET') }]);
}
