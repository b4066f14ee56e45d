#!/usr/bin/env node
// Writes a varied, real-world-like corpus of PDFs for scripts/pdf-text-diff.mjs (issue 31: how often
// is the simple text reader eligible, and is it ever wrong?).
//
//   node scripts/pdf-text-corpus.mjs OUT_DIR [--only chromium,reportlab,...] [--small]
//
// Each producer found on this machine writes into OUT_DIR/<producer>/; a producer whose tool is
// missing is skipped with a line saying so (none of them is needed in CI; this session installed
// them with apt-get: python3-reportlab python3-cairo python3-matplotlib ghostscript groff enscript
// librsvg2-bin pango1.0-tools texlive-latex-base texlive-latex-recommended
// texlive-fonts-recommended lmodern libreoffice-writer-nogui wkhtmltopdf mupdf-tools qpdf weasyprint
// php-cli php-tcpdf ruby ruby-prawn tesseract-ocr tesseract-ocr-eng fonts-wqy-zenhei
// fonts-liberation2). OUT_DIR/manifest.json records, for every file, its producer, what it
// exercises (`kind`), its `set` ("real-world-like", "stress", "hostile" or "fixture") and, for
// right-to-left scripts, that the simple reader is expected to turn it down
// (`expect: "ineligible"`). About 2,260 files, 115 MB, 2.5 minutes on a 2-core machine.
//
// Producers: chromium (playwright-core + /usr/bin/chromium, and the chromium CLI; feature pages,
// fonts, languages, seeded mixes and random-CSS pages), wkhtmltopdf (Qt), mupdf (mutool convert
// of HTML), libreoffice (soffice: HTML, text, the DOCX fixtures, CSV), reportlab (canvas, Platypus,
// TTF; operator-by-operator idioms; seeded random content streams in standard and TrueType fonts),
// cairo (pycairo), pango (pango-view), rsvg (rsvg-convert of SVG), ghostscript (groff -Tps |
// ps2pdf, enscript | ps2pdf, gs pdfwrite re-distilling other producers' files), gropdf (groff
// -Tpdf), pdftex (pdflatex, seeded random LaTeX, latex through dvips or dvipdfmx), pdf-lib
// (standard fonts, stamps, forms, image-only pages, boxes), qpdf (object streams, linearized,
// uncompressed, rotated rewrites), matplotlib (Type 3 and Type 42 fonts), WeasyPrint, TCPDF (PHP),
// Prawn (Ruby), Tesseract (OCR text layers over screenshots), real files with edited ToUnicode
// CMaps, widths and page content, hand-built damaged structure, found (PDFs already on this
// machine) and fixtures (../shared/fixtures/pdf*). The corpus is deterministic for one machine (a
// seeded generator picks the words and mixes).
import { spawnSync } from 'node:child_process';
import * as zlibForCorpus from 'node:zlib';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PY = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

const args = process.argv.slice(2);
const outArg = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--only');
if (!outArg) {
  process.stderr.write('usage: node scripts/pdf-text-corpus.mjs OUT_DIR [--only chromium,reportlab,...] [--small]\n');
  process.exit(2);
}
const OUT = resolve(outArg);
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : undefined;
const SMALL = args.includes('--small');
const WORK = join(tmpdir(), `pdf-text-corpus-${process.pid}`);
mkdirSync(OUT, { recursive: true });
mkdirSync(WORK, { recursive: true });

const manifest = existsSync(join(OUT, 'manifest.json')) ? JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8')) : { files: {} };
function record(file, producer, kind, expect) {
  if (!existsSync(file) || statSync(file).size === 0) return false;
  const rel = relative(OUT, file);
  manifest.files[rel] = { producer, kind, set: setOf(rel, producer), ...(expect ? { expect } : {}) };
  return true;
}
/**
 * Which part of the corpus a file belongs to, so the diff can give the eligibility of documents as
 * people make them apart from the stress cases: "stress" (operator-by-operator idioms, seeded random
 * content streams and random CSS pages, and rewrites of them), "fixture" (the repository's test
 * files, many broken on purpose) and "real-world-like" (everything else).
 */
function setOf(rel, producer) {
  if (/rawops|fuzz|random|mutations/.test(rel)) return 'stress';
  if (rel.startsWith('fixtures/')) return 'fixture';
  if (producer === 'hand-built') return 'hostile';
  return 'real-world-like';
}
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0 && !opts.quiet) process.stderr.write(`  ${cmd} ${argv.slice(0, 4).join(' ')}…: exit ${r.status ?? r.signal} ${(r.stderr ?? '').slice(0, 300)}\n`);
  return r;
}
const dir = (name) => {
  const d = join(OUT, name);
  mkdirSync(d, { recursive: true });
  return d;
};

// ---------------------------------------------------------------- text
let seed = 31;
function rand() {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there ' +
  'been one all we their has would when if so no will more about can out up them some could what into than then two first office ' +
  'officer efficient difficult affluent fluffy flight fifty waffle shuffle offline afflict fjord scaffold official profile figure ' +
  'report evidence company market verify claim source signal measure document section table result analysis method value ' +
  'between through during without against because however although therefore meanwhile nevertheless 2024 1999 3.14 42% $120 ' +
  'e-mail self-evident state-of-the-art well-known co-operate naïve café résumé façade'
).split(' ');
function sentence(min = 8, max = 20) {
  const n = min + Math.floor(rand() * (max - min));
  const w = Array.from({ length: n }, () => pick(WORDS));
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  if (rand() < 0.15) w.splice(1 + Math.floor(rand() * (n - 1)), 0, pick(['(for example)', '“quoted”', '— a dash —', 'i.e.,', '‘single’', '…']));
  return `${w.join(' ')}${pick(['.', '.', '.', '?', '!', ';', ':'])}`;
}
const paragraph = (n = 3 + Math.floor(rand() * 5)) => Array.from({ length: n }, () => sentence()).join(' ');
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const LANG = {
  fr: "Le cœur de l'été : où est la forêt ? À Noël, ça déçoit Benoît, l'œuvre est naïve et Ægir rêve.",
  de: 'Größe, übermäßig, Fußgängerübergänge: Äpfel und Öl schmücken die Straße. ẞ GROẞ.',
  es: 'El niño pidió jalapeños y piñas; ¿qué más? ¡Olé! La cigüeña y el pingüino.',
  pl: 'Zażółć gęślą jaźń; Łódź, źdźbło, Świętokrzyskie, Gdańsk.',
  cs: 'Příliš žluťoučký kůň úpěl ďábelské ódy.',
  vi: 'Tiếng Việt có dấu: Hà Nội, Đà Nẵng, Huế, phở bò, cà phê sữa đá.',
  tr: 'Işık, Iğdır, şeker, çiçek, İstanbul, ağaç.',
  el: 'Η γρήγορη καφέ αλεπού πηδά πάνω από τον τεμπέλη σκύλο. Αθήνα, Θεσσαλονίκη, ελληνικά: άέήίόύώ ϊϋΐΰ.',
  ru: 'Съешь же ещё этих мягких французских булок, да выпей чаю. Москва, Санкт-Петербург, Ёлка.',
  uk: 'Ґанок, їжак, європейський, Київ, Львів.',
  zh: '我们的文本提取应该与参考实现完全一致。中文字符测试，标点符号：“引号”。',
  ja: '日本語のテキスト抽出テスト、ひらがなとカタカナ。東京都。',
  ko: '한국어 텍스트 추출 시험입니다. 서울특별시.',
  ar: 'هذا نص عربي لاختبار استخراج النص من ملفات PDF، والأرقام ١٢٣ و 456.',
  he: 'זהו טקסט בעברית לבדיקת חילוץ טקסט מקובצי PDF, עם מספרים 123.',
  fa: 'این یک متن فارسی برای آزمایش است.',
};
const RTL = new Set(['ar', 'he', 'fa']);

// ---------------------------------------------------------------- HTML documents
const FONTS = ['serif', 'sans-serif', 'monospace', '"DejaVu Serif"', '"DejaVu Sans"', '"DejaVu Sans Mono"', '"Liberation Serif"', '"Liberation Sans"', '"Liberation Mono"', 'C059', '"Nimbus Sans"', '"Nimbus Roman"', '"Latin Modern Roman"', '"URW Bookman"', '"P052"'];

