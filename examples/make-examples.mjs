#!/usr/bin/env node
/**
 * Makes the small example files the README's quick start verifies (`node examples/make-examples.mjs`):
 * a photo-like JPEG with camera metadata and a one-page PDF letter. They are our own, drawn here,
 * so anyone can rebuild them and see exactly what went in. The outputs are committed.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const here = dirname(fileURLToPath(import.meta.url));

// A harbour at dusk, drawn as SVG: sky gradient, sea, a pier and boats; then a little sensor-like
// noise so it compresses like a photo rather than a flat drawing.
const W = 480;
const H = 320;
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1d2b53"/><stop offset="1" stop-color="#f4a259"/></linearGradient>
    <linearGradient id="sea" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2a5d7c"/><stop offset="1" stop-color="#0b2233"/></linearGradient>
  </defs>
  <rect width="${W}" height="200" fill="url(#sky)"/>
  <circle cx="360" cy="170" r="26" fill="#ffd27f"/>
  <rect y="196" width="${W}" height="${H - 196}" fill="url(#sea)"/>
  <rect x="40" y="188" width="170" height="10" fill="#4a3b2c"/>
  ${[60, 100, 140, 180].map((x) => `<rect x="${x}" y="196" width="6" height="50" fill="#3a2d20"/>`).join('')}
  <path d="M250 230 l70 0 l-12 16 l-46 0 z" fill="#e9e4d8"/><rect x="282" y="196" width="3" height="34" fill="#ddd"/>
  <path d="M285 198 l0 30 l24 0 z" fill="#f7f3ea"/>
  <path d="M390 252 l48 0 l-8 11 l-32 0 z" fill="#c0392b"/>
</svg>`;
const noise = Buffer.alloc(W * H * 3);
let s = 12345;
for (let i = 0; i < noise.length; i++) {
  s = (s * 1103515245 + 12345) >>> 0; // a fixed LCG: the file is the same every time
  noise[i] = 128 + ((s >>> 16) % 13) - 6;
}
const base = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
const mixed = Buffer.alloc(base.length);
for (let i = 0; i < base.length; i++) mixed[i] = Math.max(0, Math.min(255, base[i] + noise[i] - 128));
await sharp(mixed, { raw: { width: W, height: H, channels: 3 } })
  .withExif({ IFD0: { Make: 'Example Optics', Model: 'EX-100' }, IFD2: { DateTimeOriginal: '2026:05:17 20:41:09' } })
  .jpeg({ quality: 88, mozjpeg: false })
  .toFile(join(here, 'harbour.jpg'));

// A one-page letter.
const pdf = await PDFDocument.create();
pdf.setTitle('Quarterly update');
pdf.setAuthor('Example Widgets Ltd');
pdf.setProducer('verity examples/make-examples.mjs');
pdf.setCreationDate(new Date('2026-05-18T09:00:00Z'));
pdf.setModificationDate(new Date('2026-05-18T09:00:00Z'));
const font = await pdf.embedFont(StandardFonts.Helvetica);
const page = pdf.addPage([420, 595]);
const lines = [
  'Example Widgets Ltd — quarterly update',
  '',
  'Dear shareholders,',
  '',
  'Revenue for the quarter was 4.2 million pounds, up 6 per cent on the',
  'same quarter last year. We opened a second workshop in Leeds and',
  'hired eleven people. The board proposes no change to the dividend.',
  '',
  'Yours faithfully,',
  'The Board',
];
lines.forEach((t, i) => page.drawText(t, { x: 40, y: 540 - i * 18, size: 11, font }));
writeFileSync(join(here, 'letter.pdf'), await pdf.save({ useObjectStreams: false }));
console.log('examples: harbour.jpg and letter.pdf written');
