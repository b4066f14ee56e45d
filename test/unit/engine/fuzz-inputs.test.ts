/**
 * Issue 28: a seeded fuzz suite through the engine. Valid JPEG, PNG (sharp), PDF (pdf-lib), DOCX
 * and plain ZIP (jszip) files are built here, then mutated by a seeded generator: byte flips,
 * truncation, runs of garbage, and for the packages corruption of one part's XML or of its
 * compressed stream. Every input must end in a result or in the client's error (422 corrupt, 415
 * not a type we read, 413 over a limit): never INTERNAL_ERROR, never a stray exception. Time is
 * bounded by the XML budget and the engine's own budgets; this suite's timeout is the backstop
 * (no timing assertions). The seed is printed in each case's name: a failure repeats exactly.
 */
import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { createEngine } from '../../../src/engine/index.js';
import { appXml, buildDocx, coreXml, paragraph, testPorts } from '../document/build.js';
import { CAMERA_EXIF, cameraJpeg, scene } from '../media/helpers.js';
import { rng } from '../../helpers/seeded-random.js';

const engine = createEngine(testPorts());
/** Errors that are the input's fault: what a mutated file may give. */
const CLIENT_CODES = new Set(['UNPROCESSABLE_CONTENT', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE']);


type Mutation = (b: Buffer, r: () => number) => Buffer;
const int = (r: () => number, n: number) => Math.floor(r() * n);
const flips: Mutation = (b, r) => {
  const out = Buffer.from(b);
  const n = 1 + int(r, 8);
  for (let i = 0; i < n; i++) {
    const at = int(r, out.length);
    out[at] = out[at]! ^ (1 << int(r, 8));
  }
  return out;
};
const truncate: Mutation = (b, r) => b.subarray(0, 1 + int(r, b.length - 1));
const garbage: Mutation = (b, r) => {
  const out = Buffer.from(b);
  const at = int(r, out.length);
  const len = Math.min(out.length - at, 1 + int(r, 64));
  for (let i = 0; i < len; i++) out[at + i] = int(r, 256);
  return out;
};
const BYTE_MUTATIONS: Mutation[] = [flips, truncate, garbage];

/** A part of a package rewritten: a character dropped, a tag opened, the text cut, a nesting run added. */
async function corruptPart(docx: Buffer, r: () => number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  const parts = Object.keys(zip.files).filter((p) => !zip.files[p]!.dir && (p.endsWith('.xml') || p.endsWith('.rels')));
  const part = parts[int(r, parts.length)]!;
  let xml = await zip.file(part)!.async('string');
  const at = int(r, xml.length);
  switch (int(r, 5)) {
    case 0:
      xml = xml.slice(0, at) + xml.slice(at + 1);
      break;
    case 1:
      xml = `${xml.slice(0, at)}<${xml.slice(at)}`;
      break;
    case 2:
      xml = xml.slice(0, at);
      break;
    case 3:
      xml = `${xml.slice(0, at)}<!DOCTYPE x [<!ENTITY e "e">]>${xml.slice(at)}`;
      break;
    default: {
      const close = xml.lastIndexOf('</');
      const n = 100 + int(r, 5000);
      xml = close > 0 ? `${xml.slice(0, close)}${'<n>'.repeat(n)}${'</n>'.repeat(n)}${xml.slice(close)}` : xml;
    }
  }
  zip.file(part, xml);
  return zip.generateAsync({ type: 'nodebuffer', compression: int(r, 2) ? 'DEFLATE' : 'STORE' });
}

/** The compressed bytes of one package part overwritten in place (jszip's stream and size checks). */
async function corruptStream(docx: Buffer, r: () => number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(docx);
  const names = Object.keys(zip.files).filter((p) => !zip.files[p]!.dir);
  const entry = (zip.file(names[int(r, names.length)]!) as unknown as { _data: { compressedContent: Uint8Array } })._data.compressedContent;
  const out = Buffer.from(docx);
  const at = out.indexOf(Buffer.from(entry.subarray(0, Math.min(12, entry.length))));
  if (at < 0 || entry.length === 0) return flips(out, r);
  const len = Math.min(entry.length, 1 + int(r, 16));
  const from = at + int(r, entry.length - len + 1);
  for (let i = 0; i < len; i++) out[from + i] = int(r, 256);
  return out;
}

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (err) {
    if (!(err instanceof VerityError)) return `thrown ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`;
    return err.code;
  }
}

const expectClientOutcome = (got: string) => {
  if (got !== 'ok' && !CLIENT_CODES.has(got)) expect.fail(`expected a result or a client error code, got ${got}`);
};

async function seeds(): Promise<{ jpeg: Buffer; png: Buffer; pdf: Buffer; docx: Buffer; zip: Buffer }> {
  // Large enough for the pixel forensics (at least 4 tiles of 64×64), with camera EXIF.
  const raw = scene(192, 160, 5);
  const img = sharp(raw, { raw: { width: 192, height: 160, channels: 3 } });
  const pdfDoc = await PDFDocument.create();
  const font = await pdfDoc.embedFont(StandardFonts.Helvetica);
  pdfDoc.addPage([300, 200]).drawText('Invoice 7: total due 12.00 EUR', { x: 20, y: 150, size: 10, font });
  pdfDoc.setAuthor('Fuzz');
  pdfDoc.setCreationDate(new Date('2024-01-01T00:00:00Z'));
  pdfDoc.setModificationDate(new Date('2024-01-02T00:00:00Z'));
  const plainZip = new JSZip();
  plainZip.file('readme.txt', 'not a document');
  plainZip.file('data/values.xml', '<values><v>1</v><v>2</v></values>');
  const body = [paragraph('Quarterly statement.'), '<w:p><w:ins w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:t>x</w:t></w:r></w:ins></w:p>', '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'].join('');
  const settings = '<?xml version="1.0"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:rsids><w:rsid w:val="00A1"/></w:rsids></w:settings>';
  return {
    jpeg: await cameraJpeg(raw, 192, 160),
    png: await img.clone().withExif(CAMERA_EXIF).png().toBuffer(),
    pdf: Buffer.from(await pdfDoc.save({ useObjectStreams: false })),
    docx: await buildDocx({ body, settings, core: coreXml('2024-03-01T09:00:00Z', '2024-03-02T10:00:00Z'), app: appXml() }),
    zip: await plainZip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }),
  };
}