/** One section of a page per feature; each returns HTML and, for right-to-left text, `rtl`. */
const SECTIONS = {
  paragraphs: () => Array.from({ length: 4 }, () => `<p>${esc(paragraph())}</p>`).join(''),
  justified: () => `<div style="text-align:justify">${Array.from({ length: 3 }, () => `<p>${esc(paragraph(6))}</p>`).join('')}</div>`,
  letterspacing: () => `<p style="letter-spacing:0.12em">${esc(paragraph())}</p><p style="letter-spacing:3px">${esc(sentence())}</p><p style="letter-spacing:-0.4px">${esc(paragraph(2))}</p>`,
  wordspacing: () => `<p style="word-spacing:0.8em">${esc(paragraph())}</p><p style="word-spacing:-2px">${esc(sentence())}</p>`,
  smallcaps: () => `<p style="font-variant:small-caps">${esc(paragraph(2))}</p><h3 style="text-transform:uppercase">${esc(sentence(3, 6))}</h3>`,
  table: () => {
    const rows = Array.from({ length: 6 + Math.floor(rand() * 8) }, (_, i) => `<tr><td>${i + 1}</td><td>${esc(sentence(2, 5))}</td><td style="text-align:right">${(rand() * 10000).toFixed(2)}</td><td>${esc(pick(WORDS))}</td></tr>`);
    return `<table border="1" cellpadding="4" style="border-collapse:collapse"><thead><tr><th>#</th><th>Item</th><th>Amount</th><th>Note</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  },
  twocolumn: () => `<div style="column-count:2;column-gap:2em">${Array.from({ length: 5 }, () => `<p>${esc(paragraph())}</p>`).join('')}</div>`,
  flexcolumns: () => `<div style="display:flex;gap:24px"><div style="flex:1">${esc(paragraph())}</div><div style="flex:1">${esc(paragraph())}</div><div style="flex:1">${esc(paragraph(2))}</div></div>`,
  lists: () => `<ul>${Array.from({ length: 4 }, () => `<li>${esc(sentence(4, 10))}</li>`).join('')}<li>Nested<ol><li>${esc(sentence(3, 6))}</li><li>${esc(sentence(3, 6))}</li></ol></li></ul><dl><dt>Term</dt><dd>${esc(sentence())}</dd></dl>`,
  headings: () => [1, 2, 3, 4, 5, 6].map((h) => `<h${h}>${esc(sentence(2, 6))}</h${h}><p>${esc(sentence())}</p>`).join(''),
  inline: () => `<p>${esc(sentence())} <b>${esc(sentence(2, 5))}</b> <i>${esc(sentence(2, 5))}</i> <u>underlined</u> <b><i>bold italic</i></b> x<sup>2</sup> H<sub>2</sub>O <code>code()</code> <a href="https://example.com/">a link</a> ${esc(sentence())}</p>`,
  ligatures: () => `<p>office official efficient affluent fluffy flight fifty waffle shuffle afflict scaffold fjord — ﬁ ﬂ ﬀ ﬃ ﬄ</p><p style="font-variant-ligatures:none">office official efficient without ligatures</p><p style="font-variant-ligatures:discretionary-ligatures historical-ligatures">strict act aspect discretionary</p>`,
  accented: () => ['fr', 'de', 'es', 'pl', 'cs', 'vi', 'tr'].map((l) => `<p lang="${l}">${esc(LANG[l])}</p>`).join(''),
  greek: () => `<p lang="el">${esc(LANG.el)}</p><p>${esc(sentence())}</p>`,
  cyrillic: () => `<p lang="ru">${esc(LANG.ru)}</p><p lang="uk">${esc(LANG.uk)}</p>`,
  cjk: () => `<p lang="zh" style="font-family:'WenQuanYi Zen Hei'">${LANG.zh}</p><p lang="ja" style="font-family:'WenQuanYi Zen Hei'">${LANG.ja}</p><p lang="ko">${LANG.ko}</p>`,
  arabic: () => ({ html: `<p dir="rtl" lang="ar">${esc(LANG.ar)}</p><p dir="rtl" lang="fa">${esc(LANG.fa)}</p>`, rtl: true }),
  hebrew: () => ({ html: `<p dir="rtl" lang="he">${esc(LANG.he)}</p><p>Mixed: ${esc(sentence(3, 5))} <span dir="rtl">${esc(LANG.he.slice(0, 20))}</span> end.</p>`, rtl: true }),
  rotated: () => `<div style="height:220px;position:relative"><div style="position:absolute;top:90px;left:0;transform:rotate(90deg)">${esc(sentence(4, 6))}</div><div style="position:absolute;top:40px;left:260px;transform:rotate(-30deg)">${esc(sentence(3, 5))}</div><div style="position:absolute;top:150px;left:300px;transform:rotate(180deg)">${esc(sentence(3, 5))}</div></div><p>${esc(sentence())}</p>`,
  vertical: () => `<div style="writing-mode:vertical-rl;height:200px">${esc(sentence(4, 8))}</div>`,
  skewscale: () => `<p style="transform:skewX(-15deg)">${esc(sentence())}</p><p style="transform:scale(1.6,0.8);transform-origin:0 0">${esc(sentence())}</p>`,
  smalltext: () => `<p style="font-size:4px">${esc(paragraph(2))}</p><p style="font-size:6.5px">${esc(paragraph(2))}</p>`,
  largetext: () => `<p style="font-size:48px;line-height:1.1">${esc(sentence(3, 6))}</p><p style="font-size:96px">${esc(pick(WORDS))} ${esc(pick(WORDS))}</p>`,
  lineheight: () => `<p style="line-height:0.8">${esc(paragraph())}</p><p style="line-height:3">${esc(paragraph(2))}</p>`,
  pre: () => `<pre>function  f(x) {\n\treturn x * 2;   // tab before\n}\n    indented  with   spaces\n</pre>`,
  shadow: () => `<p style="text-shadow:2px 2px 3px #888">${esc(sentence())}</p><p style="color:white">${esc(sentence())}</p><p style="opacity:0.3">${esc(sentence())}</p>`,
  overlap: () => `<div style="position:relative;height:60px"><span style="position:absolute;left:0;top:0">${esc(sentence(3, 5))}</span><span style="position:absolute;left:40px;top:2px">${esc(sentence(3, 5))}</span></div>`,
  dropcap: () => `<p class="drop">${esc(paragraph())}</p><style>.drop::first-letter{float:left;font-size:3.5em;line-height:0.8;margin-right:4px}</style>`,
  hyphenation: () => `<p lang="en" style="hyphens:auto;text-align:justify;width:260px">${esc(paragraph())} incomprehensibilities internationalization counterrevolutionary</p><p>soft&shy;hyphen non&nbsp;breaking zero&#8203;width</p>`,
  symbols: () => `<p>Math: ∑ ∫ √ ∞ ≤ ≥ ≠ ± × ÷ → ⇒ ∀ ∃ ∈ ∂ ∇; currency € £ ¥ ₹; marks © ® ™ § ¶ † ‡ • ‰; quotes “ ” ‘ ’ « » „ ; dashes – — ‒</p><p>Emoji: 😀 👍 ✓ ✗ ★</p>`,
  forms: () => `<form><label>Name <input value="Jane Doe"></label> <label><input type="checkbox" checked> agree</label> <select><option>Option A</option></select> <textarea>${esc(sentence())}</textarea> <button>Send</button></form>`,
  svgtext: () => `<svg width="400" height="120"><text x="10" y="30" font-size="20">${esc(sentence(3, 5))}</text><text x="10" y="80" font-size="14" transform="rotate(-8 10 80)">${esc(sentence(3, 5))}</text><text x="10" y="110"><tspan font-weight="bold">Bold</tspan> <tspan dx="20">spaced</tspan></text></svg>`,
  generated: () => `<style>.g::before{content:"Before: ";font-weight:bold}.g::after{content:" [after]"}</style><p class="g">${esc(sentence())}</p><ol style="list-style-type:lower-roman"><li>${esc(sentence(3, 6))}</li><li>${esc(sentence(3, 6))}</li></ol>`,
  indentation: () => `<p style="text-indent:3em">${esc(paragraph())}</p><blockquote>${esc(paragraph(2))}</blockquote><p style="margin-left:40%">${esc(sentence())}</p><p style="text-align:right">${esc(sentence())}</p><p style="text-align:center">${esc(sentence())}</p>`,
  tabs: () => `<p>Col A\tCol B\tCol C</p><p>Name: <span style="display:inline-block;width:200px"></span>Value</p><p>${'Dot leader . . . . . . . . . . . . . . . 12'}</p>`,
  spaces: () => `<p>Many&nbsp;&nbsp;&nbsp;&nbsp;spaces&emsp;em&ensp;en&thinsp;thin&hairsp;hair word</p><p style="white-space:pre">pre   kept   spaces</p>`,
};
const LATIN = ['paragraphs', 'justified', 'letterspacing', 'wordspacing', 'smallcaps', 'table', 'twocolumn', 'flexcolumns', 'lists', 'headings', 'inline', 'ligatures', 'accented', 'lineheight', 'indentation', 'dropcap', 'pre', 'tabs', 'spaces', 'symbols', 'hyphenation', 'generated'];

function htmlDoc(kinds, { font = 'serif', size = 12, title = 'Document', extraCss = '', long = 0 } = {}) {
  let rtl = false;
  const body = [];
  body.push(`<h1>${esc(title)}</h1>`);
  for (const k of kinds) {
    const s = SECTIONS[k]();
    const html = typeof s === 'string' ? s : s.html;
    if (typeof s !== 'string' && s.rtl) rtl = true;
    body.push(`<section><h2>${esc(k)}</h2>${html}</section>`);
  }
  for (let i = 0; i < long; i++) body.push(`<h2>Chapter ${i + 1}</h2>${Array.from({ length: 6 }, () => `<p>${esc(paragraph())}</p>`).join('')}`);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>body{font-family:${font};font-size:${size}px;margin:0}${extraCss}</style></head><body>${body.join('\n')}</body></html>`;
  return { html, rtl };
}

/** Seeded random pages in TrueType fonts only (the fonts Chromium writes as Type0/Identity-H with a ToUnicode CMap): each block gets random CSS (size, spacing, weight, style, alignment, transforms, absolute positions, columns). */
const TTF_FONTS = ['"DejaVu Serif"', '"DejaVu Sans"', '"DejaVu Sans Mono"', '"DejaVu Sans Condensed"', '"DejaVu Serif Condensed"', '"Liberation Serif"', '"Liberation Sans"', '"Liberation Mono"', '"Liberation Sans Narrow"', 'serif', 'sans-serif', 'monospace'];
function randomTtfDocuments(count) {
  seed = 4242;
  const docs = [];
  const css = () =>
    [
      `font-family:${pick(TTF_FONTS)}`,
      `font-size:${pick([5, 7, 8, 9, 10, 11, 12, 12, 13, 14, 16, 18, 24, 32])}px`,
      rand() < 0.3 ? `letter-spacing:${pick(['0.05em', '1px', '2px', '-0.3px', '0.2em'])}` : '',
      rand() < 0.2 ? `word-spacing:${pick(['3px', '0.5em', '-1px', '10px'])}` : '',
      rand() < 0.2 ? 'font-weight:bold' : '',
      rand() < 0.2 ? 'font-style:italic' : '',
      rand() < 0.2 ? `text-align:${pick(['justify', 'center', 'right'])}` : '',
      rand() < 0.1 ? `transform:rotate(${pick([-90, -45, -5, 2, 90, 180])}deg)` : '',
      rand() < 0.08 ? `transform:scale(${pick([0.5, 1.5, 2])},${pick([1, 0.7, 2])})` : '',
      rand() < 0.1 ? 'column-count:2' : '',
      rand() < 0.1 ? `line-height:${pick([0.7, 0.9, 1, 2.5])}` : '',
      rand() < 0.08 ? 'font-variant:small-caps' : '',
      rand() < 0.05 ? 'text-transform:uppercase' : '',
      rand() < 0.1 ? `margin-left:${Math.floor(rand() * 300)}px` : '',
    ]
      .filter(Boolean)
      .join(';');
  for (let i = 0; i < count; i++) {
    const blocks = [];
    for (let k = 0; k < 2 + Math.floor(rand() * 10); k++) {
      const r = rand();
      const text = rand() < 0.1 ? pick(['fr', 'de', 'es', 'pl', 'cs', 'el', 'ru', 'uk', 'vi', 'tr'].map((l) => LANG[l])) : paragraph(1 + Math.floor(rand() * 4));
      if (r < 0.55) blocks.push(`<p style="${css()}">${esc(text)}</p>`);
      else if (r < 0.65) blocks.push(`<h${1 + Math.floor(rand() * 4)} style="${css()}">${esc(sentence(2, 7))}</h${1 + Math.floor(rand() * 4)}>`);
      else if (r < 0.75) blocks.push(`<div style="position:relative;height:${40 + Math.floor(rand() * 120)}px"><span style="position:absolute;left:${Math.floor(rand() * 400)}px;top:${Math.floor(rand() * 40)}px;${css()}">${esc(sentence(2, 8))}</span><span style="position:absolute;left:${Math.floor(rand() * 400)}px;top:${Math.floor(rand() * 40)}px;${css()}">${esc(sentence(2, 8))}</span></div>`);
      else if (r < 0.85) blocks.push(`<table style="${css()}" border="${pick([0, 1])}">${Array.from({ length: 2 + Math.floor(rand() * 5) }, () => `<tr>${Array.from({ length: 2 + Math.floor(rand() * 3) }, () => `<td>${esc(rand() < 0.5 ? pick(WORDS) : sentence(1, 4))}</td>`).join('')}</tr>`).join('')}</table>`);
      else if (r < 0.93) blocks.push(`<ul style="${css()}">${Array.from({ length: 2 + Math.floor(rand() * 4) }, () => `<li>${esc(sentence(2, 9))}</li>`).join('')}</ul>`);
      else blocks.push(`<p style="${css()}">${esc(sentence(2, 5))} <b>${esc(sentence(1, 3))}</b> <i>${esc(sentence(1, 3))}</i> <span style="${css()}">${esc(sentence(1, 4))}</span> x<sup>2</sup></p>`);
    }
    docs.push({ name: `random-ttf-${String(i).padStart(3, '0')}`, kind: 'seeded random page, TrueType fonts', html: `<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body style="font-family:${pick(TTF_FONTS)}">${blocks.join('\n')}</body></html>` });
  }
  return docs;
}

/** The HTML documents every HTML-rendering producer converts: one per feature, several fonts, long ones, and seeded mixes. */
function htmlDocuments() {
  seed = 31;
  const docs = [];
  const all = Object.keys(SECTIONS);
  for (const [i, k] of all.entries()) docs.push({ name: `feature-${k}`, kind: k, ...htmlDoc([k], { font: FONTS[i % FONTS.length], title: `Feature ${k}` }) });
  for (const [i, f] of FONTS.entries()) docs.push({ name: `font-${i}-${f.replace(/[^a-z0-9]+/gi, '_')}`, kind: `font ${f}`, ...htmlDoc(['paragraphs', 'inline', 'ligatures', 'table'], { font: f, size: 10 + (i % 5) * 2, title: `Font ${f}` }) });
  for (const [i, n] of [12, 15, 25].entries()) docs.push({ name: `long-${n}`, kind: `long (${n} chapters)`, ...htmlDoc(['paragraphs'], { font: FONTS[i], long: n, title: `Long document ${n}` }) });
  const mixes = SMALL ? 6 : 40;
  for (let i = 0; i < mixes; i++) {
    const kinds = Array.from({ length: 3 + Math.floor(rand() * 4) }, () => (rand() < 0.85 ? pick(LATIN) : pick(all)));
    docs.push({ name: `mix-${String(i).padStart(2, '0')}`, kind: `mix ${kinds.join('+')}`, ...htmlDoc(kinds, { font: pick(FONTS), size: pick([9, 10, 11, 12, 14, 16]), title: sentence(3, 7), long: rand() < 0.2 ? 4 : 0 }) });
  }
  for (const l of Object.keys(LANG)) docs.push({ name: `lang-${l}`, kind: `language ${l}`, rtl: RTL.has(l), html: `<!doctype html><html lang="${l}"><head><meta charset="utf-8"></head><body style="font-family:${['zh', 'ja', 'ko'].includes(l) ? "'WenQuanYi Zen Hei'" : "'DejaVu Sans'"}"${RTL.has(l) ? ' dir="rtl"' : ''}><p>${esc(LANG[l])}</p><p>${esc(LANG[l])}</p></body></html>` });
  return SMALL ? docs.filter((_, i) => i % 4 === 0) : docs;
}

function writeHtml(docs) {
  const d = join(WORK, 'html');
  mkdirSync(d, { recursive: true });
  for (const doc of docs) writeFileSync(join(d, `${doc.name}.html`), doc.html);
  return d;
}

// ---------------------------------------------------------------- producers
const producers = {};

producers.chromium = async () => {
  if (!existsSync('/usr/bin/chromium')) return 'no /usr/bin/chromium';
  const out = dir('chromium');
  const { chromium } = await import('playwright-core');
  const profile = join(WORK, 'chromium-profile');
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  let n = 0;
  try {
    const page = await browser.newPage();
    await page.route('**/*', (route) => (route.request().url().startsWith('data:') || route.request().url() === 'about:blank' ? route.continue() : route.abort()));
    const sizes = [{ format: 'A4' }, { format: 'Letter' }, { format: 'A5' }, { format: 'Legal' }, { format: 'A4', landscape: true }, { width: '4in', height: '6in' }, { format: 'A3' }];
    for (const [i, doc] of [...htmlDocuments(), ...randomTtfDocuments(SMALL ? 10 : 250)].entries()) {
      await page.setContent(doc.html, { waitUntil: 'load' });
      const size = sizes[i % sizes.length];
      const file = join(out, `${doc.name}.pdf`);
      const headerFooter = i % 9 === 4;
      await page.pdf({
        path: file,
        ...size,
        printBackground: i % 2 === 0,
        margin: { top: '1cm', bottom: '1cm', left: '1.5cm', right: '1.5cm' },
        ...(headerFooter ? { displayHeaderFooter: true, headerTemplate: '<div style="font-size:8px;width:100%;text-align:center"><span class="title"></span></div>', footerTemplate: '<div style="font-size:8px;width:100%;text-align:right;padding-right:1cm">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>' } : {}),
      });
      if (record(file, 'chromium', `${doc.kind}; ${JSON.stringify(size)}${headerFooter ? '; header/footer' : ''}`, doc.rtl ? 'ineligible' : undefined)) n++;
    }
  } finally {
    await browser.close();
  }
  // The chromium command line as people run it (--print-to-pdf), with and without its default header/footer (date, URL).
  const html = writeHtml(htmlDocuments().filter((_, i) => i % 11 === 0));
  for (const [i, name] of readdirSync(html).entries()) {
    const file = join(out, `cli-${basename(name, '.html')}.pdf`);
    run('/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${join(WORK, 'cli-profile')}`, ...(i % 2 ? ['--no-pdf-header-footer'] : []), `--print-to-pdf=${file}`, `file://${join(html, name)}`], { quiet: true });
    if (record(file, 'chromium', `chromium --print-to-pdf ${i % 2 ? '--no-pdf-header-footer' : '(default header/footer)'}`)) n++;
  }
  return n;
};

