/**
 * The bundled pdf.js (dist/pdfjs.cjs) is patched by scripts/build.mjs: it inflates Flate streams
 * with node:zlib when zlib decodes them completely, and with pdf.js's own decoder otherwise
 * (src/engine/document/pdf/native-flate.ts); it takes DOMMatrix from @napi-rs/canvas's JavaScript
 * geometry module instead of loading the package's native binding as it loads
 * (src/engine/document/pdf/canvas-for-text.ts); its decoders stop at the decompression caps
 * (src/engine/document/pdf/decode-cap.ts); and its page-tree walk leaves no failed prefetch of a
 * page unhandled (the last describe). Every PDF here — valid streams and damaged ones (truncated, a
 * wrong or missing Adler-32, trailing bytes, no final block, flipped bytes, a filter chain), a
 * Type 3 font whose glyph is an image mask (pdf.js builds a DOMMatrix for it), broken page trees —
 * must read exactly as the unpatched pdf.js from pdfjs-dist reads it: same page count, same text,
 * same error. Each side runs in a child process of its own (pdf.js registers its worker globally).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync, constants as zc } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenPageTrees } from '../helpers/broken-page-trees.js';
import { rawPdf } from '../helpers/raw-pdf.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * A one-page PDF whose content stream is `stream` (already encoded) with the given /Filter; `extra`
 * objects (numbered from 6) and font resources may be added.
 */
function pdfWith(stream: Buffer, filter: string, extra: { fonts?: string; objects?: (string | Buffer)[] } = {}): Buffer {
  const objects: (string | Buffer | null)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R ${extra.fonts ?? ''} >> >> /Contents 4 0 R >>`,
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...(extra.objects ?? []),
  ];
  const body = Buffer.concat([Buffer.from(`<< /Length ${stream.length} /Filter ${filter} >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]);
  return rawPdf(objects.map((o) => o ?? body));
}

/**
 * A one-page PDF as most writers save it today: a cross-reference stream (Flate, PNG Up predictor)
 * and, in a Flate object stream, the document's Info dictionary (`info`, object 6) and then
 * `title` (object 9: the stream's last object) when given.
 */
