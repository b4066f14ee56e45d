#!/usr/bin/env node
// Document analysis benchmark: a generated 100-page PDF with images and a ~5 MB DOCX, analysed by
// the BUILT engine (dist/), with poppler's pdfinfo + pdftotext on the same PDF as the reference.
// Then the whole process, as a user runs it (`verity verify document FILE --json`), interleaved
// with its anchor in the same run: pdfinfo + pdftotext for the PDF, exiftool + docx2txt for the
// DOCX (issue 18 goals: ≤ 3× each).
//
//   npm run build && node bench/document.mjs [--runs 5]
//
// Each measurement runs in a fresh child process so peak RSS (getrusage maxrss) belongs to one
// analysis. Goals (issue 5): 100-page PDF < 1.5 s and < 300 MB RSS; within 3x of poppler.
// Issue 12: validating the signatures of a 100-page PDF signed twice and then given an LTA update
// (DSS + document time-stamp) < 300 ms in process; a ~4 MB PDF whose streams inflate to 4 GB
// answered with peak RSS < 512 MB.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { deflateRawSync, constants as zc } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEADER, interleave, rows as comparisonRows } from './lib/interleave.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// VERITY_DIST points at another build output (e.g. a private copy while others rebuild dist/).
const dist = process.env.VERITY_DIST ? resolve(process.env.VERITY_DIST) : resolve(root, 'dist');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 5) || 5;
const dir = mkdtempSync(join(tmpdir(), 'verity-bench-doc-'));

// ---- child mode: analyse one file and report time and peak RSS
if (process.argv[2] === '--child') {
  const file = process.argv[3];
  const { createEngine } = await import(resolve(dist, 'engine/index.js'));
  const offline = async () => {
    throw new Error('offline benchmark');
  };
  // The CLI's pdf.js code cache lives in its cache folder; the parent names one shared by all runs.
  const engine = createEngine({ clock: { now: () => new Date() }, config: {}, http: { request: offline, getJson: offline }, fetchInput: offline, codeCacheDir: process.argv[4] });
  const content = readFileSync(file).toString('base64');
  const t = performance.now();
  const r = await engine.verifyDocument({ source: 'upload', content });
  const ms = performance.now() - t;
  process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024, pages: r.metadata.page_count, flags: r.manipulation_flags, warnings: r.warnings ?? [] }));
  process.exit(0);
}

// ---- child mode: signature validation alone (structure, signatures, difference analysis), in process
if (process.argv[2] === '--sigcheck') {
  const bytes = readFileSync(process.argv[3]);
  const { readPdfStructure } = await import(resolve(dist, 'engine/document/pdf/structure.js'));
  const { checkSignatures } = await import(resolve(dist, 'engine/document/pdf/signatures.js'));
  const { diffRevisions } = await import(resolve(dist, 'engine/document/pdf/diff-policy.js'));
  const once = () => {
    const s = readPdfStructure(bytes);
    const sigs = checkSignatures(bytes, s);
    const bases = sigs.filter((x) => !x.coversWholeFile && x.revisionIndex !== null).map((x) => x.revisionIndex);
    return { sigs, diffs: [...diffRevisions(bytes, s, bases).values()].flat() };
  };
  once(); // warm-up: module loading and JIT are not part of a validation
  const times = [];
  let r;
  for (let i = 0; i < 9; i++) {
    const t = performance.now();
    r = once();
    times.push(performance.now() - t);
  }
  const ms = [...times].sort((x, y) => x - y)[4];
  const problems = [...r.sigs.flatMap((x) => x.problems), ...r.diffs.flatMap((d) => d.violations.map((v) => v.reason))];
  process.stdout.write(JSON.stringify({ ms, sigs: r.sigs.length, levels: r.diffs.map((d) => d.level), problems }));
  process.exit(0);
}

// ---- inputs
const { PDFDocument, StandardFonts, PDFName, PDFString } = await import('pdf-lib');
const sharp = (await import('sharp')).default;
const JSZip = (await import('jszip')).default;

const PARA = 'The parties agree that the supplier shall deliver the goods described in Schedule A no later than thirty days after the purchase order date, and that payment falls due within forty-five days of a correct invoice. ';

async function makePdf() {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const images = [];
  for (let i = 0; i < 10; i++) {
    const jpg = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 20 * i, g: 120, b: 200 - 10 * i } } })
      .composite([{ input: Buffer.from(`<svg width="800" height="600"><circle cx="${100 + 50 * i}" cy="300" r="120" fill="#e33"/><text x="40" y="80" font-size="48">Figure ${i + 1}</text></svg>`) }])
      .jpeg({ quality: 85 })
      .toBuffer();
    images.push(await doc.embedJpg(jpg));
  }
  for (let p = 0; p < 100; p++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    for (let l = 0; l < 30; l++, y -= 14) page.drawText(`${p + 1}.${l + 1} ${PARA.slice((l * 7) % 60, ((l * 7) % 60) + 90)}`, { x: 50, y, size: 10, font });
    if (p % 10 === 0) page.drawImage(images[p / 10], { x: 100, y: 60, width: 400, height: 300 });
  }
  return Buffer.from(await doc.save());
}