producers.wkhtmltopdf = async () => {
  if (!have('wkhtmltopdf')) return 'wkhtmltopdf not installed';
  const out = dir('wkhtmltopdf');
  const docs = htmlDocuments().filter((_, i) => i % 3 === 0);
  const html = writeHtml(docs);
  let n = 0;
  for (const doc of docs) {
    const file = join(out, `${doc.name}.pdf`);
    run('wkhtmltopdf', ['-q', '--disable-javascript', '--disable-local-file-access', join(html, `${doc.name}.html`), file], { env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' }, quiet: true });
    if (record(file, 'wkhtmltopdf', doc.kind, doc.rtl ? 'ineligible' : undefined)) n++;
  }
  return n;
};

producers.mupdf = async () => {
  if (!have('mutool')) return 'mutool not installed';
  const out = dir('mupdf');
  const docs = htmlDocuments().filter((_, i) => i % 4 === 1);
  const html = writeHtml(docs);
  let n = 0;
  for (const doc of docs) {
    const file = join(out, `${doc.name}.pdf`);
    run('mutool', ['convert', '-o', file, join(html, `${doc.name}.html`)], { quiet: true });
    if (record(file, 'mupdf', doc.kind, doc.rtl ? 'ineligible' : undefined)) n++;
  }
  return n;
};

producers.libreoffice = async () => {
  if (!have('soffice')) return 'soffice not installed';
  const out = dir('libreoffice');
  const docs = htmlDocuments().filter((_, i) => i % 3 === 1);
  const html = writeHtml(docs);
  // Plain-text and Writer documents too: LibreOffice's own layout rather than its HTML import.
  const txt = join(WORK, 'lo-txt');
  mkdirSync(txt, { recursive: true });
  for (let i = 0; i < (SMALL ? 2 : 8); i++) writeFileSync(join(txt, `text-${i}.txt`), Array.from({ length: 4 + i * 6 }, () => paragraph()).join('\n\n') + (i % 3 === 0 ? `\n\n${LANG.fr}\n${LANG.de}\n${LANG.el}\n${LANG.ru}\n` : ''));
  const docxDir = join(root, '../shared/fixtures/docx');
  const docx = existsSync(docxDir) ? readdirSync(docxDir).filter((f) => f.endsWith('.docx')).map((f) => join(docxDir, f)) : [];
  const csv = join(txt, 'table.csv');
  writeFileSync(csv, ['Name,Quantity,Price,Note', ...Array.from({ length: 60 }, (_, i) => `${pick(WORDS)},${i + 1},${(rand() * 500).toFixed(2)},"${sentence(2, 5)}"`)].join('\n'));
  const inputs = [...docs.map((d) => join(html, `${d.name}.html`)), ...readdirSync(txt).filter((f) => f.endsWith('.txt')).map((f) => join(txt, f)), ...docx, csv];
  const profile = `-env:UserInstallation=file://${join(WORK, 'lo-profile')}`;
  for (let i = 0; i < inputs.length; i += 10) run('soffice', [profile, '--headless', '--convert-to', 'pdf:writer_pdf_Export', '--outdir', out, ...inputs.slice(i, i + 10)], { quiet: true, timeout: 300_000 });
  let n = 0;
  for (const doc of docs) if (record(join(out, `${doc.name}.pdf`), 'libreoffice', `${doc.kind} (HTML import)`, doc.rtl ? 'ineligible' : undefined)) n++;
  for (const f of readdirSync(txt).filter((x) => x.endsWith('.txt'))) if (record(join(out, f.replace(/\.txt$/, '.pdf')), 'libreoffice', 'plain text')) n++;
  for (const f of docx) if (record(join(out, basename(f).replace(/\.docx$/, '.pdf')), 'libreoffice', `DOCX fixture ${basename(f)}`)) n++;
  if (record(join(out, 'table.pdf'), 'libreoffice', 'CSV through Calc')) n++;
  return n;
};

const REPORTLAB = String.raw`
import sys, os, json, random
from reportlab.pdfgen import canvas
from reportlab.lib.pagesizes import A4, letter, A5, landscape
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import SimpleDocTemplate, Paragraph, Spacer, Table, TableStyle, PageBreak
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib import colors
out = sys.argv[1]; small = sys.argv[2] == '1'
random.seed(31)
D = '/usr/share/fonts/truetype/dejavu/'
for name, f in [('DejaVuSans', 'DejaVuSans.ttf'), ('DejaVuSerif', 'DejaVuSerif.ttf'), ('DejaVuMono', 'DejaVuSansMono.ttf'), ('DejaVuSans-Bold', 'DejaVuSans-Bold.ttf')]:
    pdfmetrics.registerFont(TTFont(name, D + f))
W = ${JSON.stringify(WORDS)}
L = ${JSON.stringify(LANG)}
def sent(a=6, b=16):
    s = ' '.join(random.choice(W) for _ in range(random.randint(a, b)))
    return s[0].upper() + s[1:] + '.'
def emit(path, kind, expect=None):
    print(json.dumps({'file': path, 'kind': kind, 'expect': expect}))
STD = ['Helvetica', 'Helvetica-Bold', 'Helvetica-Oblique', 'Times-Roman', 'Times-Bold', 'Times-Italic', 'Courier', 'Courier-BoldOblique']
TTF = ['DejaVuSans', 'DejaVuSerif', 'DejaVuMono']
# canvas text with the text-state operators
variants = [
  ('plain', {}), ('charspace', {'charSpace': 1.5}), ('charspace-neg', {'charSpace': -0.4}), ('wordspace', {'wordSpace': 6}),
  ('hscale', {'horizScale': 70}), ('hscale-wide', {'horizScale': 140}), ('rise', {'rise': 4}), ('leading', {'leading': 30}),
  ('render-invisible', {'textRenderMode': 3}), ('render-stroke', {'textRenderMode': 1}),
]
fonts = STD + TTF
for i, (vname, opts) in enumerate(variants):
    for font in (fonts if not small else fonts[:2]):
        if (i + fonts.index(font)) % 3 and not small: continue
        p = os.path.join(out, 'canvas-%s-%s.pdf' % (vname, font))
        c = canvas.Canvas(p, pagesize=random.choice([A4, letter, A5]))
        for page in range(random.randint(1, 3)):
            t = c.beginText(50, 760 if c._pagesize[1] > 700 else 540)
            t.setFont(font, random.choice([8, 10, 11, 12, 14]))
            for k, v in opts.items():
                getattr(t, 'set' + k[0].upper() + k[1:])(v)
            for _ in range(random.randint(10, 30)):
                t.textLine(sent())
            c.drawText(t)
            c.showPage()
        c.save(); emit(p, 'canvas %s %s' % (vname, font))
# positioned strings, rotation, sizes, columns, overprinting
for i in range(4 if small else 14):
    p = os.path.join(out, 'layout-%02d.pdf' % i)
    ps = [A4, letter, landscape(A4), A5][i % 4]
    c = canvas.Canvas(p, pagesize=ps)
    font = fonts[i % len(fonts)]
    c.setFont(font, 11)
    y = ps[1] - 60
    for j in range(25):
        if i % 3 == 0:
            c.drawString(40, y, sent(3, 7)); c.drawString(ps[0] / 2, y, sent(3, 7))  # two columns
        elif i % 3 == 1:
            c.drawRightString(ps[0] - 40, y, sent(2, 6)); c.drawCentredString(ps[0] / 2, y - 6, sent(1, 3))
        else:
            x = 40
            for w in sent(4, 10).split(' '):  # word by word, like many producers
                c.drawString(x, y, w); x += c.stringWidth(w + ' ', font, 11)
        y -= 14 + (i % 4)
        if y < 60: break
    c.saveState(); c.translate(ps[0] / 2, 120); c.rotate([90, 45, 180, -90][i % 4]); c.drawString(0, 0, sent(3, 6)); c.restoreState()
    c.setFont(font, [4, 5, 36, 72][i % 4]); c.drawString(40, 40, sent(2, 4))
    c.showPage(); c.save(); emit(p, 'layout %d (%s)' % (i, font))
# accented and non-Latin text: WinAnsi in the standard fonts, Unicode through an embedded TTF
for font in ['Helvetica', 'Times-Roman', 'DejaVuSans', 'DejaVuSerif']:
    for lang in ['fr', 'de', 'es', 'pl', 'cs', 'el', 'ru', 'ar', 'he']:
        if font in STD and lang in ('el', 'ru', 'ar', 'he', 'pl', 'cs'): continue
        p = os.path.join(out, 'lang-%s-%s.pdf' % (lang, font))
        c = canvas.Canvas(p, pagesize=A4); c.setFont(font, 12)
        c.drawString(50, 780, L[lang]); c.drawString(50, 760, sent()); c.drawString(50, 740, L[lang][:30])
        c.showPage(); c.save(); emit(p, 'language %s %s' % (lang, font), 'ineligible' if lang in ('ar', 'he') else None)
        if small: break
# platypus: flowing documents with paragraphs, tables, headings, long ones
ss = getSampleStyleSheet()
for i in range(3 if small else 12):
    p = os.path.join(out, 'platypus-%02d.pdf' % i)
    doc = SimpleDocTemplate(p, pagesize=[A4, letter][i % 2], title='Platypus %d' % i, author='corpus')
    body = ss['BodyText'].clone('b', fontName=['Times-Roman', 'Helvetica', 'DejaVuSerif', 'DejaVuSans'][i % 4], alignment=[0, 4][i % 2])
    story = [Paragraph('Report %d: %s' % (i, sent(3, 6)), ss['Title'])]
    for ch in range(2 + (i % 4) * (6 if i > 7 else 1)):
        story.append(Paragraph('%d. %s' % (ch + 1, sent(2, 5)), ss['Heading2']))
        for _ in range(random.randint(2, 5)):
            story.append(Paragraph(' '.join(sent() for _ in range(random.randint(3, 6))).replace('of', '<b>of</b>', 1).replace('the', '<i>the</i>', 1), body))
        if ch % 3 == 1:
            data = [['Name', 'Qty', 'Price']] + [[sent(1, 3), str(random.randint(1, 99)), '%.2f' % random.uniform(1, 999)] for _ in range(6)]
            t = Table(data); t.setStyle(TableStyle([('GRID', (0, 0), (-1, -1), 0.5, colors.grey), ('FONTNAME', (0, 0), (-1, 0), 'Helvetica-Bold')]))
            story.append(t)
        story.append(Spacer(1, 8))
    doc.build(story); emit(p, 'platypus %d' % i)
`;

producers.reportlab = async () => {
  if (spawnSync(PY, ['-c', 'import reportlab']).status !== 0) return 'python3-reportlab not installed';
  const out = dir('reportlab');
  seed = 7;
  const r = run(PY, ['-c', REPORTLAB, out, SMALL ? '1' : '0']);
  return recordLines(r, 'reportlab');
};

const CAIRO = String.raw`
import sys, os, json, random, math
import cairo
out = sys.argv[1]; small = sys.argv[2] == '1'
random.seed(5)
W = ${JSON.stringify(WORDS)}
L = ${JSON.stringify(LANG)}
def sent(a=5, b=12):
    s = ' '.join(random.choice(W) for _ in range(random.randint(a, b)))
    return s[0].upper() + s[1:] + '.'
faces = ['DejaVu Serif', 'DejaVu Sans', 'DejaVu Sans Mono', 'Liberation Serif', 'Liberation Sans', 'C059', 'Nimbus Sans', 'Latin Modern Roman']
for i in range(4 if small else 24):
    p = os.path.join(out, 'cairo-%02d.pdf' % i)
    w, h = [(595, 842), (612, 792), (420, 595)][i % 3]
    s = cairo.PDFSurface(p, w, h)
    s.set_metadata(cairo.PDFMetadata.TITLE, 'cairo %d' % i) if hasattr(cairo, 'PDFMetadata') else None
    ctx = cairo.Context(s)
    for page in range(1 + i % 3):
        face = faces[(i + page) % len(faces)]
        ctx.select_font_face(face, [cairo.FONT_SLANT_NORMAL, cairo.FONT_SLANT_ITALIC][i % 2], [cairo.FONT_WEIGHT_NORMAL, cairo.FONT_WEIGHT_BOLD][(i // 2) % 2])
        size = [9, 10, 12, 14, 20][i % 5]
        ctx.set_font_size(size)
        y = 50
        while y < h - 50:
            ctx.move_to(40, y); ctx.show_text(sent())
            y += size * 1.4
        if i % 4 == 1:
            ctx.save(); ctx.translate(w / 2, h / 2); ctx.rotate(math.pi / 2 * (1 + i % 3)); ctx.move_to(0, 0); ctx.show_text(sent(2, 4)); ctx.restore()
        if i % 5 == 2:
            ctx.move_to(40, h - 30); ctx.show_text(L[['fr', 'de', 'el', 'ru', 'pl'][i % 5]])
        ctx.show_page()
    s.finish()
    print(json.dumps({'file': p, 'kind': 'cairo toy text %s' % face}))
`;

// Content-stream idioms written operator by operator (reportlab's canvas, standard fonts): what
// other producers (word processors, typesetters, imposition tools) emit and the HTML producers
// here do not: TJ kerning and word gaps instead of spaces, ' and " operators, 1 Tf with the size in
// the matrix, Tz/Ts/Tc/Tw, mirrored and rotated matrices, character-by-character and word-by-word
// placement, baselines and gaps either side of the layout's line (4.6) and cell (7) thresholds,
// text drawn out of reading order, fake bold, every render mode, odd font sizes, hex/octal/escaped
// strings, form XObjects, text state saved by q/Q, TD/T*, marked content, a missing ET, Symbol and
// ZapfDingbats, WinAnsi specials, /Rotate and a CropBox.
const RAWOPS = String.raw`import sys, os, json
from reportlab.pdfgen import canvas
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
out = sys.argv[1]
def s(t):
    return '(' + t.replace('\\', '\\\\').replace('(', '\\(').replace(')', '\\)') + ')'
TEXT = ['The quick brown fox jumps over the lazy dog', 'Efficient office workflows affect the official profile', 'Numbers 3.14 and 42% and $120 appear here', 'Another line of ordinary running text follows', 'And the final line of this small block ends']
def words(i):
    return TEXT[i % len(TEXT)].split(' ')
CASES = {}
def case(f):
    CASES[f.__name__] = f
    return f
@case
def tj_kern(F, fn):
    o = ['BT /%s 11 Tf 50 780 Td 14 TL' % F]
    for i in range(5):
        parts = []
        for w in words(i):
            parts.append(s(w[:2])); parts.append('-25'); parts.append(s(w[2:] + ' ')); parts.append('15')
        o.append('[%s] TJ T*' % ' '.join(parts))
    return o + ['ET']
@case
def tj_wordgaps(F, fn):
    o = ['BT /%s 11 Tf 50 780 Td 16 TL' % F]
    for gap in [-100, -150, -200, -250, -300, -400, -500, -1000, -2500, -6000]:
        o.append('[%s] TJ T*' % (' %d ' % gap).join(s(w) for w in words(gap)))
    return o + ['ET']
@case
def tj_positive(F, fn):
    o = ['BT /%s 12 Tf 50 780 Td 16 TL' % F]
    for gap in [50, 100, 300, 600]:
        o.append('[%s] TJ T*' % (' %d ' % gap).join(s(w + ' ') for w in words(gap)))
    return o + ['ET']
@case
def quote_ops(F, fn):
    return ['BT /%s 12 Tf 50 780 Td 15 TL' % F, s(TEXT[0]) + ' Tj', s(TEXT[1]) + " '", '3 1 ' + s(TEXT[2]) + ' "', '0 0 ' + s(TEXT[3]) + ' "', s(TEXT[4]) + " '", 'ET']
@case
def unit_font_matrix(F, fn):
    o = ['BT /%s 1 Tf 11 0 0 11 50 760 Tm' % F]
    for i in range(5):
        o.append(s(TEXT[i]) + ' Tj 0 -1.3 Td')
    o.append('/%s 1 Tf 24 0 0 24 50 600 Tm %s Tj' % (F, s('Large by matrix')))
    return o + ['ET']
@case
def hscale(F, fn):
    o = ['BT /%s 12 Tf 50 780 Td 16 TL' % F]
    for tz in [50, 80, 100, 130, 200]:
        o.append('%d Tz [%s] TJ T*' % (tz, ' -200 '.join(s(w) for w in words(tz))))
    return o + ['100 Tz ET']
@case
def rise(F, fn):
    return ['BT /%s 12 Tf 50 780 Td' % F, s('E = mc') + ' Tj 5 Ts /%s 8 Tf (2) Tj 0 Ts /%s 12 Tf ( and H) Tj -3 Ts /%s 8 Tf (2) Tj 0 Ts /%s 12 Tf (O water.) Tj' % (F, F, F, F), '0 -20 Td 12 Ts ' + s('risen a lot') + ' Tj 0 Ts', 'ET']
@case
def tc_tw(F, fn):
    o = ['BT /%s 11 Tf 50 780 Td 16 TL' % F]
    for tc, tw in [(0, 0), (1, 0), (3, 0), (-0.5, 0), (0, 4), (0, 10), (2, 6), (0, -2)]:
        o.append('%s Tc %s Tw %s Tj T*' % (tc, tw, s(TEXT[(tc * 3 + tw) % 5 if isinstance(tc, int) else 0])))
    return o + ['0 Tc 0 Tw ET']
@case
def mirrored(F, fn):
    return ['BT /%s 12 Tf' % F,
            '1 0 0 1 50 780 Tm ' + s(TEXT[0]) + ' Tj',
            '-1 0 0 1 400 740 Tm ' + s(TEXT[1]) + ' Tj',
            '1 0 0 -1 50 700 Tm ' + s(TEXT[2]) + ' Tj',
            '0 1 -1 0 300 400 Tm ' + s(TEXT[3]) + ' Tj',
            '0 -1 1 0 350 600 Tm ' + s(TEXT[4]) + ' Tj',
            '0.866 0.5 -0.5 0.866 100 300 Tm ' + s('Thirty degrees') + ' Tj',
            '1 0 0.3 1 50 200 Tm ' + s('Skewed italic-like text') + ' Tj', 'ET']
@case
def char_by_char(F, fn):
    o = ['BT /%s 11 Tf' % F]
    y = 780
    for i in range(5):
        x = 50.0
        for ch in TEXT[i]:
            o.append('1 0 0 1 %.3f %d Tm %s Tj' % (x, y, s(ch)))
            x += stringWidth(ch, fn, 11)
        y -= 15
    return o + ['ET']
@case
def word_by_word(F, fn):
    o = []
    y = 780
    for i, extra in enumerate([0, 1, 2.5, 3, 4, 6, 6.9, 7.1, 8, 12]):
        x = 50.0
        for w in words(i):
            o.append('BT /%s 11 Tf %.3f %d Td %s Tj ET' % (F, x, y, s(w)))
            x += stringWidth(w, fn, 11) + extra
        y -= 15
    return o
@case
def line_thresholds(F, fn):
    o = []
    y = 780.0
    for dy in [3, 4.5, 4.6, 4.7, 5, 5.6, 6, 8, 10, 11, 11.6, 12, 13, 20]:
        o.append('BT /%s 10 Tf 50 %.2f Td %s Tj ET' % (F, y, s('baseline step %s' % dy)))
        y -= dy
    o.append('BT /%s 10 Tf 50 400 Td (left) Tj ET BT /%s 10 Tf 300 402 Td (right a bit higher) Tj ET' % (F, F))
    o.append('BT /%s 10 Tf 50 380 Td (left) Tj ET BT /%s 10 Tf 300 375 Td (right a bit lower) Tj ET' % (F, F))
    o.append('BT /%s 10 Tf 50 300 Td (big) Tj /%s 30 Tf (BIG) Tj /%s 10 Tf 0 -12 Td (after big) Tj ET' % (F, F, F))
    return o
@case
def out_of_order(F, fn):
    o = []
    for i in range(5):
        o.append('BT /%s 11 Tf 320 %d Td %s Tj ET' % (F, 700 - i * 15, s(TEXT[i][:30])))
    for i in range(5):
        o.append('BT /%s 11 Tf 50 %d Td %s Tj ET' % (F, 640 - i * 15 + 60, s(TEXT[4 - i][:30])))
    for i in range(5):
        o.append('BT /%s 11 Tf 50 %d Td %s Tj ET' % (F, 300 + i * 15, s(TEXT[i])))
    return o
@case
def fake_bold(F, fn):
    o = []
    for i in range(4):
        for dx in (0, 0.3, 0.6):
            o.append('BT /%s 12 Tf %.1f %d Td %s Tj ET' % (F, 50 + dx, 780 - i * 16, s(TEXT[i])))
    return o
@case
def render_modes(F, fn):
    o = ['BT /%s 12 Tf 50 780 Td 16 TL' % F]
    for m in range(8):
        o.append('%d Tr %s Tj T*' % (m, s('render mode %d: %s' % (m, TEXT[m % 5]))))
    return o + ['0 Tr ET']
@case
def odd_sizes(F, fn):
    return ['BT /%s 12 Tf 50 780 Td () Tj %s Tj ET' % (F, s('after empty')),
            'BT /%s 0 Tf 50 760 Td %s Tj ET' % (F, s('zero size text')),
            'BT /%s -12 Tf 50 740 Td %s Tj ET' % (F, s('negative size text')),
            'BT /%s 0.5 Tf 50 720 Td %s Tj ET' % (F, s('half point text')),
            'BT /%s 200 Tf 50 500 Td %s Tj ET' % (F, s('Huge')),
            'BT /%s 12 Tf 50 450 Td %s Tj ET' % (F, s('normal after'))]
@case
def strings(F, fn):
    return ['BT /%s 12 Tf 50 780 Td 16 TL' % F,
            '<48656C6C6F20686578> Tj T*', '<48656c6c6f206c6f776572> Tj T*', '<48 65 6C 6C 6F 20 73 70 61 63 65 64> Tj T*', '<48656C6C6F2> Tj T*',
            r'(Octal \101\102\103 and \50parens\51) Tj T*', r'(Escaped \(parens\) and \\ backslash) Tj T*',
            '(Line continued \\\nhere) Tj T*', r'(Tab\there and CR\rand LF\nend) Tj T*', '(Balanced (nested) parens) Tj T*', 'ET']
@case
def form_xobject(F, fn):
    return 'FORM'
@case
def state_in_q(F, fn):
    return ['BT /%s 10 Tf 50 780 Td' % F, 'q /%s 30 Tf 3 Tc Q' % F, s('after q/Q the font is ten points again, or is it?') + ' Tj', 'ET',
            'q 1 0 0 1 0 -40 cm BT /%s 12 Tf 50 760 Td %s Tj ET Q' % (F, s('moved by cm')),
            'q 2 0 0 2 0 0 cm BT /%s 6 Tf 25 340 Td %s Tj ET Q' % (F, s('scaled by cm 2x')),
            'BT /%s 12 Tf 50 600 Td 1 0 0 rg %s Tj 0 0 1 rg %s Tj 0 g %s Tj ET' % (F, s('red '), s('blue '), s('black'))]
@case
def td_leading(F, fn):
    return ['BT /%s 12 Tf 50 780 Td' % F, s(TEXT[0]) + ' Tj 0 -18 TD', s(TEXT[1]) + ' Tj T*', s(TEXT[2]) + ' Tj 20 -18 TD', s(TEXT[3]) + ' Tj T*', s(TEXT[4]) + ' Tj', 'ET']
@case
def marked_content(F, fn):
    return ['/Span <</ActualText (fi)>> BDC BT /%s 12 Tf 50 780 Td %s Tj ET EMC' % (F, s('ActualText replaced')),
            '/P <</MCID 0>> BDC BT /%s 12 Tf 50 760 Td %s Tj ET EMC' % (F, s('Tagged paragraph')),
            '/Artifact BMC BT /%s 9 Tf 50 40 Td %s Tj ET EMC' % (F, s('Page artifact footer')),
            '/OC /oc1 BDC BT /%s 12 Tf 50 700 Td %s Tj ET EMC' % (F, s('optional content'))]
@case
def missing_et(F, fn):
    return ['BT /%s 12 Tf 50 780 Td %s Tj' % (F, s('no ET at the end of the stream'))]
@case
def symbol_fonts(F, fn):
    return 'SYMBOL'
@case
def many_spaces(F, fn):
    return ['BT /%s 11 Tf 50 780 Td 15 TL' % F, s('Double  spaces  between  words') + ' Tj T*', s('   leading and trailing spaces   ') + ' Tj T*', s('Tabs\tbetween\twords') + ' Tj T*', '( ) Tj T*', s('word') + ' Tj ( ) Tj ( ) Tj ( ) Tj ' + s('word') + ' Tj T*', 'ET']
@case
def nonbreaking(F, fn):
    return ['BT /%s 11 Tf 50 780 Td 15 TL' % F, '(caf\\351 na\\357ve fa\\347ade \\240nbsp\\240 \\255soft \\226 en \\227 em \\205 ellipsis \\223quotes\\224 \\200 euro) Tj T*', '(ligature chars \\036 \\037) Tj', 'ET']
fonts = [('Helvetica', 'hel'), ('Times-Roman', 'tim'), ('Courier', 'cou')]
n = 0
for name, f in CASES.items():
    for fi, (fn, tag) in enumerate(fonts):
        if fi and name in ('form_xobject', 'symbol_fonts', 'missing_et', 'marked_content'): continue
        if fi == 2 and name not in ('word_by_word', 'char_by_char', 'tj_wordgaps', 'line_thresholds', 'many_spaces'): continue
        p = os.path.join(out, 'rawops-%s-%s.pdf' % (name, tag))
        c = canvas.Canvas(p, pagesize=A4, pageCompression=n % 2)
        c.setFont(fn, 12)
        F = c._doc.getInternalFontName(fn)[1:]
        body = f(F, fn)
        if body == 'FORM':
            c.beginForm('hdr'); c.setFont(fn, 10); c.drawString(0, 0, 'Header in a form XObject'); c.drawString(0, -12, TEXT[1]); c.endForm()
            c.doForm('hdr'); c.saveState(); c.translate(50, 780); c.doForm('hdr'); c.restoreState(); c.saveState(); c.translate(50, 400); c.rotate(90); c.doForm('hdr'); c.restoreState()
            c.drawString(50, 600, 'Body text on the page itself')
        elif body == 'SYMBOL':
            c.setFont('Symbol', 14); c.drawString(50, 780, 'abgdpqWS')  # Greek in Symbol's built-in encoding
            c.setFont('ZapfDingbats', 14); c.drawString(50, 750, '3456nlu')
            c.setFont(fn, 12); c.drawString(50, 720, 'plain text after symbol fonts')
        else:
            c._code.append('\n'.join(body))
        if name == 'line_thresholds' and fi == 1: c.setPageRotation(90)
        if name == 'word_by_word' and fi == 1: c.setCropBox((40, 100, 500, 800))
        if name == 'tj_wordgaps' and fi == 1: c.setPageRotation(270)
        c.showPage()
        if name in ('word_by_word', 'tj_kern'):
            c.setFont(fn, 12); c.drawString(50, 780, 'second page ' + TEXT[2]); c.showPage()
        c.save()
        n += 1
        print(json.dumps({'file': p, 'kind': 'raw operators: %s (%s)' % (name, fn)}))
`;


/**
 * Records the files a generator script printed, one JSON object per line (`{ file, kind, expect? }`;
 * other lines, such as a PHP or Ruby library's notices, are skipped), under `producer`; returns how
 * many were recorded.
 */
function recordLines(r, producer) {
  let n = 0;
  for (const line of (r.stdout ?? '').split('\n').filter((l) => l.startsWith('{'))) {
    const e = JSON.parse(line);
    if (record(e.file, producer, e.kind, e.expect ?? undefined)) n++;
  }
  return n;
}

producers['reportlab-rawops'] = async () => {
  if (spawnSync(PY, ['-c', 'import reportlab']).status !== 0) return 'python3-reportlab not installed';
  const out = dir('reportlab-rawops');
  const r = run(PY, ['-c', RAWOPS, out]);
  return recordLines(r, 'reportlab-rawops');
};

// Seeded random content streams in the standard 14 fonts (uncompressed): text operators in random
// order and values, strings with WinAnsi specials, q/cm around text objects.
const FUZZ = String.raw`import sys, os, json, random
from reportlab.pdfgen import canvas
from reportlab.lib.pagesizes import A4
out = sys.argv[1]; count = int(sys.argv[2])
FONTS = ['Helvetica', 'Helvetica-Bold', 'Times-Roman', 'Times-Italic', 'Courier', 'Courier-Bold', 'Helvetica-Oblique', 'Times-BoldItalic']
WORDS = 'the of and office efficient fluffy flight report evidence claim value 3.14 42% $120 e-mail naïve café résumé façade Größe über Straße señor año œuvre déjà vu'.split()
SPECIAL = [0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x99, 0xA0, 0xA9, 0xAD, 0xB0, 0xB7, 0xBF, 0xC9, 0xD7, 0xDF, 0xE9, 0xF1, 0xF7, 0xFC, 0x09, 0x20]
def pstr(r):
    kind = r.random()
    if kind < 0.05: return '()'
    if kind < 0.12:
        return '(' + ''.join('\\%03o' % r.choice(SPECIAL) for _ in range(r.randint(1, 6))) + ')'
    s = ' '.join(r.choice(WORDS) for _ in range(r.randint(1, 5)))
    if r.random() < 0.3: s = ' ' + s
    if r.random() < 0.3: s = s + ' '
    b = s.encode('cp1252')
    return '(' + ''.join(chr(c) if 32 <= c < 127 and chr(c) not in '()\\' else '\\%03o' % c for c in b) + ')'
def block(r, F):
    o = ['BT', '/%s %s Tf' % (r.choice(F), r.choice([6, 8, 9, 10, 10, 11, 12, 12, 14, 18, 24]))]
    x, y = r.uniform(20, 400), r.uniform(60, 800)
    if r.random() < 0.15:
        m = r.choice([(1, 0, 0, 1), (0, 1, -1, 0), (-1, 0, 0, -1), (0, -1, 1, 0), (1, 0, 0.25, 1), (0.9, 0.2, -0.2, 0.9), (2, 0, 0, 2), (1, 0, 0, -1)])
        o.append('%s %s %s %s %.2f %.2f Tm' % (m + (x, y)))
    elif r.random() < 0.1:
        sz = r.choice([8, 10, 12])
        o.append('/%s 1 Tf %d 0 0 %d %.2f %.2f Tm' % (r.choice(F), sz, sz, x, y))
    else:
        o.append('%.2f %.2f Td' % (x, y))
    for _ in range(r.randint(1, 12)):
        p = r.random()
        if p < 0.30: o.append(pstr(r) + ' Tj')
        elif p < 0.48:
            arr = []
            for _ in range(r.randint(1, 6)):
                arr.append(pstr(r))
                if r.random() < 0.7: arr.append(str(r.choice([-3000, -1000, -500, -300, -250, -200, -150, -100, -50, -20, -5, 5, 20, 100, 250, r.randint(-400, 200)])))
            o.append('[%s] TJ' % ' '.join(arr))
        elif p < 0.55: o.append('%.2f %.2f Td' % (r.choice([0, 0, r.uniform(-50, 200)]), r.choice([0, -r.choice([3, 4.5, 4.6, 4.7, 5, 6, 10, 12, 14, 20]), r.uniform(-30, 30)])))
        elif p < 0.59: o.append('%.1f TL T*' % r.choice([0, 5, 10, 12, 14, -12]))
        elif p < 0.62: o.append('%.2f %.2f TD' % (r.uniform(-20, 40), -r.choice([4, 12, 16])))
        elif p < 0.66: o.append('%.2f Tc' % r.choice([0, 0, 0.5, 1, 2, -0.5, 5]))
        elif p < 0.70: o.append('%.2f Tw' % r.choice([0, 0, 2, 5, -1, 10]))
        elif p < 0.73: o.append('%d Tz' % r.choice([100, 100, 50, 80, 120, 200]))
        elif p < 0.76: o.append('%d Ts' % r.choice([0, 0, 3, -3, 8]))
        elif p < 0.78: o.append('%d Tr' % r.choice([0, 0, 0, 1, 2, 3, 7]))
        elif p < 0.83: o.append('/%s %s Tf' % (r.choice(F), r.choice([0, 1, 4, 8, 10, 12, 16, 30, -10])))
        elif p < 0.87: o.append(pstr(r) + " '")
        elif p < 0.89: o.append('%.1f %.1f %s "' % (r.choice([0, 1, 3]), r.choice([0, 0.5, 2]), pstr(r)))
        elif p < 0.92: o.append('q 1 0 0 rg Q')
        elif p < 0.95: o.append('0.%d g' % r.randint(0, 9))
        else: o.append('%.2f %.2f %.2f %.2f %.2f %.2f Tm' % (1, 0, 0, 1, r.uniform(20, 400), r.uniform(60, 800)))
    o.append('ET')
    return o
for i in range(count):
    r = random.Random(1000 + i)
    p = os.path.join(out, 'fuzz-%03d.pdf' % i)
    c = canvas.Canvas(p, pagesize=A4, pageCompression=0)
    names = []
    for fn in r.sample(FONTS, r.randint(1, 4)):
        c.setFont(fn, 12); names.append(c._doc.getInternalFontName(fn)[1:])
    ops = []
    for _ in range(r.randint(3, 20)):
        q = r.random()
        if q < 0.1: ops += ['q', '%.2f 0 0 %.2f %.1f %.1f cm' % (r.choice([1, 0.5, 2]), r.choice([1, 0.5, 2, -1]), r.uniform(-50, 50), r.uniform(-50, 300))] + block(r, names) + ['Q']
        elif q < 0.15: ops += ['q 0 1 -1 0 %.1f %.1f cm' % (r.uniform(300, 500), r.uniform(0, 200))] + block(r, names) + ['Q']
        else: ops += block(r, names)
    c._code.append('\n'.join(ops))
    c.showPage(); c.save()
    print(json.dumps({'file': p, 'kind': 'seeded random content stream %d (standard fonts)' % i}))
`;

producers['reportlab-fuzz'] = async () => {
  if (spawnSync(PY, ['-c', 'import reportlab']).status !== 0) return 'python3-reportlab not installed';
  const out = dir('reportlab-fuzz');
  const r = run(PY, ['-c', FUZZ, out, String(SMALL ? 10 : 300)]);
  return recordLines(r, 'reportlab-fuzz');
};

// Seeded random text objects in embedded TrueType subsets (DejaVu; ReportLab's simple-font subsets
// with a ToUnicode CMap), content uncompressed: spacing, scaling, rise, render modes, font changes.
const TTF_FUZZ = String.raw`import sys, os, json, random
from reportlab.pdfgen import canvas
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab import rl_config
out = sys.argv[1]; count = int(sys.argv[2])
D = '/usr/share/fonts/truetype/dejavu/'
F = []
for name, f in [('DejaVuSans', 'DejaVuSans.ttf'), ('DejaVuSerif', 'DejaVuSerif.ttf'), ('DejaVuMono', 'DejaVuSansMono.ttf'), ('DejaVuSans-Bold', 'DejaVuSans-Bold.ttf'), ('DejaVuSerif-Italic', 'DejaVuSerif-Italic.ttf')]:
    pdfmetrics.registerFont(TTFont(name, D + f)); F.append(name)
WORDS = 'the of and office efficient fluffy flight report evidence claim value 3.14 42% $120 naïve café Größe Straße œuvre déjà Ελληνικά Αθήνα Русский Москва ёлка Łódź źdźbło Việt Nam “quoted” — … € ½ ∑ √ ≤ → ★'.split()
for i in range(count):
    r = random.Random(7000 + i)
    p = os.path.join(out, 'ttf-fuzz-%03d.pdf' % i)
    c = canvas.Canvas(p, pagesize=A4, pageCompression=0)
    for _ in range(r.randint(2, 12)):
        t = c.beginText(r.uniform(20, 400), r.uniform(60, 800))
        t.setFont(r.choice(F), r.choice([6, 8, 10, 11, 12, 14, 18, 24]))
        for _ in range(r.randint(1, 10)):
            q = r.random()
            if q < 0.45: t.textOut(' '.join(r.choice(WORDS) for _ in range(r.randint(1, 6))) + r.choice(['', ' ']))
            elif q < 0.6: t.textLine(' '.join(r.choice(WORDS) for _ in range(r.randint(1, 6))))
            elif q < 0.67: t.setCharSpace(r.choice([0, 0, 0.5, 1, 2, -0.5]))
            elif q < 0.72: t.setWordSpace(r.choice([0, 0, 3, 8, -1]))
            elif q < 0.77: t.setHorizScale(r.choice([100, 100, 60, 130]))
            elif q < 0.81: t.setRise(r.choice([0, 0, 3, -3]))
            elif q < 0.86: t.moveCursor(r.uniform(-20, 80), r.choice([0, 4.5, 5, 12, -6]))
            elif q < 0.92: t.setFont(r.choice(F), r.choice([6, 9, 12, 20]))
            elif q < 0.95: t.setTextRenderMode(r.choice([0, 0, 3]))
            else: t.setLeading(r.choice([8, 12, 14, 30]))
        if r.random() < 0.15:
            c.saveState(); c.translate(300, 400); c.rotate(r.choice([90, 180, 270, 30])); c.drawText(t); c.restoreState()
        else:
            c.drawText(t)
    c.showPage(); c.save()
    print(json.dumps({'file': p, 'kind': 'seeded random text objects %d (embedded TrueType subsets)' % i}))
`;

producers['reportlab-ttf-fuzz'] = async () => {
  if (spawnSync(PY, ['-c', 'import reportlab']).status !== 0) return 'python3-reportlab not installed';
  const out = dir('reportlab-ttf-fuzz');
  const r = run(PY, ['-c', TTF_FUZZ, out, String(SMALL ? 10 : 150)]);
  return recordLines(r, 'reportlab-ttf-fuzz');
};

producers.cairo = async () => {
  if (spawnSync(PY, ['-c', 'import cairo']).status !== 0) return 'python3-cairo not installed';
  const out = dir('cairo');
  const r = run(PY, ['-c', CAIRO, out, SMALL ? '1' : '0']);
  return recordLines(r, 'cairo');
};

producers.pango = async () => {
  if (!have('pango-view')) return 'pango-view not installed';
  const out = dir('pango');
  seed = 11;
  let n = 0;
  const fonts = ['DejaVu Serif 11', 'DejaVu Sans 10', 'Liberation Serif 12', 'Liberation Sans 9', 'DejaVu Sans Mono 9', 'C059 11', 'Latin Modern Roman 12'];
  const texts = [
    ...Array.from({ length: SMALL ? 2 : 10 }, (_, i) => ({ name: `prose-${i}`, text: Array.from({ length: 2 + i * 3 }, () => paragraph()).join('\n\n'), kind: 'prose' })),
    ...Object.keys(LANG).map((l) => ({ name: `lang-${l}`, text: `${LANG[l]}\n${sentence()}\n${LANG[l]}`, kind: `language ${l}`, expect: RTL.has(l) ? 'ineligible' : undefined })),
    { name: 'markup', text: `<b>Bold</b> <i>italic</i> <span letter_spacing="3000">spaced</span> <span font_features="liga=0">office</span> <small>small</small> <big>big</big> x<sup>2</sup>\n${paragraph()}`, kind: 'pango markup', markup: true },
  ];
  for (const [i, t] of texts.entries()) {
    const src = join(WORK, `pango-${t.name}.txt`);
    writeFileSync(src, t.text);
    const file = join(out, `${t.name}.pdf`);
    const font = /zh|ja|ko/.test(t.name) ? 'WenQuanYi Zen Hei 12' : fonts[i % fonts.length];
    run('pango-view', ['-q', '--output', file, `--font=${font}`, `--width=${[450, 500, 300][i % 3]}`, '--wrap=word', ...(i % 4 === 1 ? ['--justify'] : []), ...(i % 5 === 2 ? ['--rotate=90'] : []), ...(t.markup ? ['--markup'] : []), src], { quiet: true });
    if (record(file, 'pango', `${t.kind}; ${font}`, t.expect)) n++;
  }
  return n;
};

producers.rsvg = async () => {
  if (!have('rsvg-convert')) return 'rsvg-convert not installed';
  const out = dir('rsvg');
  seed = 13;
  let n = 0;
  for (let i = 0; i < (SMALL ? 3 : 16); i++) {
    const lines = Array.from({ length: 8 + (i % 5) * 4 }, (_, j) => {
      const y = 40 + j * 22;
      const attrs = [
        '',
        ' letter-spacing="2"',
        ' font-weight="bold"',
        ` transform="rotate(${(j % 3) * 5} 20 ${y})"`,
        ' word-spacing="8"',
        ' font-style="italic"',
      ][(i + j) % 6];
      return j % 4 === 3
        ? `<text x="20" y="${y}" font-size="14"${attrs}><tspan>${esc(sentence(2, 4))}</tspan> <tspan fill="red" font-weight="bold">${esc(sentence(1, 3))}</tspan></text>`
        : `<text x="20" y="${y}" font-family="${['DejaVu Serif', 'DejaVu Sans', 'Liberation Sans', 'monospace'][i % 4]}" font-size="${[12, 14, 10, 18][j % 4]}"${attrs}>${esc(i % 7 === 3 && j === 2 ? LANG.el : sentence(3, 8))}</text>`;
    });
    const path = i % 4 === 2 ? `<path id="arc" d="M 40 600 Q 300 450 560 600" fill="none"/><text font-size="16"><textPath href="#arc">${esc(sentence(4, 7))}</textPath></text>` : '';
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="800">${lines.join('')}${path}</svg>`;
    const src = join(WORK, `rsvg-${i}.svg`);
    writeFileSync(src, svg);
    const file = join(out, `svg-${String(i).padStart(2, '0')}.pdf`);
    run('rsvg-convert', ['-f', 'pdf', '-o', file, src], { quiet: true });
    if (record(file, 'rsvg', `svg text ${i}${path ? ' textPath' : ''}`)) n++;
  }
  return n;
};

/** A spread of man pages (every k-th of the sorted list, so the same on one machine). */
function manPages(count) {
  const dirs = ['/usr/share/man/man1', '/usr/share/man/man5', '/usr/share/man/man8', '/usr/share/man/man3'];
  const all = dirs.filter(existsSync).flatMap((d) => readdirSync(d).filter((f) => /\.\d\w*\.gz$/.test(f)).sort().map((f) => join(d, f)));
  const step = Math.max(1, Math.floor(all.length / count));
  return all.filter((_, i) => i % step === 0).slice(0, count);
}

producers.ghostscript = async () => {
  if (!have('ps2pdf') || !have('groff')) return 'ghostscript or groff not installed';
  const out = dir('ghostscript');
  let n = 0;
  for (const man of manPages(SMALL ? 4 : 40)) {
    const name = basename(man).replace(/\.gz$/, '');
    const ps = join(WORK, `${name}.ps`);
    const g = spawnSync('sh', ['-c', `zcat '${man}' | groff -Tps -man -P-pa4 2>/dev/null > '${ps}'`]);
    if (g.status !== 0) continue;
    const file = join(out, `man-${name}.pdf`);
    run('ps2pdf', [ps, file], { quiet: true });
    if (record(file, 'ghostscript', `groff -Tps man page ${name} | ps2pdf`)) n++;
  }
  // Source and text files through enscript (Courier, the way many older tools print text).
  if (have('enscript')) {
    const sources = [join(root, 'README.md'), join(root, 'package.json'), join(root, 'src/engine/document/pdf/pdfjs-reader.ts'), join(root, 'scripts/build.mjs'), join(root, 'docs/document.md')].filter(existsSync);
    for (const [i, src] of sources.entries()) {
      const ps = join(WORK, `enscript-${i}.ps`);
      spawnSync('enscript', ['-q', ...(i % 2 ? ['-2r'] : ['-B']), '-p', ps, src]);
      const file = join(out, `enscript-${basename(src)}.pdf`);
      run('ps2pdf', [ps, file], { quiet: true });
      if (record(file, 'ghostscript', `enscript ${i % 2 ? '2-up rotated' : 'plain'} | ps2pdf`)) n++;
    }
  }
  return n;
};

producers.gropdf = async () => {
  if (spawnSync('sh', ['-c', "printf 'x\\n' | groff -Tpdf > /dev/null 2>&1"]).status !== 0) return 'groff -Tpdf (gropdf) not available';
  const out = dir('gropdf');
  let n = 0;
  for (const man of manPages(SMALL ? 2 : 15).reverse()) {
    const name = basename(man).replace(/\.gz$/, '');
    const file = join(out, `man-${name}.pdf`);
    spawnSync('sh', ['-c', `zcat '${man}' | groff -Tpdf -man 2>/dev/null > '${file}'`]);
    if (record(file, 'gropdf', `groff -Tpdf man page ${name}`)) n++;
  }
  return n;
};

const TEX = {
  article: (p) => `\\documentclass{article}\\begin{document}\\title{${p.title}}\\author{Corpus}\\maketitle\\section{Introduction}${p.paras(4)}\\subsection{Details}${p.paras(3)}\\begin{itemize}\\item ${p.s()}\\item ${p.s()}\\end{itemize}\\begin{enumerate}\\item ${p.s()}\\item ${p.s()}\\end{enumerate}${p.paras(2)}\\end{document}`,
  twocolumn: (p) => `\\documentclass[twocolumn]{article}\\begin{document}\\section{Two columns}${p.paras(12)}\\end{document}`,
  t1accents: (p) => `\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\\begin{document}${p.latin}\\par ${p.paras(3)}\\end{document}`,
  ot1accents: (p) => `\\documentclass{article}\\usepackage[utf8]{inputenc}\\begin{document}${p.latin}\\par ${p.paras(3)}\\end{document}`,
  lmodern: (p) => `\\documentclass{article}\\usepackage{lmodern}\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\\begin{document}${p.latin}\\par ${p.paras(4)}\\end{document}`,
  times: (p) => `\\documentclass{article}\\usepackage{mathptmx}\\usepackage[scaled]{helvet}\\begin{document}\\section{Times and Helvetica}${p.paras(4)}\\textsf{${p.s()}}\\end{document}`,
  palatino: (p) => `\\documentclass{article}\\usepackage{mathpazo}\\begin{document}${p.paras(4)}\\end{document}`,
  math: (p) => `\\documentclass{article}\\begin{document}${p.paras(2)} Inline $a^2+b^2=c^2$ and $\\sum_{i=1}^n i = \\frac{n(n+1)}{2}$. \\[ \\int_0^\\infty e^{-x^2}\\,dx = \\frac{\\sqrt{\\pi}}{2} \\] \\begin{equation} \\alpha + \\beta \\leq \\gamma \\end{equation} ${p.paras(2)}\\end{document}`,
  tables: (p) => `\\documentclass{article}\\begin{document}${p.paras(1)}\\begin{tabular}{|l|r|c|}\\hline Name & Amount & Code\\\\\\hline ${Array.from({ length: 8 }, () => `${p.w()} & ${(rand() * 1000).toFixed(2)} & ${p.w()}\\\\`).join(' ')}\\hline\\end{tabular}\\par ${p.paras(2)}\\end{document}`,
  footnotes: (p) => `\\documentclass{article}\\begin{document}${p.s()}\\footnote{${p.s()}} ${p.paras(2)}\\footnote{${p.s()}}\\par\\textsc{Small Caps Text} \\textbf{bold} \\emph{emphasis} \\texttt{typewriter} \\lq\\lq{}quotes'' -- --- \\ldots\\end{document}`,
  report: (p) => `\\documentclass{report}\\begin{document}${Array.from({ length: 14 }, (_, i) => `\\chapter{Chapter ${i + 1}}${p.paras(6)}`).join('')}\\end{document}`,
  letter: (p) => `\\documentclass{letter}\\signature{A. Corpus}\\address{1 Main St\\\\Town}\\begin{document}\\begin{letter}{Recipient\\\\Street}\\opening{Dear Sir,}${p.paras(3)}\\closing{Yours,}\\end{letter}\\end{document}`,
  ligatures: (p) => `\\documentclass{article}\\begin{document}office official efficient affluent fluffy flight fifty waffle shuffle afflict scaffold --- \\lq\\lq{}ff'' ffi ffl. ${p.paras(2)}\\end{document}`,
  smallfont: (p) => `\\documentclass[10pt]{article}\\begin{document}{\\tiny ${p.paras(2)}}{\\Huge ${p.s()}}{\\scriptsize ${p.paras(1)}}\\end{document}`,
  greekcyr: (p) => `\\documentclass{article}\\usepackage[T2A,T1]{fontenc}\\usepackage[utf8]{inputenc}\\begin{document}${p.paras(1)} {\\fontencoding{T2A}\\selectfont Москва, Съешь же ещё этих мягких булок.}\\end{document}`,
  verbatim: (p) => `\\documentclass{article}\\begin{document}${p.paras(1)}\\begin{verbatim}\nint main(void) {\n    return 0; /* spaces */\n}\n\\end{verbatim}${p.paras(1)}\\end{document}`,
  justified: (p) => `\\documentclass[a5paper]{article}\\usepackage[T1]{fontenc}\\begin{document}\\sloppy ${p.paras(10)}\\end{document}`,
  book: (p) => `\\documentclass{book}\\begin{document}\\frontmatter\\tableofcontents\\mainmatter${Array.from({ length: 5 }, (_, i) => `\\chapter{Part ${i + 1}}\\section{S}${p.paras(5)}`).join('')}\\end{document}`,
};

producers.pdftex = async () => {
  if (!have('pdflatex')) return 'pdflatex not installed';
  const out = dir('pdftex');
  const work = join(WORK, 'tex');
  mkdirSync(work, { recursive: true });
  seed = 17;
  const texEsc = (s) => s.replace(/[\\{}$&#%_^~]/g, (c) => `\\${c === '\\' ? 'textbackslash{}' : c}`).replace(/[“”]/g, '"').replace(/[‘’]/g, "'").replace(/…/g, '\\ldots{}').replace(/—/g, '---');
  const p = {
    s: () => texEsc(sentence()),
    w: () => texEsc(pick(WORDS)),
    paras: (k) => Array.from({ length: k }, () => texEsc(paragraph())).join('\n\n') + '\n\n',
    latin: ['fr', 'de', 'es', 'pl', 'cs'].map((l) => LANG[l]).join('\n\n'),
    title: 'A Corpus Document',
  };
  let n = 0;
  const entries = Object.entries(TEX).filter((_, i) => !SMALL || i % 4 === 0);
  for (const [name, make] of entries) {
    writeFileSync(join(work, `${name}.tex`), make(p));
    // twice for the table of contents / page references
    for (let k = 0; k < (name === 'book' ? 2 : 1); k++) run('pdflatex', ['-interaction=batchmode', `${name}.tex`], { cwd: work, quiet: true });
    const pdf = join(work, `${name}.pdf`);
    if (existsSync(pdf)) {
      copyFileSync(pdf, join(out, `${name}.pdf`));
      if (record(join(out, `${name}.pdf`), 'pdftex', `pdflatex ${name}`)) n++;
    } else process.stderr.write(`  pdflatex ${name}: no PDF (missing package?)\n`);
  }
  // The older routes from the same sources: latex → dvips → ps2pdf (the arXiv way, Ghostscript
  // re-encodes the Type 1 fonts) and latex → dvipdfmx.
  const dvi = join(WORK, 'dvi');
  mkdirSync(dvi, { recursive: true });
  const viaDvi = entries.filter((_, i) => i % 2 === 0);
  for (const [name, make] of viaDvi) {
    writeFileSync(join(dvi, `${name}.tex`), make(p));
    run('latex', ['-interaction=batchmode', `${name}.tex`], { cwd: dvi, quiet: true });
    if (!existsSync(join(dvi, `${name}.dvi`))) continue;
    if (have('dvips') && have('ps2pdf')) {
      run('dvips', ['-q', '-o', `${name}.ps`, `${name}.dvi`], { cwd: dvi, quiet: true });
      const file = join(out, `dvips-${name}.pdf`);
      run('ps2pdf', [join(dvi, `${name}.ps`), file], { quiet: true });
      if (record(file, 'dvips+ghostscript', `latex ${name} | dvips | ps2pdf`)) n++;
    }
    if (have('dvipdfmx')) {
      const file = join(out, `dvipdfmx-${name}.pdf`);
      run('dvipdfmx', ['-q', '-o', file, `${name}.dvi`], { cwd: dvi, quiet: true });
      if (record(file, 'dvipdfmx', `latex ${name} | dvipdfmx`)) n++;
    }
  }
  return n;
};

/** Seeded random LaTeX documents (pdfTeX): font packages, microtype's expansion and protrusion, hyperref, babel, multicol, tables, math, footnotes, mixed font commands; set "stress". */
producers['pdftex-random'] = async () => {
  if (!have('pdflatex')) return 'pdflatex not installed';
  const out = dir('pdftex-random');
  const work = join(WORK, 'tex-random');
  mkdirSync(work, { recursive: true });
  seed = 29;
  const texEsc = (s) => s.replace(/[\\{}$&#%_^~]/g, (c) => `\\${c === '\\' ? 'textbackslash{}' : c}`).replace(/[“”]/g, '"').replace(/[‘’]/g, "'").replace(/…/g, '\\ldots{}').replace(/—/g, '---');
  const fontPkgs = ['', '\\usepackage{lmodern}', '\\usepackage{mathptmx}', '\\usepackage{mathpazo}', '\\usepackage{helvet}\\renewcommand{\\familydefault}{\\sfdefault}', '\\usepackage{bookman}', '\\usepackage{charter}', '\\usepackage{utopia}', '\\usepackage{newcent}', '\\usepackage{courier}', '\\usepackage{avant}\\renewcommand{\\familydefault}{\\sfdefault}'];
  const inline = () => {
    const w = texEsc(sentence(2, 5)).replace(/\.$/, '');
    return pick([`\\textbf{${w}}`, `\\textit{${w}}`, `\\emph{${w}}`, `\\textsc{${w}}`, `\\texttt{${w}}`, `\\textsf{${w}}`, `{\\small ${w}}`, `{\\large ${w}}`, `\\underline{${w}}`, `$x_{${Math.floor(rand() * 9)}}^2 + \\alpha$`, `\\footnote{${w}}`, `\\lq\\lq{}${w}''`, `${w}---${w}`, `\\href{https://example.com/}{${w}}`]);
  };
  const para = () => Array.from({ length: 2 + Math.floor(rand() * 5) }, () => `${texEsc(sentence())} ${rand() < 0.5 ? inline() : ''}`).join(' ');
  let n = 0;
  for (let i = 0; i < (SMALL ? 4 : 60); i++) {
    const opts = pick(['', '10pt', '11pt', '12pt', 'twocolumn', 'a4paper', 'letterpaper,11pt']);
    const pkgs = [pick(fontPkgs), rand() < 0.5 ? '\\usepackage[T1]{fontenc}' : '', '\\usepackage[utf8]{inputenc}', rand() < 0.4 ? '\\usepackage{microtype}' : '', rand() < 0.4 ? '\\usepackage{hyperref}' : '\\newcommand{\\href}[2]{#2}', rand() < 0.3 ? '\\usepackage[margin=2cm]{geometry}' : '', rand() < 0.3 ? '\\usepackage{multicol}' : '', rand() < 0.3 ? '\\usepackage{amsmath}' : '', rand() < 0.2 ? '\\usepackage{booktabs}' : '', rand() < 0.2 ? '\\usepackage[english]{babel}' : ''];
    const multicol = pkgs.includes('\\usepackage{multicol}');
    const body = [];
    for (let s = 0; s < 2 + Math.floor(rand() * (rand() < 0.2 ? 30 : 6)); s++) {
      body.push(`\\section{${texEsc(sentence(2, 5)).replace(/\.$/, '')}}`);
      for (let p = 0; p < 1 + Math.floor(rand() * 4); p++) body.push(para(), '');
      const r = rand();
      if (r < 0.15) body.push(`\\begin{itemize}${Array.from({ length: 3 }, () => `\\item ${texEsc(sentence(3, 8))}`).join('')}\\end{itemize}`);
      else if (r < 0.25) body.push(`\\begin{tabular}{lrc}${pkgs.includes('\\usepackage{booktabs}') ? '\\toprule' : '\\hline'} Name & Value & Code\\\\ ${Array.from({ length: 4 }, () => `${texEsc(pick(WORDS))} & ${(rand() * 100).toFixed(1)} & ${texEsc(pick(WORDS))}\\\\`).join(' ')}\\hline\\end{tabular}`);
      else if (r < 0.32) body.push(`\\begin{equation} E = mc^2 + \\sum_{i=1}^{n} \\frac{a_i}{b_i} \\end{equation}`);
      else if (r < 0.38 && multicol) body.push(`\\begin{multicols}{2}${para()} ${para()}\\end{multicols}`);
      else if (r < 0.42) body.push(`\\begin{quote}${para()}\\end{quote}`);
      else if (r < 0.45) body.push(`{\\centering ${texEsc(sentence())}\\par}`);
    }
    const doc = `\\documentclass${opts ? `[${opts}]` : ''}{${pick(['article', 'article', 'report'])}}\n${pkgs.filter(Boolean).join('\n')}\n\\title{${texEsc(sentence(3, 6))}}\\author{Corpus ${i}}\n\\begin{document}\n\\maketitle\n${body.join('\n')}\n\\end{document}\n`;
    const name = `random-${String(i).padStart(2, '0')}`;
    writeFileSync(join(work, `${name}.tex`), doc);
    run('pdflatex', ['-interaction=batchmode', `${name}.tex`], { cwd: work, quiet: true });
    const pdf = join(work, `${name}.pdf`);
    if (!existsSync(pdf)) continue;
    copyFileSync(pdf, join(out, `${name}.pdf`));
    if (record(join(out, `${name}.pdf`), 'pdftex-random', `random LaTeX: ${pkgs.filter((x) => x.startsWith('\\usepackage')).map((x) => x.replace(/.*\{(\w+)\}.*/, '$1')).join(' ') || 'no packages'} [${opts}]`)) n++;
  }
  return n;
};

producers['pdf-lib'] = async () => {
  const { PDFDocument, StandardFonts, degrees, rgb } = await import('pdf-lib');
  const out = dir('pdf-lib');
  seed = 19;
  let n = 0;
  const fonts = [StandardFonts.Helvetica, StandardFonts.TimesRoman, StandardFonts.Courier, StandardFonts.HelveticaBold, StandardFonts.TimesRomanItalic, StandardFonts.CourierBold];
  for (let i = 0; i < (SMALL ? 3 : 20); i++) {
    const doc = await PDFDocument.create();
    doc.setTitle(`pdf-lib ${i}`);
    const font = await doc.embedFont(fonts[i % fonts.length]);
    for (let pg = 0; pg < 1 + (i % 4 === 3 ? 13 : i % 3); pg++) {
      const page = doc.addPage([[595, 842], [612, 792], [842, 595]][i % 3]);
      const size = [10, 12, 9, 14][i % 4];
      let y = page.getHeight() - 50;
      const text = Array.from({ length: 8 }, () => paragraph(2)).join('\n') + (i % 5 === 2 ? `\n${LANG.fr}\n${LANG.de.replace(" ẞ GROẞ.", "")}\n${LANG.es}` : '');
      if (i % 2 === 0) {
        page.drawText(text, { x: 50, y, size, font, lineHeight: size * 1.3, maxWidth: page.getWidth() - 100 });
      } else {
        for (const line of text.split('\n')) {
          for (let k = 0; k < line.length && y > 40; k += 80) {
            page.drawText(line.slice(k, k + 80), { x: 50, y, size, font });
            y -= size * 1.4;
          }
        }
      }
      if (i % 4 === 1) page.drawText(sentence(3, 6), { x: 300, y: 200, size: 16, font, rotate: degrees([90, 45, 180][i % 3]), color: rgb(0.5, 0, 0) });
      if (i % 6 === 5) page.drawText('Tiny print at the bottom of the page.', { x: 50, y: 20, size: 4, font });
    }
    const file = join(out, `pdf-lib-${String(i).padStart(2, '0')}.pdf`);
    writeFileSync(file, await doc.save({ useObjectStreams: i % 2 === 0 }));
    if (record(file, 'pdf-lib', `standard font ${fonts[i % fonts.length]}${i % 2 ? ' line by line' : ' wrapped'}`)) n++;
  }
  return n;
};

/** pdf-lib on other producers' files and on its own pages: the idioms of stamping and form tools. */
producers['pdf-lib-edit'] = async () => {
  const { PDFDocument, StandardFonts, degrees } = await import('pdf-lib');
  const out = dir('pdf-lib-edit');
  let n = 0;
  // Stamping a page keeps its content stream and adds more around it (Contents becomes an array).
  const sources = Object.entries(manifest.files).filter(([, e]) => ['chromium', 'reportlab', 'pdftex', 'libreoffice', 'cairo'].includes(e.producer) && !e.expect);
  for (const [i, [f, e]] of sources.filter((_, i) => i % (SMALL ? 30 : 9) === 2).entries()) {
    try {
      const doc = await PDFDocument.load(readFileSync(join(OUT, f)), { updateMetadata: false });
      const font = await doc.embedFont([StandardFonts.Helvetica, StandardFonts.TimesRoman, StandardFonts.Courier][i % 3]);
      for (const [k, pg] of doc.getPages().entries()) {
        pg.drawText(`Stamped copy, page ${k + 1}`, { x: 30, y: 20, size: 8, font });
        if (i % 3 === 1) pg.drawText('DRAFT', { x: 150, y: 300, size: 80, font, rotate: degrees(45), opacity: 0.2 });
      }
      const file = join(out, `stamped-${e.producer}-${basename(f)}`);
      writeFileSync(file, await doc.save({ useObjectStreams: i % 2 === 0 }));
      if (record(file, `pdf-lib-stamp+${e.producer}`, `pdf-lib stamp on ${e.kind}`)) n++;
    } catch (err) {
      process.stderr.write(`  pdf-lib stamp ${f}: ${err.message}\n`);
    }
  }
  // Filled form fields (text in widget appearances, which pdf.js's page text leaves out), image-only
  // pages (scans), MediaBox/CropBox away from the origin, /Rotate.
  seed = 23;
  for (let i = 0; i < (SMALL ? 2 : 8); i++) {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([595, 842]);
    page.drawText(sentence(), { x: 50, y: 800, size: 12, font });
    const form = doc.getForm();
    const field = form.createTextField(`name${i}`);
    field.setText(`Field value ${i}: ${sentence(2, 4)}`);
    field.addToPage(page, { x: 50, y: 700, width: 300, height: 24, font });
    const box = form.createCheckBox(`agree${i}`);
    box.addToPage(page, { x: 50, y: 650, width: 16, height: 16 });
    if (i % 2) box.check();
    if (i % 4 === 3) form.flatten();
    const file = join(out, `form-${i}.pdf`);
    writeFileSync(file, await doc.save());
    if (record(file, 'pdf-lib', `AcroForm text field${i % 4 === 3 ? ' (flattened)' : ''}`)) n++;
  }
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000010000000100806000000' + '1ff3ff610000001f49444154789c63f8cfc0f09f8144c0c4402b30aa6154c3a886510d230d00d1b40f8124e8f1190000000049454e44ae426082', 'hex');
  for (let i = 0; i < (SMALL ? 1 : 4); i++) {
    const doc = await PDFDocument.create();
    try {
      const img = await doc.embedPng(png);
      for (let k = 0; k < 1 + i; k++) doc.addPage([595, 842]).drawImage(img, { x: 0, y: 0, width: 595, height: 842 });
    } catch {
      for (let k = 0; k < 1 + i; k++) doc.addPage([595, 842]).drawRectangle({ x: 50, y: 50, width: 400, height: 600 });
    }
    const file = join(out, `image-only-${i}.pdf`);
    writeFileSync(file, await doc.save());
    if (record(file, 'pdf-lib', 'no text (image or drawing only, like a scan)')) n++;
  }
  for (let i = 0; i < (SMALL ? 2 : 8); i++) {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont([StandardFonts.TimesRoman, StandardFonts.Helvetica][i % 2]);
    const page = doc.addPage([612, 792]);
    if (i % 4 === 0) page.setMediaBox(100, 200, 612, 792);
    if (i % 4 === 1) page.setCropBox(50, 50, 400, 600);
    if (i % 4 === 2) page.setMediaBox(-300, -400, 612, 792);
    page.setRotation(degrees([0, 90, 180, 270][i % 4] + (i >= 4 ? 90 : 0)));
    for (let k = 0; k < 20; k++) page.drawText(sentence(4, 9), { x: 60 + (i % 4 === 2 ? -300 : 0) + 50, y: 700 - k * 16, size: 11, font });
    const file = join(out, `boxes-rotate-${i}.pdf`);
    writeFileSync(file, await doc.save());
    if (record(file, 'pdf-lib', `MediaBox/CropBox offset ${i % 4}, /Rotate ${[0, 90, 180, 270][i % 4] + (i >= 4 ? 90 : 0)}`)) n++;
  }
  return n;
};

/** Other producers' files re-written: Ghostscript's pdfwrite (re-embeds fonts, its own ToUnicode) and qpdf (object streams, linearized, uncompressed). */
producers.rewrite = async () => {
  const sources = Object.entries(manifest.files).filter(([, e]) => ['chromium', 'reportlab', 'reportlab-rawops', 'cairo', 'pdftex', 'libreoffice', 'wkhtmltopdf', 'mupdf', 'dvipdfmx'].includes(e.producer) && !e.expect);
  let n = 0;
  if (have('gs')) {
    const out = dir('gs-pdfwrite');
    for (const [i, [f, e]] of sources.filter((_, i) => i % (SMALL ? 20 : 7) === 0).entries()) {
      const file = join(out, `${e.producer}-${basename(f)}`);
      run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', ...(i % 3 === 2 ? ['-dCompatibilityLevel=1.4'] : []), `-sOutputFile=${file}`, join(OUT, f)], { quiet: true });
      if (record(file, 'ghostscript-pdfwrite', `gs pdfwrite of ${e.producer}: ${e.kind}`)) n++;
    }
    // The random standard-font streams re-distilled: Ghostscript embeds the fonts as CFF subsets.
    const fuzz = Object.entries(manifest.files).filter(([, e]) => e.producer === 'reportlab-fuzz');
    for (const [f, e] of fuzz.filter((_, i) => i % (SMALL ? 20 : 4) === 1)) {
      const file = join(out, `${e.producer}-${basename(f)}`);
      run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', `-sOutputFile=${file}`, join(OUT, f)], { quiet: true });
      if (record(file, 'ghostscript-pdfwrite', `gs pdfwrite of ${e.producer}: ${e.kind}`)) n++;
    }
  }
  if (have('qpdf')) {
    const out = dir('qpdf');
    // Owner-password-only encryption (an empty user password, which pdf.js opens): common in files
    // whose makers only want to forbid printing or copying.
    const encrypt = (bits, extra = []) => ['--allow-weak-crypto', '--encrypt', '', 'owner-secret', String(bits), ...extra, '--'];
    const modes = [['--object-streams=generate'], ['--linearize'], ['--qdf', '--object-streams=disable'], ['--stream-data=uncompress'], ['--object-streams=generate', '--linearize'], ['--rotate=+90'], ['--rotate=180:1'], encrypt(40), encrypt(128, ['--use-aes=n']), encrypt(128, ['--use-aes=y']), encrypt(256)];
    for (const [i, [f, e]] of sources.filter((_, i) => i % (SMALL ? 20 : 6) === 3).entries()) {
      const mode = modes[i % modes.length];
      const file = join(out, `${e.producer}-${mode.filter((m) => m !== 'owner-secret').join('').replace(/[^a-z0-9]+/g, '-')}-${basename(f)}`);
      run('qpdf', [...mode, join(OUT, f), file], { quiet: true });
      if (record(file, `qpdf+${e.producer}`, `qpdf ${mode.filter((m) => m !== 'owner-secret').join(' ')} of ${e.kind}`)) n++;
    }
  }
  return n;
};

/**
 * Hand-built files whose structure is odd in the ways damaged and hand-edited PDFs are (set
 * "hostile"): object streams whose header disagrees with /N or /First, cross-reference offsets that
 * are off or point at the wrong object, a startxref into nothing, no xref at all, incremental
 * updates (and a /Prev that is wrong), duplicated objects, wrong and indirect /Length, page trees
 * whose /Count lies or that inherit resources and boxes, content split across streams mid-token,
 * free and wrong-generation references, CR-only line ends and comments, bytes before the header
 * and after %%EOF, missing or reversed MediaBox, odd /Rotate, font dictionaries that lack keys, name
 * escapes, odd numbers. Each page says which case it is, in Helvetica.
 */
function structureFiles() {
  const enc = (s) => Buffer.from(s, 'latin1');
  const stream = (dict, data) => `<< ${dict} /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`;
  const text = (s, y = 720) => `BT /F1 12 Tf 72 ${y} Td (${s}) Tj ET`;
  /** objects: { num: body } (body without "N 0 obj"); options shape the xref. */
  function build(objects, o = {}) {
    let out = o.prefix ?? '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
    const pos = {};
    const nums = Object.keys(objects).map(Number).sort((a, b) => a - b);
    const order = o.order ?? nums;
    for (const n of order) {
      pos[n] = out.length;
      out += `${n} ${o.gen?.[n] ?? 0} obj\n${objects[n]}\nendobj\n`;
      if (o.duplicate?.[n]) out += `${n} 0 obj\n${o.duplicate[n]}\nendobj\n`;
    }
    const size = Math.max(...nums) + 1;
    const trailer = o.trailer ?? `/Root 1 0 R`;
    if (o.xref === 'none') return enc(`${out}trailer\n<< /Size ${size} ${trailer} >>\n%%EOF\n`);
    const xrefAt = out.length;
    if (o.xref === 'stream') {
      // objects in o.inStream are compressed: { num: [streamNum, index] }
      const rows = [];
      for (let n = 0; n <= size; n++) {
        if (n === size) rows.push([1, xrefAt, 0]);
        else if (o.inStream?.[n]) rows.push([2, ...o.inStream[n]]);
        else if (pos[n] !== undefined) rows.push([1, pos[n] + (o.shift?.[n] ?? 0), 0]);
        else rows.push([0, 0, n === 0 ? 65535 : 0]);
      }
      const data = Buffer.concat(rows.map(([t, a, b]) => { const x = Buffer.alloc(7); x[0] = t; x.writeUInt32BE(a, 1); x.writeUInt16BE(b, 5); return x; }));
      const head = `${size} 0 obj\n<< /Type /XRef /Size ${size + 1} /W [1 4 2] ${trailer} /Length ${data.length} >>\nstream\n`;
      return Buffer.concat([enc(out + head), data, enc(`\nendstream\nendobj\nstartxref\n${o.startxref ?? xrefAt}\n%%EOF\n${o.suffix ?? ''}`)]);
    }
    let xref = `xref\n0 ${size}\n0000000000 65535 f \n`;
    for (let n = 1; n < size; n++) {
      if (o.free?.includes(n) || pos[n] === undefined) xref += `0000000000 00001 f \n`;
      else xref += `${String(pos[n] + (o.shift?.[n] ?? 0)).padStart(10, '0')} ${String(o.gen?.[n] ?? 0).padStart(5, '0')} n \n`;
    }
    out += `${xref}trailer\n<< /Size ${size} ${trailer}${o.prev !== undefined ? ` /Prev ${o.prev}` : ''} >>\nstartxref\n${o.startxref ?? xrefAt}\n%%EOF\n${o.suffix ?? ''}`;
    return enc(out);
  }
  const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
  const base = (content, page = '', extra = {}) => ({
    1: '<< /Type /Catalog /Pages 2 0 R >>',
    2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    3: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R ${page}>>`,
    4: font,
    5: stream('', content),
    ...extra,
  });
  const files = {};
  files['classic-ok'] = build(base(text('classic xref, nothing odd')));
  files['xrefstream-ok'] = build(base(text('xref stream, nothing odd')), { xref: 'stream' });
  // object streams: pages and page compressed into object 6
  const objstm = (header, n, first) => {
    const body = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>\n';
    const h = header(body);
    return { 6: stream(`/Type /ObjStm /N ${n} /First ${first ?? h.length}`, h + body) };
  };
  const second = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>\n'.length;
  for (const [name, header, n, first] of [
    ['objstm-ok', () => `2 0 3 ${second}\n`, 2],
    ['objstm-odd-header', () => `2 0 3 ${second} 9\n`, 3],
    ['objstm-n-too-large', () => `2 0 3 ${second}\n`, 5],
    ['objstm-n-too-small', () => `2 0 3 ${second}\n`, 1],
    ['objstm-first-off', (b) => `2 0 3 ${second}\n`, 2, `2 0 3 ${second}\n`.length + 2],
    ['objstm-wrong-number', () => `2 0 7 ${second}\n`, 2],
  ]) {
    const objs = { 1: '<< /Type /Catalog /Pages 2 0 R >>', 4: font, 5: stream('', text(name)), ...objstm(header, n, first) };
    files[name] = build(objs, { xref: 'stream', inStream: { 2: [6, 0], 3: [6, 1] } });
  }
  // pdf.js reads /N number pairs, takes an object's index from its place in the header (the last
  // place when a number is listed twice), and throws when the offsets go backwards.
  {
    const pages = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>\n';
    const page = (c) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents ${c} 0 R >>\n`;
    const objStmFile = (name, entries, header, inStream, extra = {}) => {
      const body = entries.join('');
      const h = `${header(entries)}\n`;
      const objs = { 1: '<< /Type /Catalog /Pages 2 0 R >>', 4: font, 5: stream('', text(`${name}: contents 5`)), 7: stream('', text(`${name}: contents 7`)), 6: stream(`/Type /ObjStm /N ${header(entries).trim().split(/\s+/).length / 2} /First ${h.length}`, h + body), ...extra };
      files[name] = build(objs, { xref: 'stream', inStream });
    };
    const at = (entries, k) => entries.slice(0, k).join('').length;
    objStmFile('objstm-index-swapped', [page(5), pages], (e) => `3 0 2 ${at(e, 1)}`, { 2: [6, 0], 3: [6, 1] });
    objStmFile('objstm-duplicate-number', [page(5), pages, page(7)], (e) => `3 0 2 ${at(e, 1)} 3 ${at(e, 2)}`, { 2: [6, 1], 3: [6, 0] });
    objStmFile('objstm-offsets-descending', [pages, page(5)], (e) => `3 ${at(e, 1)} 2 0`, { 2: [6, 1], 3: [6, 0] });
  }
  // Hybrid-reference files: a classic table for the uncompressed objects, and the trailer's /XRefStm
  // naming a cross-reference stream that places the others in an object stream.
  const hybrid = (freeEntries) => {
    const pages = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>\n';
    const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>\n';
    const header = `2 0 3 ${pages.length}\n`;
    let out = '%PDF-1.5\n%\xe2\xe3\xcf\xd3\n';
    const pos = {};
    const put = (n, body) => {
      pos[n] = out.length;
      out += `${n} 0 obj\n${body}\nendobj\n`;
    };
    put(1, '<< /Type /Catalog /Pages 2 0 R >>');
    put(4, font);
    put(5, stream('', text('hybrid file: pages in an object stream named by /XRefStm')));
    put(6, stream(`/Type /ObjStm /N 2 /First ${header.length}`, header + pages + page));
    const rows = [[0, 0, 0xffff], [0, 0, 0], [2, 6, 0], [2, 6, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]];
    const data = Buffer.concat(rows.map(([t, a, b]) => { const x = Buffer.alloc(7); x[0] = t; x.writeUInt32BE(a, 1); x.writeUInt16BE(b, 5); return x; }));
    pos[7] = out.length;
    const xrefStm = Buffer.concat([enc(`7 0 obj\n<< /Type /XRef /Size 8 /W [1 4 2] /Length ${data.length} >>\nstream\n`), data, enc('\nendstream\nendobj\n')]);
    const before = enc(out);
    const tableAt = before.length + xrefStm.length;
    const row = (n) => `${String(pos[n]).padStart(10, '0')} 00000 n \n`;
    let table;
    if (freeEntries) {
      table = 'xref\n0 8\n0000000000 65535 f \n';
      for (let n = 1; n < 8; n++) table += pos[n] !== undefined && n !== 7 ? row(n) : '0000000000 00000 f \n';
    } else table = `xref\n0 2\n0000000000 65535 f \n${row(1)}4 3\n${row(4)}${row(5)}${row(6)}`;
    return Buffer.concat([before, xrefStm, enc(`${table}trailer\n<< /Size 8 /Root 1 0 R /XRefStm ${pos[7]} >>\nstartxref\n${tableAt}\n%%EOF\n`)]);
  };
  // The table's subsections leave the compressed objects out (as Word writes them); or it lists
  // them as free, and pdf.js keeps the table's free entries over the stream's (it fails to open).
  files['hybrid-xrefstm'] = hybrid(false);
  files['hybrid-xrefstm-free-entries'] = hybrid(true);
  files['xref-off-by-2'] = build(base(text('xref offsets two bytes late')), { shift: { 3: 2, 5: 2 } });
  files['xref-off-by-minus-3'] = build(base(text('xref offsets three bytes early')), { shift: { 3: -3, 4: -3 } });
  files['xref-points-at-other-object'] = (() => {
    const objs = base(text('xref entry for the font points at the page'));
    const b = build(objs).toString('latin1');
    const at3 = b.indexOf('3 0 obj');
    return enc(b.replace(/xref\n0 6\n([\s\S]*?)trailer/, (m, rows) => { const r = rows.split('\n'); r[4] = `${String(at3).padStart(10, '0')} 00000 n `; return `xref\n0 6\n${r.join('\n')}trailer`; }));
  })();
  files['startxref-wrong'] = build(base(text('startxref points into nothing')), { startxref: 999999 });
  files['startxref-off'] = (() => { const b = build(base(text('startxref a few bytes early'))).toString('latin1'); return enc(b.replace(/startxref\n(\d+)/, (m, n) => `startxref\n${Number(n) - 4}`)); })();
  files['no-xref'] = build(base(text('no xref table at all')), { xref: 'none' });
  // incremental update: the page content replaced
  files['incremental-update'] = (() => {
    const first = build(base(text('old text before the update'))).toString('latin1');
    const prev = first.lastIndexOf('xref\n0 6');
    const at = first.length;
    const obj5 = `5 0 obj\n${stream('', text('new text after the update'))}\nendobj\n`;
    const xrefAt = at + obj5.length;
    return enc(`${first}${obj5}xref\n0 1\n0000000000 65535 f \n5 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  })();
  files['incremental-update-bad-prev'] = (() => {
    const first = build(base(text('old text, the /Prev is wrong'))).toString('latin1');
    const at = first.length;
    const obj5 = `5 0 obj\n${stream('', text('new text, the /Prev is wrong'))}\nendobj\n`;
    return enc(`${first}${obj5}xref\n0 1\n0000000000 65535 f \n5 1\n${String(at).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R /Prev 12 >>\nstartxref\n${at + obj5.length}\n%%EOF\n`);
  })();
  files['incremental-update-no-xref'] = (() => {
    const first = build(base(text('old text, appended object without xref'))).toString('latin1');
    return enc(`${first}5 0 obj\n${stream('', text('appended object without xref'))}\nendobj\n`);
  })();
  files['duplicate-object'] = build(base(text('first copy of the content')), { duplicate: { 5: stream('', text('second copy of the content')) } });
  files['length-too-long'] = build(base('', '', { 5: `<< /Length 400 >>\nstream\n${text('stream length says 400')}\nendstream` }));
  files['length-too-short'] = build(base('', '', { 5: `<< /Length 10 >>\nstream\n${text('stream length says 10')}\nendstream` }));
  files['length-indirect'] = build(base('', '', { 5: `<< /Length 6 0 R >>\nstream\n${text('length in another object')}\nendstream`, 6: String(text('length in another object').length) }));
  files['length-missing'] = build(base('', '', { 5: `<< >>\nstream\n${text('no length key')}\nendstream` }));
  files['count-too-large'] = build({ ...base(text('pages count says 3')), 2: '<< /Type /Pages /Kids [3 0 R] /Count 3 >>' });
  files['count-zero'] = build({ ...base(text('pages count says 0')), 2: '<< /Type /Pages /Kids [3 0 R] /Count 0 >>' });
  files['inherited-resources-box-rotate'] = build({ ...base(text('resources, box and rotate inherited')), 2: '<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 4 0 R >> >> /MediaBox [0 0 500 700] /Rotate 90 >>', 3: '<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>' });
  files['nested-pages'] = build({ ...base(''), 2: '<< /Type /Pages /Kids [6 0 R] /Count 2 >>', 6: '<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 3 0 R] /Count 2 >>', 7: `<< /Type /Pages /Parent 6 0 R /Kids [8 0 R] /Count 1 >>`, 8: '<< /Type /Page /Parent 7 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 9 0 R >>', 9: stream('', text('page one, three levels down')), 5: stream('', text('page two')) });
  files['kid-not-a-page'] = build({ ...base(text('the other kid is a font')), 2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>' });
  files['contents-split-mid-token'] = build({ ...base(''), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R 7 0 R] >>', 5: stream('', 'BT /F1 12 Tf 72 720 Td (split acr'), 6: stream('', 'oss streams) T'), 7: stream('', 'j ET') });
  files['contents-empty-array'] = build({ ...base(''), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [] >>' });
  files['contents-missing'] = build({ ...base(''), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>' });
  files['free-reference'] = build({ ...base(text('the font is a free object')), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R /F2 6 0 R >> >> /Contents 5 0 R >>', 6: font }, { free: [6] });
  files['generation-mismatch'] = build(base(text('contents referenced with generation 1')), { gen: { 5: 0 } }, undefined);
  files['generation-mismatch'] = build({ ...base(text('contents referenced with generation 1')), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 1 R >>' });
  files['cr-line-ends-comments'] = enc(build(base(text('carriage returns and comments'))).toString('latin1').replace('<< /Type /Catalog', '<< % a comment\r/Type /Catalog').replace('/Type /Page ', '/Type/Page'));
  files['garbage-before-header'] = build(base(text('bytes before the header')), { prefix: 'GARBAGE GARBAGE\n%PDF-1.4\n' });
  files['garbage-after-eof'] = build(base(text('bytes after the end')), { suffix: 'trailing garbage\n'.repeat(20) });
  files['mediabox-missing'] = build({ ...base(text('no MediaBox anywhere')), 3: '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>' });
  files['mediabox-reversed'] = build(base(text('MediaBox corners reversed'), '').toString ? { ...base(text('MediaBox corners reversed')), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [612 792 0 0] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>' } : {});
  files['mediabox-offset-cropbox'] = build({ ...base(text('MediaBox offset, CropBox larger')), 3: '<< /Type /Page /Parent 2 0 R /MediaBox [100 100 700 900] /CropBox [0 0 1000 1000] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>' });
  files['mediabox-indirect'] = build({ ...base(text('MediaBox is an indirect array')), 3: '<< /Type /Page /Parent 2 0 R /MediaBox 6 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>', 6: '[0 0 595 842]' });
  for (const r of [45, -90, 450, 270]) files[`rotate-${r}`] = build(base(text(`Rotate ${r}`), `/Rotate ${r} `));
  files['userunit'] = build(base(text('UserUnit 2'), '/UserUnit 2 '));
  files['font-no-subtype'] = build({ ...base(text('font without Subtype')), 4: '<< /Type /Font /BaseFont /Helvetica >>' });
  files['font-no-basefont'] = build({ ...base(text('font without BaseFont')), 4: '<< /Type /Font /Subtype /Type1 >>' });
  files['font-unknown-basefont'] = build({ ...base(text('font named Nonesuch')), 4: '<< /Type /Font /Subtype /Type1 /BaseFont /Nonesuch-Regular >>' });
  files['font-arial-name'] = build({ ...base(text('Arial,Bold without a program')), 4: '<< /Type /Font /Subtype /TrueType /BaseFont /Arial,Bold /Encoding /WinAnsiEncoding >>' });
  files['font-short-widths'] = build({ ...base(text('Widths shorter than the codes')), 4: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 32 /LastChar 40 /Widths [278 278 355 556 556 889 667 191 333] >>' });
  files['font-differences'] = build({ ...base(text('Differences: abc are mapped')), 4: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [97 /fi /fl /germandbls 65 /Euro /bullet] >> >>' });
  files['font-unknown-resource'] = build(base('BT /F9 12 Tf 72 720 Td (unknown font resource) Tj ET BT /F1 12 Tf 72 700 Td (known font) Tj ET'));
  files['no-tf-before-tj'] = build(base('BT 72 720 Td (no font selected) Tj ET BT /F1 12 Tf 72 700 Td (font selected) Tj ET'));
  files['unbalanced-q'] = build(base(`Q Q q q ${text('unbalanced q and Q')} Q`));
  files['name-escapes'] = build({ ...base('BT /F#31 12 Tf 72 720 Td (font name escaped as F#31) Tj ET') });
  files['odd-numbers'] = build(base('BT /F1 12 Tf +72 720. Td (plus sign and trailing dot) Tj .5 -.5e0 Td -.0 Tc --1 Tw (minus minus) Tj 0.0.1 TL T* (double dot) Tj ET'));
  files['deep-arrays'] = build(base(`BT /F1 12 Tf 72 720 Td [${'['.repeat(30)}(nested) ${']'.repeat(30)}] TJ (after nesting) Tj ET`));
  files['flate-corrupt'] = build({ ...base(''), 5: `<< /Filter /FlateDecode /Length 20 >>\nstream\nx\x9c\x0bI\xad(\x01\x00garbage!!\nendstream` });
  files['string-odd'] = build(base('BT /F1 12 Tf 72 720 Td (unbalanced \\( paren) Tj 0 -14 Td (string with\na real newline) Tj 0 -14 Td <4869 2> Tj 0 -14 Td <zz41> Tj ET'));
  files['inline-image-before-text'] = build(base(`q 10 0 0 10 72 600 cm BI /W 2 /H 2 /CS /G /BPC 8 ID \x00\xff\xff\x00 EI Q ${text('after an inline image')}`));
  files['text-in-type3-like-name'] = build({ ...base(text('font named Type3 but Type1')), 4: '<< /Type /Font /Subtype /Type1 /BaseFont /Type3 >>' });
  files['two-pages-one-content'] = build({ ...base(text('the same content on two pages')), 2: '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>', 6: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>' });
  // Bounds: content streams that inflate to 40 and 64 MB (spaces, then one line of text), and 100,000 small
  // show operators; each reader must answer in bounded time and memory.
  {
    const { deflateSync } = zlibForCorpus;
    // 64 MB: past verity's decompression cap for pdf.js (it fails); 40 MB: under it.
    for (const mb of [40, 64]) {
      const big = Buffer.concat([Buffer.alloc(mb << 20, 0x20), Buffer.from(text(`after ${mb} MB of spaces`), 'latin1')]);
      const z = deflateSync(big, { level: 9 });
      files[`flate-${mb}mb`] = build({ ...base(''), 5: `<< /Filter /FlateDecode /Length ${z.length} >>\nstream\n${z.toString('latin1')}\nendstream` });
    }
    files['many-show-operators'] = build(base(`BT /F1 6 Tf 20 780 Td ${Array.from({ length: 100_000 }, (_, i) => `(w${i % 10}) Tj${i % 20 === 19 ? ' 0 -7 Td' : ''}`).join(' ')} ET`));
  }
  files['eleven-pages'] = build({ ...base(''), 2: `<< /Type /Pages /Kids [${Array.from({ length: 11 }, (_, i) => `${10 + i} 0 R`).join(' ')}] /Count 11 >>`, ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [10 + i, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents ${30 + i} 0 R >>`])), ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [30 + i, stream('', text(`page ${i + 1} of eleven`))])) });
  return files;
}

producers.structure = async () => {
  const out = dir('structure');
  let n = 0;
  for (const [name, bytes] of Object.entries(structureFiles())) {
    const file = join(out, `${name}.pdf`);
    writeFileSync(file, bytes);
    if (record(file, 'hand-built', `structure: ${name}`)) n++;
  }
  return n;
};

const MATPLOTLIB = String.raw`
import sys, os, json, random
import matplotlib
matplotlib.use('pdf')
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages
out = sys.argv[1]; count = int(sys.argv[2])
random.seed(3)
for i in range(count):
    matplotlib.rcParams.update(matplotlib.rcParamsDefault)
    matplotlib.rcParams['pdf.fonttype'] = [3, 42][i % 2]
    matplotlib.rcParams['font.family'] = ['DejaVu Sans', 'DejaVu Serif', 'Liberation Sans', 'monospace'][i % 4]
    p = os.path.join(out, 'matplotlib-%02d-type%d.pdf' % (i, matplotlib.rcParams['pdf.fonttype']))
    pages = 12 if i % 7 == 3 else 1 + i % 2
    with PdfPages(p) as pdf:
        for k in range(pages):
            fig, ax = plt.subplots(figsize=[(8.27, 11.69), (6, 4), (11, 8.5)][i % 3])
            xs = list(range(20)); ax.plot(xs, [random.random() * x for x in xs], label='series one')
            ax.plot(xs, [random.random() * 10 for x in xs], label='second series')
            ax.set_title('Figure %d.%d: measured values over time' % (i, k + 1)); ax.set_xlabel('time (s)'); ax.set_ylabel('value (units)')
            ax.legend(); ax.annotate('peak', xy=(10, 5), xytext=(12, 8), arrowprops={'arrowstyle': '->'})
            if i % 3 == 1: plt.setp(ax.get_xticklabels(), rotation=45)
            if i % 4 == 2: fig.text(0.1, 0.02, 'Source: corpus generator, office of efficient flights', fontsize=7)
            pdf.savefig(fig); plt.close(fig)
    print(json.dumps({'file': p, 'kind': 'matplotlib figure, pdf.fonttype %d, %d pages' % (matplotlib.rcParams['pdf.fonttype'], pages)}))
`;

producers.matplotlib = async () => {
  if (spawnSync(PY, ['-c', 'import matplotlib']).status !== 0) return 'python3-matplotlib not installed';
  const out = dir('matplotlib');
  const r = run(PY, ['-c', MATPLOTLIB, out, String(SMALL ? 2 : 16)], { env: { ...process.env, MPLCONFIGDIR: join(WORK, 'mpl') } });
  return recordLines(r, 'matplotlib');
};

producers.weasyprint = async () => {
  if (!have('weasyprint')) return 'weasyprint not installed';
  const out = dir('weasyprint');
  const docs = htmlDocuments().filter((_, i) => i % 4 === 2);
  const html = writeHtml(docs);
  let n = 0;
  for (const doc of docs) {
    const file = join(out, `${doc.name}.pdf`);
    run('weasyprint', ['-q', join(html, `${doc.name}.html`), file], { quiet: true });
    if (record(file, 'weasyprint', doc.kind, doc.rtl ? 'ineligible' : undefined)) n++;
  }
  return n;
};

const TCPDF = String.raw`<?php
require_once('/usr/share/php/tcpdf/tcpdf.php');
$out = $argv[1]; $count = intval($argv[2]);
$W = json_decode($argv[3]);
mt_srand(7);
function sent($W, $a = 6, $b = 16) { $n = mt_rand($a, $b); $s = []; for ($i = 0; $i < $n; $i++) $s[] = $W[mt_rand(0, count($W) - 1)]; return ucfirst(implode(' ', $s)) . '.'; }
$fonts = ['helvetica', 'times', 'courier', 'dejavusans', 'dejavuserif', 'dejavusanscondensed', 'freesans'];
for ($i = 0; $i < $count; $i++) {
  $pdf = new TCPDF($i % 3 == 2 ? 'L' : 'P', 'mm', ['A4', 'LETTER', 'A5'][$i % 3], true, 'UTF-8', false);
  $pdf->SetCreator('corpus'); $pdf->SetTitle("tcpdf $i");
  $pdf->setPrintHeader($i % 2 == 0); $pdf->setPrintFooter(true);
  $font = $fonts[$i % 6];
  $pdf->SetFont($font, '', [9, 10, 11, 12][$i % 4]);
  if ($i % 4 == 1) $pdf->setFontSubsetting(false);
  $pages = ($i % 5 == 4) ? 12 : 1 + $i % 2;
  for ($p = 0; $p < $pages; $p++) {
    $pdf->AddPage();
    if ($i % 3 == 0) {
      $html = '<h1>' . sent($W, 2, 5) . '</h1><p>' . sent($W) . ' <b>' . sent($W, 2, 4) . '</b> <i>' . sent($W, 2, 4) . '</i></p><table border="1" cellpadding="3"><tr><th>Item</th><th>Qty</th><th>Price</th></tr>';
      for ($r = 0; $r < 6; $r++) $html .= '<tr><td>' . sent($W, 1, 3) . '</td><td>' . mt_rand(1, 99) . '</td><td align="right">' . number_format(mt_rand(100, 99999) / 100, 2) . '</td></tr>';
      $html .= '</table><ul><li>' . sent($W, 3, 8) . '</li><li>' . sent($W, 3, 8) . '</li></ul><p>' . sent($W) . ' ' . sent($W) . '</p>';
      $pdf->writeHTML($html, true, false, true, false, '');
    } else {
      for ($k = 0; $k < 8; $k++) $pdf->MultiCell(0, 0, sent($W) . ' ' . sent($W), 0, ['L', 'J', 'R', 'C'][($i + $k) % 4], false, 1);
      $pdf->Cell(60, 8, 'Total', 1, 0, 'L'); $pdf->Cell(40, 8, '1,234.56', 1, 1, 'R');
      if ($i % 4 == 2) { $pdf->StartTransform(); $pdf->Rotate(90, 100, 200); $pdf->Text(100, 200, 'Rotated label'); $pdf->StopTransform(); }
      if ($i % 5 == 1) { $pdf->setFontSpacing(0.5); $pdf->Write(0, sent($W)); $pdf->setFontSpacing(0); $pdf->setFontStretching(80); $pdf->Write(0, ' ' . sent($W)); $pdf->setFontStretching(100); }
      if ($font[0] == 'd') $pdf->Write(0, " Größe, café, Ελληνικά, Русский.");
    }
  }
  $file = "$out/tcpdf-" . sprintf('%02d', $i) . "-$font.pdf";
  $pdf->Output($file, 'F');
  echo json_encode(['file' => $file, 'kind' => "TCPDF $font" . ($i % 3 == 0 ? ' writeHTML' : ' MultiCell') . ($i % 4 == 1 ? ' no subsetting' : '')]) . "\n";
}
`;

producers.tcpdf = async () => {
  if (!have('php') || !existsSync('/usr/share/php/tcpdf/tcpdf.php')) return 'php-tcpdf not installed';
  const out = dir('tcpdf');
  const src = join(WORK, 'tcpdf.php');
  writeFileSync(src, TCPDF);
  const r = run('php', [src, out, String(SMALL ? 3 : 18), JSON.stringify(WORDS)]);
  return recordLines(r, 'tcpdf');
};

const PRAWN = String.raw`
require 'prawn'
require 'json'
Prawn::Fonts::AFM.hide_m17n_warning = true
out, count, words = ARGV[0], ARGV[1].to_i, JSON.parse(ARGV[2])
srand(9)
sent = ->(a = 6, b = 16) { s = Array.new(rand(a..b)) { words.sample }.join(' '); s[0] = s[0].upcase; s + '.' }
d = '/usr/share/fonts/truetype/dejavu/'
count.times do |i|
  file = File.join(out, format('prawn-%02d.pdf', i))
  Prawn::Document.generate(file, page_size: ['A4', 'LETTER', 'A5'][i % 3], info: { Title: "prawn #{i}" }) do |pdf|
    pdf.font_families.update('DejaVu' => { normal: d + 'DejaVuSans.ttf', bold: d + 'DejaVuSans-Bold.ttf', italic: d + 'DejaVuSans-Oblique.ttf' }, 'DejaVuSerif' => { normal: d + 'DejaVuSerif.ttf', bold: d + 'DejaVuSerif-Bold.ttf', italic: d + 'DejaVuSerif-Italic.ttf' })
    pdf.font(['Helvetica', 'Times-Roman', 'Courier', 'DejaVu', 'DejaVuSerif'][i % 5])
    pdf.font_size([9, 10, 11, 12][i % 4])
    pages = i % 5 == 4 ? 12 : 1
    pages.times do |p|
      pdf.start_new_page if p > 0
      pdf.text "Chapter #{p + 1}: #{sent.(2, 5)}", size: 18, style: (i % 5 >= 3 && i % 5 != 4 ? :bold : :normal)
      6.times { pdf.text sent.() + ' ' + sent.(), align: [:left, :justify, :right, :center][(i + p) % 4], leading: i % 3 }
      pdf.text sent.(), character_spacing: 1.5 if i % 4 == 1
      pdf.text_box sent.(2, 4), at: [200, 150], width: 200, rotate: 30 if i % 3 == 2
      pdf.draw_text 'Absolutely placed', at: [300, 50]
      pdf.text ' Größe, café, Ελληνικά, Русский.' if i % 5 == 3
      pdf.formatted_text [{ text: 'Formatted ' }, { text: 'bold', styles: [:bold] }, { text: ' and ' }, { text: 'super', styles: [:superscript] }, { text: ' text.' }] if i % 5 >= 3
    end
  end
  puts({ file: file, kind: "prawn #{['Helvetica', 'Times-Roman', 'Courier', 'DejaVu', 'DejaVuSerif'][i % 5]}" }.to_json)
end
`;

producers.prawn = async () => {
  if (!have('ruby') || spawnSync('ruby', ['-e', 'require "prawn"']).status !== 0) return 'ruby-prawn not installed';
  const out = dir('prawn');
  const src = join(WORK, 'prawn.rb');
  writeFileSync(src, PRAWN);
  const r = run('ruby', [src, out, String(SMALL ? 3 : 15), JSON.stringify(WORDS)]);
  return recordLines(r, 'prawn');
};

/** Scanned pages with an OCR text layer (Tesseract's "GlyphLessFont", invisible text scaled to each word): Chromium screenshots of some of the HTML documents, OCRed. */
producers.tesseract = async () => {
  if (!have('tesseract') || !existsSync('/usr/bin/chromium')) return 'tesseract or chromium not installed';
  const out = dir('tesseract');
  const shots = join(WORK, 'ocr');
  mkdirSync(shots, { recursive: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launchPersistentContext(join(WORK, 'ocr-profile'), { executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 900, height: 1200 }, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  const docs = htmlDocuments().filter((d) => /^(feature-(paragraphs|table|twocolumn|lists|headings|justified|accented|smallcaps)|mix-0[0-4]|font-[0-4]-)/.test(d.name)).slice(0, SMALL ? 2 : 16);
  try {
    const page = await browser.newPage();
    await page.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort()));
    for (const doc of docs) {
      await page.setContent(doc.html.replace('<body', '<body style="background:white"'), { waitUntil: 'load' });
      await page.screenshot({ path: join(shots, `${doc.name}.png`) });
    }
  } finally {
    await browser.close();
  }
  let n = 0;
  for (const doc of docs) {
    run('tesseract', [join(shots, `${doc.name}.png`), join(out, doc.name), '-l', 'eng', '--psm', '3', 'pdf'], { quiet: true, env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    if (record(join(out, `${doc.name}.pdf`), 'tesseract', `OCR of a screenshot: ${doc.kind}`)) n++;
  }
  return n;
};

// What both mutation scripts below start with (Python): the source file in qpdf's QDF form as
// `base`, and `write_mutated(name, text, kind, extra)`, which repairs an edited QDF text (fix-qdf)
// and writes it back as an ordinary file (direct lengths, Flate streams, as producers write them),
// printing the JSON line recordLines reads.
const QDF_PRELUDE = String.raw`import sys, os, re, json, subprocess
src, out, tag = sys.argv[1], sys.argv[2], sys.argv[3]
q = os.path.join(out, '.q.pdf')
subprocess.run(['qpdf', '--qdf', '--object-streams=disable', src, q], check=True)
base = open(q, 'rb').read().decode('latin1')
os.remove(q)
def write_mutated(name, text, kind, extra):
    p = os.path.join(out, '%s-%s.pdf' % (tag, name))
    t = os.path.join(out, '.t.pdf')
    open(t, 'wb').write(text.encode('latin1'))
    r = subprocess.run(['fix-qdf', t], capture_output=True)
    if r.returncode == 0:
        open(t, 'wb').write(r.stdout)
        r2 = subprocess.run(['qpdf', '--compress-streams=y'] + extra + [t, p], capture_output=True)
        os.remove(t)
        if r2.returncode in (0, 3): print(json.dumps({'file': p, 'kind': '%s: %s' % (kind, name)}))
`;

// Real files with their ToUnicode CMaps edited (qpdf --qdf, edit, fix-qdf, qpdf): glyphs mapped to
// ligature strings, presentation forms, surrogate pairs, combining marks, controls, spaces, NUL,
// right-to-left letters, several characters, one byte; bfrange arrays and a range whose last byte
// overflows; and their widths edited (no /W, /DW 1000, /W scaled, no /Widths, /FirstChar shifted,
// /MissingWidth). Set "stress".
const MUTATE = QDF_PRELUDE + String.raw`
MUTS = {
  'lig-fi': '<00660069>', 'u-fb01': '<FB01>', 'surrogate': '<D835DC00>', 'soft-hyphen': '<00AD>', 'nul': '<0000>',
  'combining-acute': '<0301>', 'e-combining': '<00650301>', 'fffd': '<FFFD>', 'hebrew': '<05D0>', 'arabic': '<0627>',
  'line-sep': '<2028>', 'newline': '<000A>', 'tab': '<0009>', 'nbsp': '<00A0>', 'space': '<0020>', 'bom': '<FEFF>',
  'three-chars': '<006500650065>', 'ideographic-space': '<3000>', 'zwsp': '<200B>', 'ffl': '<00660066006C>',
  'one-byte-dst': '<65>', 'upper-E': '<0045>', 'digit': '<0037>', 'u-fb02': '<FB02>', 'fullwidth-a': '<FF41>', 'roman-numeral': '<2163>',
}
def mutate_chars(text, dst):
    n = 0
    def blk(m):
        nonlocal n
        lines = m.group(2).split('\n')
        for i, l in enumerate(lines):
            mm = re.match(r'\s*(<[0-9A-Fa-f]+>)\s*(<[0-9A-Fa-f]+>)\s*$', l)
            if mm and mm.group(2).upper() not in ('<0020>',) and n < 3:
                lines[i] = '%s %s' % (mm.group(1), dst); n += 1
        return m.group(1) + '\n'.join(lines) + m.group(3)
    return re.sub(r'(beginbfchar)(.*?)(endbfchar)', blk, text, flags=re.S), n
results = []
def emit(name, text):
    write_mutated(name, text, 'ToUnicode mutated', ['--object-streams=preserve'])
for name, dst in MUTS.items():
    text, n = mutate_chars(base, dst)
    if n: emit(name, text)
# bfrange forms: array destinations, a destination whose last byte overflows
def ranges(text, fn):
    return re.sub(r'(beginbfrange)(.*?)(endbfrange)', lambda m: m.group(1) + fn(m.group(2)) + m.group(3), text, flags=re.S)
def to_array(body):
    def one(m):
        lo, hi, dst = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)
        return '<%s> <%s> [%s]' % (m.group(1), m.group(2), ' '.join('<%04X>' % (dst + k) for k in range(hi - lo + 1)))
    return re.sub(r'<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>', one, body)
def overflow(body):
    return re.sub(r'<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>', lambda m: '<%s> <%s> <00FE>' % (m.group(1), m.group(2)), body, count=2)
def array_multi(body):
    return re.sub(r'<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>', lambda m: '<%s> <%s> [%s]' % (m.group(1), m.group(2), ' '.join(['<00660069>'] * (int(m.group(2), 16) - int(m.group(1), 16) + 1))), body, count=1)
for name, fn in [('bfrange-array', to_array), ('bfrange-overflow', overflow), ('bfrange-array-multi', array_multi)]:
    t = ranges(base, fn)
    if t != base: emit(name, t)

# width mutations: the layout's gaps come from the advance widths
def remove_array(text, key):
    out, i = [], 0
    while True:
        j = text.find(key, i)
        if j < 0: out.append(text[i:]); break
        k = text.find('[', j)
        if not text[j + len(key):k].strip() == '':
            out.append(text[i:j + len(key)]); i = j + len(key); continue
        depth, m = 0, k
        while True:
            if text[m] == '[': depth += 1
            elif text[m] == ']':
                depth -= 1
                if depth == 0: break
            m += 1
        out.append(text[i:j]); i = m + 1
    return ''.join(out)
def scale_inner(text):
    def arr(m):
        return '[' + re.sub(r'-?\d+(\.\d+)?', lambda n: '%.3f' % (float(n.group(0)) * 1.5), m.group(1)) + ']'
    def w(m):
        return m.group(1) + re.sub(r'\[([^\[\]]*)\]', arr, m.group(2))
    return re.sub(r'(/W\s*)(\[(?:[^\[\]]|\[[^\[\]]*\])*\])', w, text)
for name, fn in [
    ('w-removed', lambda t: remove_array(t, '/W ')),
    ('dw-1000', lambda t: re.sub(r'/DW\s+\d+(\.\d+)?', '/DW 1000', remove_array(t, '/W '))),
    ('w-scaled', scale_inner),
    ('widths-removed', lambda t: remove_array(t, '/Widths ')),
    ('firstchar-shift', lambda t: re.sub(r'/FirstChar\s+(\d+)', lambda m: '/FirstChar %d' % (int(m.group(1)) + 1), t)),
    ('missingwidth', lambda t: re.sub(r'/Type /FontDescriptor', '/Type /FontDescriptor /MissingWidth 750', remove_array(t, '/Widths '))),
]:
    t = fn(base)
    if t != base: emit(name, t)
`;

producers['tounicode-mutations'] = async () => {
  if (!have('qpdf') || !have('fix-qdf')) return 'qpdf not installed';
  const out = dir('tounicode-mutations');
  const sources = ['chromium/feature-paragraphs.pdf', 'chromium/font-4-_DejaVu_Sans_.pdf', 'cairo/cairo-00.pdf', 'libreoffice/text-1.pdf', 'pango/prose-3.pdf', 'tcpdf/tcpdf-03-dejavusans.pdf'].filter((f) => manifest.files[f]);
  let n = 0;
  for (const f of SMALL ? sources.slice(0, 1) : sources) {
    const r = run(PY, ['-c', MUTATE, join(OUT, f), out, f.replace(/[/.]/g, '_')]);
    n += recordLines(r, `mutated+${manifest.files[f].producer}`);
  }
  return n;
};

// Real files with their page content edited: text-state operators added after each BT (Tw, Tc,
// Tz, Ts, Tr), Tj split into TJ with a kerning gap (and Tw on top, which applies to one-byte code 32
// only), a scaling or rotating cm in front. Set "stress".
const MUTATE_CONTENT = QDF_PRELUDE + String.raw`
def emit(name, text):
    write_mutated(name, text, 'content mutated', [])
def contents(text, fn):
    # the page content streams: qdf marks them "%% Contents for page N"
    parts = re.split(r'(%% Contents for page \d+\n(?:%% Original object ID: \d+ \d+\n)?\d+ 0 obj\n<<.*?>>\nstream\n)(.*?)(\nendstream)', text, flags=re.S)
    out = []
    i = 0
    while i < len(parts):
        if i + 3 < len(parts) and parts[i + 1].startswith('%% Contents'):
            out += [parts[i], parts[i + 1], fn(parts[i + 2]), parts[i + 3]]; i += 4
        else:
            out.append(parts[i]); i += 1
    return ''.join(out)
def tj_split(c):
    # <hex> Tj -> [<first half> -120 <second half>] TJ
    def one(m):
        h = m.group(1)
        if len(h) < 8: return m.group(0)
        k = (len(h) // 4 // 2) * 4
        return '[<%s> -120 <%s>] TJ' % (h[:k], h[k:])
    return re.sub(r'<([0-9A-Fa-f]+)>\s*Tj', one, c)
MUTS = [
    ('tw-2', lambda c: c.replace('BT\n', 'BT\n2 Tw\n').replace('BT ', 'BT 2 Tw ')),
    ('tc-1', lambda c: c.replace('BT\n', 'BT\n1 Tc\n').replace('BT ', 'BT 1 Tc ')),
    ('tc-neg', lambda c: c.replace('BT\n', 'BT\n-0.3 Tc\n').replace('BT ', 'BT -0.3 Tc ')),
    ('tz-70', lambda c: c.replace('BT\n', 'BT\n70 Tz\n').replace('BT ', 'BT 70 Tz ')),
    ('ts-3', lambda c: c.replace('BT\n', 'BT\n3 Ts\n').replace('BT ', 'BT 3 Ts ')),
    ('tr-3', lambda c: c.replace('BT\n', 'BT\n3 Tr\n').replace('BT ', 'BT 3 Tr ')),
    ('tj-split', tj_split),
    ('tj-split-tw', lambda c: tj_split(c).replace('BT\n', 'BT\n5 Tw\n').replace('BT ', 'BT 5 Tw ')),
    ('cm-scale', lambda c: '0.8 0 0 0.8 30 40 cm\n' + c),
    ('cm-rotate', lambda c: '0 1 -1 0 600 0 cm\n' + c),
]
for name, fn in MUTS:
    t = contents(base, fn)
    if t != base: emit(name, t)
`;

producers['content-mutations'] = async () => {
  if (!have('qpdf') || !have('fix-qdf')) return 'qpdf not installed';
  const out = dir('content-mutations');
  const sources = ['chromium/feature-paragraphs.pdf', 'chromium/feature-table.pdf', 'chromium/random-ttf-003.pdf', 'cairo/cairo-00.pdf', 'libreoffice/text-1.pdf', 'pdf-lib/pdf-lib-01.pdf', 'tcpdf/tcpdf-03-dejavusans.pdf', 'prawn/prawn-03.pdf', 'wkhtmltopdf/feature-paragraphs.pdf', 'pdftex/article.pdf'].filter((f) => manifest.files[f]);
  let n = 0;
  for (const f of SMALL ? sources.slice(0, 1) : sources) {
    const r = run(PY, ['-c', MUTATE_CONTENT, join(OUT, f), out, f.replace(/[/.]/g, '_')]);
    n += recordLines(r, `mutated+${manifest.files[f].producer}`);
  }
  return n;
};

producers.found = async () => {
  const out = dir('found');
  const r = spawnSync('sh', ['-c', "find /usr/share /usr/lib /opt -name '*.pdf' -size -5M 2>/dev/null | sort"], { encoding: 'utf8' });
  let n = 0;
  for (const f of r.stdout.split('\n').filter(Boolean)) {
    if (f.includes('node_modules')) continue;
    const name = f.replace(/^\//, '').replace(/[^A-Za-z0-9._-]+/g, '_');
    copyFileSync(f, join(out, name));
    if (record(join(out, name), null, `found on this machine: ${f}`)) n++;
  }
  return n;
};

producers.fixtures = async () => {
  const out = dir('fixtures');
  let n = 0;
  for (const d of ['pdf', 'pdf-signatures']) {
    const src = join(root, '../shared/fixtures', d);
    if (!existsSync(src)) continue;
    for (const f of readdirSync(src).filter((x) => x.endsWith('.pdf'))) {
      copyFileSync(join(src, f), join(out, `${d}-${f}`));
      if (record(join(out, `${d}-${f}`), null, `fixture ../shared/fixtures/${d}/${f}`)) n++;
    }
  }
  return n || 'no ../shared/fixtures/pdf*';
};

const order = ['chromium', 'wkhtmltopdf', 'mupdf', 'libreoffice', 'reportlab', 'reportlab-rawops', 'reportlab-fuzz', 'reportlab-ttf-fuzz', 'cairo', 'pango', 'rsvg', 'ghostscript', 'gropdf', 'pdftex', 'pdftex-random', 'pdf-lib', 'rewrite', 'pdf-lib-edit', 'structure', 'matplotlib', 'weasyprint', 'tcpdf', 'prawn', 'tesseract', 'tounicode-mutations', 'content-mutations', 'found', 'fixtures'];
try {
  for (const name of order) {
    if (only && !only.has(name)) continue;
    const t = Date.now();
    let result;
    try {
      result = await producers[name]();
    } catch (err) {
      result = `failed: ${err?.message ?? err}`;
    }
    process.stdout.write(`${name.padEnd(12)} ${typeof result === 'number' ? `${result} files` : `skipped (${result})`} in ${((Date.now() - t) / 1000).toFixed(1)} s\n`);
    writeFileSync(join(OUT, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  }
} finally {
  rmSync(WORK, { recursive: true, force: true });
}
const counts = {};
for (const e of Object.values(manifest.files)) counts[e.producer ?? '(Info /Producer)'] = (counts[e.producer ?? '(Info /Producer)'] ?? 0) + 1;
process.stdout.write(`${Object.keys(manifest.files).length} files in ${OUT}: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}\n`);