function pdfWithObjectStream(info: string, title?: string): Buffer {
  const page = deflateSync(Buffer.from('BT /F1 12 Tf 50 700 Td (Inside an object stream file) Tj ET\n', 'latin1'));
  const header = title === undefined ? '6 0 ' : `6 0 9 ${info.length + 1} `.padEnd(16);
  const objStmBody = Buffer.from(`${header}${info}${title === undefined ? '' : ` ${title}`}`, 'latin1');
  const objStm = deflateSync(objStmBody);
  const bodies: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>', 'latin1'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>', 'latin1'),
    Buffer.concat([Buffer.from(`<< /Length ${page.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), page, Buffer.from('\nendstream', 'latin1')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', 'latin1'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets = new Map<number, number>();
  let at = parts[0]!.length;
  const put = (num: number, body: Buffer): void => {
    const chunk = Buffer.concat([Buffer.from(`${num} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.set(num, at);
    parts.push(chunk);
    at += chunk.length;
  };
  bodies.forEach((b, i) => put(i + 1, b));
  put(7, Buffer.concat([Buffer.from(`<< /Type /ObjStm /N ${title === undefined ? 1 : 2} /First ${header.length} /Length ${objStm.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), objStm, Buffer.from('\nendstream', 'latin1')]));
  const xrefAt = at;
  // Rows of [type, offset (4 bytes), generation or index (2 bytes)], each after a PNG Up predictor byte.
  const rows: number[][] = [[0, 0, 0xffff]];
  for (let n = 1; n <= 5; n++) rows.push([1, offsets.get(n)!, 0]);
  rows.push([2, 7, 0], [1, offsets.get(7)!, 0], [1, xrefAt, 0]);
  if (title !== undefined) rows.push([2, 7, 1]);
  const raw: number[] = [];
  let prev = Buffer.alloc(7);
  for (const [t, o, g] of rows) {
    const row = Buffer.alloc(7);
    row.writeUInt8(t!, 0);
    row.writeUInt32BE(o!, 1);
    row.writeUInt16BE(g!, 5);
    raw.push(2, ...row.map((b, i) => (b - prev[i]!) & 0xff));
    prev = row;
  }
  const xref = deflateSync(Buffer.from(raw));
  put(8, Buffer.concat([
    Buffer.from(`<< /Type /XRef /Size ${rows.length} /W [1 4 2] /Root 1 0 R /Info 6 0 R /Length ${xref.length} /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> >>\nstream\n`, 'latin1'),
    xref,
    Buffer.from('\nendstream', 'latin1'),
  ]));
  parts.push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** RunLengthDecode (ISO 32000 §7.4.5) of `data` as literal runs: a chain the structure reader cannot measure before Flate. */
function runLength(data: Buffer): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += 128) {
    const part = data.subarray(i, i + 128);
    out.push(Buffer.from([part.length - 1]), part);
  }
  out.push(Buffer.from([128]));
  return Buffer.concat(out);
}

/** A stream object (uncompressed). */
const streamObject = (data: Buffer, dict = ''): Buffer =>
  Buffer.concat([Buffer.from(`<< /Length ${data.length} ${dict} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

/** A content stream of `lines` lines of text: long enough for several deflate blocks when it varies. */
function content(lines: number): Buffer {
  let s = 'BT /F1 10 Tf 50 760 Td 12 TL\n';
  for (let i = 0; i < lines; i++) s += `(Line ${i}: clause ${(i * 7919) % 1000} of the agreement, schedule ${(i * 31) % 17}.) Tj T*\n`;
  return Buffer.from(`${s}ET\n`, 'latin1');
}

// One child per side: pdf.js opens the file, reads every page's text; prints JSON (and, for the
// bundle, how often zlib succeeded and failed).
const CHILD = `
const zlib = require('node:zlib');
const raw = zlib.inflateRawSync;
const calls = { ok: 0, failed: 0, matrices: 0 };
zlib.inflateRawSync = function (...a) { try { const r = raw.apply(this, a); calls.ok++; return r; } catch (e) { calls.failed++; throw e; } };
// Rejections nobody handled while pdf.js read the file (counted, not fatal: the reading goes on).
let rejections = 0;
process.on('unhandledRejection', () => rejections++);
(async () => {
  const [kind, file] = process.argv.slice(1);
  let api, worker;
  if (kind === 'bundle') ({ api, worker } = require(${JSON.stringify(join(root, 'dist/pdfjs.cjs'))}));
  else [api, worker] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.min.mjs'), import('pdfjs-dist/legacy/build/pdf.worker.min.mjs')]);
  globalThis.pdfjsWorker = worker;
  // How often pdf.js builds a DOMMatrix while reading (a Type 3 glyph that is an image mask).
  const RealMatrix = globalThis.DOMMatrix;
  globalThis.DOMMatrix = class extends RealMatrix { constructor(...a) { super(...a); calls.matrices++; } };
  const out = { pages: 0, info: null, text: [], error: null };
  try {
    const doc = await api.getDocument({ data: new Uint8Array(require('node:fs').readFileSync(file)), verbosity: 0, stopAtErrors: false }).promise;
    out.pages = doc.numPages;
    out.info = (await doc.getMetadata()).info;
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      try { out.text.push((await page.getTextContent()).items.map((it) => it.str + (it.hasEOL ? '\\n' : '')).join('')); }
      catch (e) { out.text.push('ERROR ' + e.name + ': ' + e.message); }
    }
    await doc.destroy();
  } catch (e) { out.error = e.name + ': ' + e.message; }
  const canvasModules = Object.keys(require.cache).filter((k) => k.includes('@napi-rs')).map((k) => k.replace(/^.*node_modules[\\\\/]/, '')).sort();
  const capHits = globalThis[Symbol.for('verity.pdfjsDecodeCapHits')] ?? 0;
  // Node reports unhandled rejections once the microtasks have run: one turn of the event loop.
  await new Promise((r) => setImmediate(r));
  process.stdout.write(JSON.stringify({ out, calls, canvasModules, capHits, rejections }));
})();
`;

type Reading = { out: unknown; calls: { ok: number; failed: number; matrices: number }; canvasModules: string[]; capHits: number; rejections: number };
function read(kind: 'bundle' | 'pdfjs-dist', file: string): Reading {
  return JSON.parse(execFileSync(process.execPath, ['-e', CHILD, kind, file], { cwd: root, encoding: 'utf8' })) as Reading;
}

describe('the bundled pdf.js (Flate through node:zlib, no native canvas binding) reads as pdf.js from pdfjs-dist does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-flate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const text = content(120);
  const z = deflateSync(text);
  const noFinal = deflateSync(text, { finishFlush: zc.Z_SYNC_FLUSH }); // never ends with a final block
  const flipped = Buffer.from(z);
  flipped[Math.floor(flipped.length / 2)]! ^= 0x5a;
  const cases: { name: string; stream: Buffer; filter?: string; zlib: 'used' | 'declined' | 'any'; extra?: Parameters<typeof pdfWith>[2] }[] = [
    { name: 'valid', stream: z, zlib: 'used' },
    { name: 'stored blocks (level 0)', stream: deflateSync(text, { level: 0 }), zlib: 'used' },
    { name: 'several blocks', stream: deflateSync(Buffer.concat([text, content(2000)]), { level: 1 }), zlib: 'used' },
    { name: 'wrong Adler-32', stream: Buffer.concat([z.subarray(0, -4), Buffer.from([1, 2, 3, 4])]), zlib: 'used' },
    { name: 'no Adler-32', stream: z.subarray(0, -4), zlib: 'used' },
    { name: 'trailing bytes after the stream', stream: Buffer.concat([z, Buffer.from('garbage after the end')]), zlib: 'used' },
    { name: 'truncated', stream: z.subarray(0, Math.floor(z.length * 0.6)), zlib: 'declined' },
    { name: 'no final block', stream: noFinal, zlib: 'declined' },
    { name: 'a flipped byte', stream: flipped, zlib: 'any' },
    { name: 'an empty stream', stream: Buffer.alloc(0), zlib: 'any' },
    { name: 'ASCIIHex then Flate (a chain: pdf.js decodes it)', stream: Buffer.from(`${z.toString('hex')}>`, 'latin1'), filter: '[/ASCIIHexDecode /FlateDecode]', zlib: 'declined' },
  ];
  // A Type 3 font whose one glyph is an 8×8 image mask (a box), drawn between Helvetica words.
  const mask = Buffer.from([0xff, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0xff]);
  const glyph = Buffer.concat([Buffer.from('8 0 0 0 8 8 d1\nq 8 0 0 8 0 0 cm\nBI /IM true /W 8 /H 8 /BPC 1 ID ', 'latin1'), mask, Buffer.from('\nEI Q\n', 'latin1')]);
  const type3 = {
    fonts: '/F2 6 0 R',
    objects: [
      '<< /Type /Font /Subtype /Type3 /FontBBox [0 0 8 8] /FontMatrix [0.125 0 0 0.125 0 0] /CharProcs << /box 7 0 R >> /Encoding << /Type /Encoding /Differences [97 /box] >> /FirstChar 97 /LastChar 97 /Widths [8] /Resources << >> >>',
      streamObject(glyph),
    ],
  };
  cases.push({
    name: 'a Type 3 font whose glyph is an image mask',
    stream: deflateSync(Buffer.from('BT /F1 12 Tf 50 700 Td (Before the boxes) Tj ET\nBT /F2 12 Tf 50 680 Td (aaa) Tj ET\nBT /F1 12 Tf 50 660 Td (after the boxes) Tj ET\n', 'latin1')),
    zlib: 'used',
    extra: type3,
  });
  // Object streams and cross-reference streams (with a predictor) through zlib, and the padding of
  // pdf.js's buffer: the object stream's last object is read through a sub-stream that ends at the
  // buffer's end, so a title that is an unterminated string there runs on into that padding.
  for (const [name, info, title] of [
    ['an object stream and a cross-reference stream', '<< /Title (Quarterly report) /Author (Finance) >>', undefined],
    ['an unterminated string at the end of an object stream', '<< /Title 9 0 R >>', '(Quarterly report'],
  ] as const)
    it(name, () => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.pdf`);
      writeFileSync(file, pdfWithObjectStream(info, title));
      const patched = read('bundle', file);
      const plain = read('pdfjs-dist', file);
      expect(patched.out).toEqual(plain.out);
      expect(patched.calls.ok).toBeGreaterThanOrEqual(3);
      expect(JSON.stringify(patched.out)).toContain('Inside an object stream file');
      expect(JSON.stringify(patched.out)).toContain('Quarterly report');
    });
  // pdf.js's own decoders stop at the per-stream cap (decode-cap.ts): a RunLength + Flate chain
  // (which the structure reader cannot measure) of 80 MB of zeros fails where it is read, instead
  // of being decoded whole; under the cap the same chain reads exactly as unpatched pdf.js reads it.
  it('an unmeasurable filter chain past the per-stream cap stops at the cap; under it, it reads as before', () => {
    const bomb = join(dir, 'rl-flate-bomb.pdf');
    writeFileSync(bomb, pdfWith(runLength(deflateSync(Buffer.alloc(80 * 1024 * 1024), { level: 9 })), '[/RunLengthDecode /FlateDecode]'));
    const capped = read('bundle', bomb);
    const plain = read('pdfjs-dist', bomb);
    expect(capped.capHits).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(capped.out)).toContain('past the 64 MB decompression cap');
    expect(plain.capHits).toBe(0);
    expect(JSON.stringify(plain.out)).not.toContain('decompression cap');
    const small = join(dir, 'rl-flate-text.pdf');
    writeFileSync(small, pdfWith(runLength(deflateSync(text)), '[/RunLengthDecode /FlateDecode]'));
    const a = read('bundle', small);
    const b = read('pdfjs-dist', small);
    expect(a.out).toEqual(b.out);
    expect(a.capHits).toBe(0);
    expect(JSON.stringify(a.out)).toContain('Line 60: clause 140');
  });
  for (const c of cases)
    it(c.name, () => {
      const file = join(dir, `${c.name.replace(/\W+/g, '-')}.pdf`);
      writeFileSync(file, pdfWith(c.stream, c.filter ?? '/FlateDecode', c.extra));
      const patched = read('bundle', file);
      const plain = read('pdfjs-dist', file);
      expect(patched.out).toEqual(plain.out);
      expect(patched.rejections).toBe(0);
      // The unpatched pdf.js never calls zlib for a content stream; the bundle does, for the plain Flate streams.
      expect({ ok: plain.calls.ok, failed: plain.calls.failed }).toEqual({ ok: 0, failed: 0 });
      // The bundle reads text without @napi-rs/canvas's native binding: only its geometry module.
      expect(patched.canvasModules).toEqual(['@napi-rs/canvas/geometry.js']);
      expect(plain.canvasModules).toContain('@napi-rs/canvas/js-binding.js');
      if (c.zlib === 'used') expect(patched.calls.ok).toBeGreaterThan(0);
      if (c.zlib === 'declined') expect(patched.calls.ok).toBe(0);
      if (c.name === 'valid') expect(JSON.stringify(patched.out)).toContain('Line 60: clause 140');
      if (c.extra) {
        // pdf.js compiled the glyph with a DOMMatrix on both sides, and read the words around it.
        expect(patched.calls.matrices).toBeGreaterThan(0);
        expect(patched.calls.matrices).toBe(plain.calls.matrices);
        expect(JSON.stringify(patched.out)).toContain('after the boxes');
      }
    });
});

// Catalog.getPageDict prefetches every top-level kid; on these files a kid's fetch fails where
// nothing walks to it. pdf.js from pdfjs-dist leaves that rejection unhandled (which ends the
// extraction thread: pdf-broken-page-tree.test.ts); the bundle marks the prefetch handled and
// reads the file exactly as pdf.js does.
describe("the bundled pdf.js leaves no failed page-tree prefetch unhandled", () => {
  const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-prefetch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cases = brokenPageTrees().filter((c) => c.strayPrefetch);
  it('has files to read', () => expect(cases.length).toBeGreaterThanOrEqual(3));
  for (const c of cases)
    it(c.name, () => {
      const file = join(dir, `${c.name.replace(/\W+/g, '-')}.pdf`);
      writeFileSync(file, c.bytes);
      const patched = read('bundle', file);
      const plain = read('pdfjs-dist', file);
      expect(plain.rejections).toBeGreaterThanOrEqual(1);
      expect(patched.rejections).toBe(0);
      expect(patched.out).toEqual(plain.out);
    });
});