async function makeDocx() {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  const paras = [];
  for (let i = 0; i < 4000; i++) paras.push(`<w:p><w:r><w:t xml:space="preserve">${i + 1}. ${PARA}</w:t></w:r></w:p>`);
  zip.file('word/document.xml', `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paras.join('')}</w:body></w:document>`);
  zip.file('docProps/core.xml', '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"><dc:creator>Bench</dc:creator><dcterms:created>2024-01-01T00:00:00Z</dcterms:created><dcterms:modified>2024-01-02T00:00:00Z</dcterms:modified><cp:revision>4</cp:revision></cp:coreProperties>');
  zip.file('docProps/app.xml', '<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Office Word</Application><Pages>120</Pages><TotalTime>300</TotalTime></Properties>');
  // Incompressible noise images bring the package to ~5 MB, as real scanned attachments do.
  for (let i = 0; i < 5; i++) {
    const raw = randomBytes(640 * 480 * 3);
    zip.file(`word/media/image${i + 1}.png`, await sharp(raw, { raw: { width: 640, height: 480, channels: 3 } }).png().toBuffer(), { compression: 'STORE' });
  }
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

// ---- a 100-page form signed twice, then an LTA update (DSS + document time-stamp), by hand-appended revisions

const keyDir = mkdtempSync(join(tmpdir(), 'verity-bench-sign-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=bench signer', '-days', '2', '-keyout', join(keyDir, 'k.pem'), '-out', join(keyDir, 'c.pem')], { stdio: 'ignore' });
function cmsOver(data) {
  writeFileSync(join(keyDir, 'in'), data);
  execFileSync('openssl', ['cms', '-sign', '-binary', '-md', 'sha256', '-in', join(keyDir, 'in'), '-signer', join(keyDir, 'c.pem'), '-inkey', join(keyDir, 'k.pem'), '-outform', 'DER', '-out', join(keyDir, 'out')], { stdio: 'ignore' });
  return readFileSync(join(keyDir, 'out'));
}
function bodyOf(pdf, num) {
  const s = pdf.toString('latin1');
  let m, body;
  const re = new RegExp(`(?:^|[^0-9])${num} 0 obj\\s*([\\s\\S]*?)\\s*endobj`, 'g');
  while ((m = re.exec(s))) body = m[1];
  return body;
}
const withEntry = (body, key, value) => `${body.slice(0, body.lastIndexOf('>>'))} /${key} ${value}\n>>`;
function appendRev(pdf, objects) {
  const s0 = pdf.toString('latin1');
  const t = s0.slice(s0.lastIndexOf('trailer'));
  const size = Number(/\/Size (\d+)/.exec(t)[1]);
  const root = /\/Root (\d+ \d+ R)/.exec(t)[1];
  const prev = Number(/startxref\s+(\d+)/.exec(s0.slice(s0.lastIndexOf('startxref')))[1]);
  let out = s0.endsWith('\n') ? s0 : `${s0}\n`;
  const entries = [];
  for (const o of objects) {
    entries.push([o.num, Buffer.byteLength(out, 'latin1')]);
    out += `${o.num} 0 obj\n${o.body}\nendobj\n`;
  }
  const at = Buffer.byteLength(out, 'latin1');
  out += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [n, off] of entries.sort((a, b) => a[0] - b[0])) out += `${n} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${Math.max(size, ...objects.map((o) => o.num + 1))} /Root ${root} /Prev ${prev} >>\nstartxref\n${at}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
const nextNumOf = (pdf) => { const s0 = pdf.toString('latin1'); return Number(/\/Size (\d+)/.exec(s0.slice(s0.lastIndexOf('trailer')))[1]); };
function signInto(pdf, field, extra, type = '/Type /Sig /SubFilter /adbe.pkcs7.detached') {
  const n = nextNumOf(pdf);
  const ph = '[0 0000000000 0000000000 0000000000]';
  const HEX = 8192;
  const out = appendRev(pdf, [{ num: field, body: withEntry(bodyOf(pdf, field), 'V', `${n} 0 R`) }, { num: n, body: `<< ${type} /Filter /Adobe.PPKLite /ByteRange ${ph} /Contents <${'0'.repeat(HEX)}> >>` }, ...extra(n)]);
  const s0 = out.toString('latin1');
  const start = s0.lastIndexOf('/Contents <') + 10;
  const end = start + HEX + 2;
  const at = s0.lastIndexOf(ph);
  const filled = Buffer.from(s0.slice(0, at) + `[0 ${String(start).padStart(10, '0')} ${String(end).padStart(10, '0')} ${String(out.length - end).padStart(10, '0')}]` + s0.slice(at + ph.length), 'latin1');
  filled.write(cmsOver(Buffer.concat([filled.subarray(0, start), filled.subarray(end)])).toString('hex'), start + 1, 'latin1');
  return filled;
}
async function makeSignedPdf() {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const pages = [];
  for (let p = 0; p < 100; p++) {
    const page = doc.addPage([612, 792]);
    let y = 740;
    for (let l = 0; l < 30; l++, y -= 14) page.drawText(`${p + 1}.${l + 1} ${PARA.slice((l * 7) % 60, ((l * 7) % 60) + 90)}`, { x: 50, y, size: 10, font });
    pages.push(page);
  }
  const form = doc.getForm();
  const fields = {};
  for (const [name, rect] of [['Sig1', [50, 50, 250, 100]], ['Sig2', [300, 50, 500, 100]], ['TS', [0, 0, 0, 0]]]) {
    const ref = doc.context.register(doc.context.obj({ FT: 'Sig', T: PDFString.of(name), Type: 'Annot', Subtype: 'Widget', F: 132, Rect: rect, P: pages[99].ref }));
    form.acroForm.addField(ref);
    pages[99].node.addAnnot(ref);
    fields[name] = ref.objectNumber;
  }
  const catalog = doc.context.trailerInfo.Root.objectNumber;
  let pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
  pdf = signInto(pdf, fields.Sig1, () => []);
  pdf = signInto(pdf, fields.Sig2, () => []);
  // LTA: the signer's certificate in a DSS, then a document time-stamp over everything.
  const cert = execFileSync('openssl', ['x509', '-in', join(keyDir, 'c.pem'), '-outform', 'DER']).toString('latin1');
  const n = nextNumOf(pdf);
  pdf = appendRev(pdf, [
    { num: n, body: `<< /Length ${cert.length} >>\nstream\n${cert}\nendstream` },
    { num: n + 1, body: `<< /Type /DSS /Certs [${n} 0 R] >>` },
    { num: catalog, body: withEntry(bodyOf(pdf, catalog), 'DSS', `${n + 1} 0 R`) },
  ]);
  // A CMS stands in for the RFC 3161 token: the structure, not the time-stamp authority, is measured.
  return signInto(pdf, fields.TS, () => [], '/Type /DocTimeStamp /SubFilter /ETSI.RFC3161');
}

/** ~4 MB PDF whose four page streams inflate to 1 GiB of zeros each: one compressed MiB, repeated. */
function makeFlateBomb() {
  const piece = deflateRawSync(Buffer.alloc(1024 * 1024), { finishFlush: zc.Z_SYNC_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((((1024 * 1024 * 1024) % 65521) << 16) | 1) >>> 0);
  const stream = Buffer.concat([Buffer.from([0x78, 0x9c]), ...Array(1024).fill(piece), Buffer.from([0x03, 0x00]), adler]);
  const parts = [];
  const offsets = [];
  let size = 0;
  const push = (b) => { const x = typeof b === 'string' ? Buffer.from(b, 'latin1') : b; parts.push(x); size += x.length; };
  push('%PDF-1.7\n');
  const obj = (num, body, data) => { offsets[num] = size; push(`${num} 0 obj\n${body}\n`); if (data) { push('stream\n'); push(data); push('\nendstream\n'); } push('endobj\n'); };
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [4 0 R 5 0 R 6 0 R 7 0 R] >>');
  for (let i = 4; i < 8; i++) obj(i, `<< /Length ${stream.length} /Filter /FlateDecode >>`, stream);
  let xref = `xref\n0 8\n0000000000 65535 f \n`;
  for (let i = 1; i < 8; i++) xref += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  push(`${xref}trailer\n<< /Size 8 /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`);
  return Buffer.concat(parts);
}

const signedPath = join(dir, 'bench-100p-signed-lta.pdf');
const bombPath = join(dir, 'bench-flate-bomb.pdf');
writeFileSync(signedPath, await makeSignedPdf());
writeFileSync(bombPath, makeFlateBomb());

const pdfPath = join(dir, 'bench-100p.pdf');
const docxPath = join(dir, 'bench-5mb.docx');
writeFileSync(pdfPath, await makePdf());
writeFileSync(docxPath, await makeDocx());

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

function measureEngine(file) {
  // One uncounted run fills the code cache, as the first run after an install does for the CLI.
  spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file, join(dir, 'code-cache')], { encoding: 'utf8' });
  const out = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file, join(dir, 'code-cache')], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    out.push(JSON.parse(r.stdout));
  }
  return { ms: median(out.map((o) => o.ms)), rssMb: Math.max(...out.map((o) => o.rssMb)), last: out[out.length - 1] };
}

function measurePoppler(file) {
  const times = [];
  let rss = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    for (const [cmd, args] of [['pdfinfo', [file]], ['pdftotext', [file, '-']]]) {
      const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      rss = Math.max(rss, Number(r.stderr.trim().split('\n').pop()) / 1024 || 0);
    }
    times.push(performance.now() - t);
  }
  return { ms: median(times), rssMb: rss };
}

let havePoppler = true;
try {
  execFileSync('pdfinfo', ['-v'], { stdio: 'ignore' });
} catch {
  havePoppler = false;
}

const pdf = measureEngine(pdfPath);
const docx = measureEngine(docxPath);
const pop = havePoppler ? measurePoppler(pdfPath) : null;
const signedFull = measureEngine(signedPath);
const sigRun = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--sigcheck', signedPath], { encoding: 'utf8' });
if (sigRun.status !== 0) throw new Error(sigRun.stderr);
const sig = JSON.parse(sigRun.stdout);
const bomb = measureEngine(bombPath);
const size = (p) => `${(readFileSync(p).length / 1048576).toFixed(1)} MB`;

const rows = [
  ['input', 'median ms', 'peak RSS MB', 'notes'],
  [`PDF 100 pages + 10 JPEGs (${size(pdfPath)}) — verity`, pdf.ms.toFixed(0), pdf.rssMb.toFixed(0), `pages ${pdf.last.pages}; goal < 1500 ms, < 300 MB`],
  [`same PDF — pdfinfo + pdftotext (poppler)`, pop ? pop.ms.toFixed(0) : 'n/a', pop ? pop.rssMb.toFixed(0) : 'n/a', pop ? `verity/poppler = ${(pdf.ms / pop.ms).toFixed(2)}x (goal ≤ 3x)` : 'poppler not installed'],
  [`DOCX 4,000 paragraphs + 5 images (${size(docxPath)}) — verity`, docx.ms.toFixed(0), docx.rssMb.toFixed(0), `pages ${docx.last.pages}`],
  [`PDF 100 pages, 2 signatures + DSS + doc time-stamp (${size(signedPath)}) — signature validation in process`, sig.ms.toFixed(1), '—', `${sig.sigs} signatures; revisions ${sig.levels.join(', ')}; ${sig.problems.length ? `problems: ${sig.problems.join('; ').slice(0, 120)}` : 'no problem'}; goal < 300 ms`],
  [`same PDF — whole document analysis`, signedFull.ms.toFixed(0), signedFull.rssMb.toFixed(0), `flags: ${signedFull.last.flags.join(',') || 'none'}`],
  [`Flate bomb, 4 streams x 1 GiB (${size(bombPath)}) — verity`, bomb.ms.toFixed(0), bomb.rssMb.toFixed(0), `${bomb.last.warnings.some((w) => /decompression cap/.test(w)) ? 'stopped at the cap' : 'NOT STOPPED'}; goal < 512 MB`],
];
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(w[i])).join('  '));
console.log(`\n${runs} runs each, fresh process per engine run (RSS includes Node itself); files in ${dir}`);

// ---- whole process, interleaved with the anchor
const have = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const home = mkdtempSync(join(tmpdir(), 'verity-bench-home-'));
const env = { PATH: process.env.PATH, HOME: process.env.HOME, VERITY_HOME: home };
const cli = (file) => [[process.execPath, join(root, 'bin', 'verity.js'), 'verify', 'document', file, '--json']];
const out = ['', `whole process, ${runs} interleaved runs each after one warm-up (the CLI's code caches filled by it); Node ${process.version}`, ...HEADER];
if (havePoppler)
  out.push(...comparisonRows(interleave({ name: 'verity verify document (100-page PDF)', steps: cli(pdfPath) }, { name: 'pdfinfo + pdftotext', steps: [['pdfinfo', pdfPath], ['pdftotext', pdfPath, '-']] }, { runs, env }), 3));
else out.push('| PDF | poppler not installed: no anchor | | | |');
const haveExiftool = have('exiftool', ['-ver']);
const haveDocx2txt = spawnSync('sh', ['-c', 'command -v docx2txt'], { stdio: 'ignore' }).status === 0;
if (haveExiftool && haveDocx2txt)
  out.push(...comparisonRows(interleave({ name: `verity verify document (${size(docxPath)} DOCX)`, steps: cli(docxPath) }, { name: 'exiftool + docx2txt', steps: [['exiftool', docxPath], ['sh', '-c', 'docx2txt < "$0"', docxPath]] }, { runs, env }), 3));
else out.push('| DOCX | exiftool or docx2txt not installed: no anchor | | | |');
console.log(out.join('\n'));