const COUNTS = { jpeg: 60, png: 60, pdf: 60, docx: 200, zip: 40 };
const SEED = 28_2026;

describe('seeded fuzz: mutated files end in a result or a client error (never INTERNAL_ERROR)', () => {
  it(`JPEG, PNG, PDF, DOCX and ZIP (${Object.values(COUNTS).reduce((a, b) => a + b)} inputs, seed ${SEED})`, { timeout: 120_000 }, async () => {
    const base = await seeds();
    const failures: string[] = [];
    const tally: Record<string, number> = {};
    for (const [kind, n] of Object.entries(COUNTS) as [keyof typeof COUNTS, number][]) {
      for (let i = 0; i < n; i++) {
        const seed = SEED + i * 7919 + kind.length * 104_729;
        const r = rng(seed);
        const pkg = kind === 'docx' || kind === 'zip';
        const pick = int(r, pkg ? 5 : 3);
        const bytes = pick < 3 ? BYTE_MUTATIONS[pick]!(base[kind], r) : pick === 3 ? await corruptPart(base[kind], r) : await corruptStream(base[kind], r);
        const got = await outcome(() =>
          kind === 'jpeg' || kind === 'png'
            ? engine.verifyMedia({ file: bytes.toString('base64'), check_provenance: false })
            : engine.verifyDocument({ source: 'upload', content: bytes.toString('base64') }),
        );
        tally[`${kind} ${got}`] = (tally[`${kind} ${got}`] ?? 0) + 1;
        if (got !== 'ok' && !CLIENT_CODES.has(got)) failures.push(`${kind} seed ${seed} mutation ${pick}: ${got}`);
      }
    }
    // Printed so a run shows what the mutations reached (results vs each error code).
    console.log(JSON.stringify(tally));
    expect(failures).toEqual([]);
    // The mutations must reach the readers, not only the type check.
    expect(Object.keys(tally).some((k) => k.startsWith('docx UNPROCESSABLE_CONTENT'))).toBe(true);
    expect(Object.keys(tally).some((k) => k === 'docx ok')).toBe(true);
  });

  it('the outcome check itself tells a stray exception from a client error', async () => {
    expect(await outcome(async () => Promise.reject(new TypeError('boom')))).toMatch(/^thrown TypeError/);
    expect(await outcome(async () => Promise.reject(new VerityError('UNPROCESSABLE_CONTENT', 'x')))).toBe('UNPROCESSABLE_CONTENT');
    expectClientOutcome('ok');
  });
});
