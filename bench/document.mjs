#!/usr/bin/env node
// Document analysis benchmark: a generated 100-page PDF with images and a ~5 MB DOCX, analysed by
// the BUILT engine (dist/), with poppler's pdfinfo + pdftotext on the same PDF as the reference.
//
//   npx tsc -p tsconfig.build.json && node bench/document.mjs [--runs 5]
//
// Each measurement runs in a fresh child process so peak RSS (getrusage maxrss) belongs to one
// analysis. Goals (issue 5): 100-page PDF < 1.5 s and < 300 MB RSS; within 3x of poppler.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const engine = createEngine({ clock: { now: () => new Date() }, config: {}, http: { request: offline, getJson: offline }, fetchInput: offline });
  const content = readFileSync(file).toString('base64');
  const t = performance.now();
  const r = await engine.verifyDocument({ source: 'upload', content });
  const ms = performance.now() - t;
  process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024, pages: r.metadata.page_count, flags: r.manipulation_flags, warnings: r.warnings ?? [] }));
  process.exit(0);
}

// ---- inputs
const { PDFDocument, StandardFonts } = await import('pdf-lib');
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

const pdfPath = join(dir, 'bench-100p.pdf');
const docxPath = join(dir, 'bench-5mb.docx');
writeFileSync(pdfPath, await makePdf());
writeFileSync(docxPath, await makeDocx());

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

function measureEngine(file) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', file], { encoding: 'utf8' });
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
const size = (p) => `${(readFileSync(p).length / 1048576).toFixed(1)} MB`;

const rows = [
  ['input', 'median ms', 'peak RSS MB', 'notes'],
  [`PDF 100 pages + 10 JPEGs (${size(pdfPath)}) — verity`, pdf.ms.toFixed(0), pdf.rssMb.toFixed(0), `pages ${pdf.last.pages}; goal < 1500 ms, < 300 MB`],
  [`same PDF — pdfinfo + pdftotext (poppler)`, pop ? pop.ms.toFixed(0) : 'n/a', pop ? pop.rssMb.toFixed(0) : 'n/a', pop ? `verity/poppler = ${(pdf.ms / pop.ms).toFixed(2)}x (goal ≤ 3x)` : 'poppler not installed'],
  [`DOCX 4,000 paragraphs + 5 images (${size(docxPath)}) — verity`, docx.ms.toFixed(0), docx.rssMb.toFixed(0), `pages ${docx.last.pages}`],
];
const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
for (const r of rows) console.log(r.map((c, i) => String(c).padEnd(w[i])).join('  '));
console.log(`\n${runs} runs each, fresh process per engine run (RSS includes Node itself); files in ${dir}`);
