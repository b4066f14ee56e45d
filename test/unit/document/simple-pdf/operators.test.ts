/**
 * Text operators and graphics state in hand-written content streams, each compared item by item
 * and text by text with pdf.js; then a seeded generator of random text-heavy content streams
 * (spacing, kerning, scaling, rotation, q/Q, several fonts, text off the page) for the same check.
 */
import { describe, it } from 'vitest';
import { expectSameAsPdfJs, firstExtra, pagesPdf } from './harness.js';
import { rng } from '../../../helpers/seeded-random.js';

const FONTS = (n: number): string => `<< /Font << /F1 ${firstExtra(n)} 0 R /F2 ${firstExtra(n) + 1} 0 R /F3 ${firstExtra(n) + 2} 0 R >> >>`;
const FONT_OBJS = [
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>' },
  { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold >>' },
];
const one = (content: string, opts: { flate?: boolean; pageExtra?: string; pagesExtra?: string } = {}): Buffer =>
  pagesPdf([{ content, resources: FONTS(1), flate: opts.flate, pageExtra: opts.pageExtra }], FONT_OBJS, opts.pagesExtra);

const CASES: Record<string, string> = {
  'TJ kerning: small adjustments, word gaps, large negative gaps and overlaps': `BT /F1 12 Tf 72 700 Td
[(W) 120 (ord) -30 (s) -250 (spaced) -600 (far) -3000 (away) 400 (back) 2000 (overlap)] TJ
0 -20 Td [(A) -80 (V) -80 (A) -1000 () -1000 (x) 0 (y) -50.5 (z)] TJ ET`,
  'Tc, Tw (on code 32), Tz, Ts, TL with T*': `BT /F2 11 Tf 72 700 Td 14 TL
1.5 Tc (spaced characters) Tj T* 0 Tc 6 Tw (wide word spacing here) Tj T*
0 Tw 150 Tz (horizontally scaled) Tj T* 100 Tz 4 Ts (raised) Tj -3 Ts (lowered) Tj 0 Ts T*
-0.8 Tc (tight) Tj T* 0 Tc 50 Tz [(half) -500 (width)] TJ ET`,
  "' and \" operators": `BT /F1 10 Tf 12 TL 72 700 Td (first) Tj (second line) ' 2 0.5 (third with spacing) " (fourth) ' ET`,
  'TD sets leading, Tm resets line matrix, T* after Tm': `BT /F1 10 Tf 72 700 TD (a) Tj 0 -14 TD (b) Tj T* (c) Tj
1 0 0 1 300 500 Tm (d) Tj T* (e) Tj 2 0 0 2 100 400 Tm (big) Tj T* (next) Tj ET`,
  'cm scaling, translation and q/Q restoring the text state': `q 2 0 0 2 0 0 cm BT /F1 8 Tf 20 300 Td (scaled by cm) Tj ET Q
BT /F1 12 Tf 72 500 Td (after Q) Tj q /F2 14 Tf (inside q) Tj Q (after inner Q) Tj ET
q 1 0 0 1 50 -100 cm BT /F3 9 Tf 72 500 Td (translated) Tj ET Q`,
  'rotations by 90, 180, 270 degrees and 30 degrees (cm and Tm)': `BT /F1 12 Tf 0 1 -1 0 300 300 Tm (rotated 90) Tj ET
BT /F1 12 Tf -1 0 0 -1 400 600 Tm (rotated 180) Tj ET
BT /F1 12 Tf 0 -1 1 0 100 700 Tm (rotated 270) Tj ET
q 0.8660254 0.5 -0.5 0.8660254 200 200 cm BT /F2 12 Tf 0 0 Td (thirty degrees) Tj 0 -14 Td (next line) Tj ET Q`,
  'several fonts and sizes on one line': `BT /F1 12 Tf 72 700 Td (Helvetica ) Tj /F2 12 Tf (Times ) Tj /F3 12 Tf (Courier) Tj /F1 18 Tf ( big) Tj /F1 18 Tf ( same) Tj ET`,
  'text outside the page box (left, right, above, below) and straddling it': `BT /F1 12 Tf -200 700 Td (left of page) Tj ET
BT /F1 12 Tf 700 700 Td (right of page) Tj ET BT /F1 12 Tf 72 900 Td (above) Tj ET BT /F1 12 Tf 72 -20 Td (below) Tj ET
BT /F1 12 Tf 560 650 Td (straddles the right edge of the page) Tj ET BT /F1 12 Tf -30 600 Td (straddles left) Tj ET`,
  'marked content, images-free graphics operators, comments and odd whitespace': `/Artifact BMC 0.5 g 10 10 100 100 re f EMC
/P << /MCID 0 >> BDC BT /F1 12 Tf 72 700 Td (tagged) Tj EMC (untagged) Tj ET % a comment (not text) Tj
1 0 0 RG 2 w [3 2] 0 d 100 100 m 200 200 l S 0 0 1 rg /DeviceRGB cs 0.1 0.2 0.3 sc
BT\t/F2\r12\fTf\n72 650 Td(glued)Tj[(arr)-200(ay)]TJ ET`,
  'lines close together, far apart, and columns (tabs in the layout)': `BT /F1 10 Tf 72 700 Td (left column) Tj 200 0 Td (right column) Tj -200 -4 Td (close below) Tj 0 -30 Td (far below) Tj
0 -12 Td (a) Tj 5 0 Td (b) Tj 20 0 Td (c) Tj ET`,
  'empty strings, spaces only, and repeated Tf': `BT /F1 12 Tf 72 700 Td () Tj (   ) Tj (x) Tj /F1 12 Tf (y) Tj ( ) Tj ( z) Tj [( ) -300 ( )] TJ (end  ) Tj ET`,
  'negative font size and mirrored matrices': `BT /F1 -12 Tf 72 700 Td (negative size) Tj ET BT /F1 12 Tf -1 0 0 1 400 650 Tm (mirrored) Tj ET`,
  // The glyph loop leaves out terms that multiply a zero in axis-aligned text, which is exact only
  // away from zero: these positions sit on it, cross it, and carry negative zeros.
  'positions at zero, negative zeros, advances crossing zero, flipped and scaled CTMs': `BT /F1 12 Tf 0 0 Td (origin) Tj ET
BT /F1 12 Tf -0 700 Td (negative zero x) Tj ET BT /F1 12 Tf 72 -0 Td (negative zero y) Tj ET
BT /F1 12 Tf -20 650 Td (crosses x zero) Tj -3 Tc (back over it) Tj 0 Tc ET
BT /F1 12 Tf 1 0 0 1 -0 -0 Tm (all zero) Tj 0 -0.0 Td (again) Tj ET
q 1 0 0 -1 0 792 cm BT /F2 10 Tf 72 100 Td (flipped page) Tj 0 14 Td (next) Tj ET Q
q 0.5 0 0 0.5 -0 0 cm BT /F1 12 Tf 0 0 Td (half scale at zero) Tj 200 300 Td (half scale) Tj ET Q
q -1 0 0 1 612 0 cm BT /F1 12 Tf 100 500 Td (mirrored by cm) Tj ET Q
BT /F1 12 Tf 10 0 0 10 0 400 Tm 0 Tc (matrix scaled) Tj 0.1 Tc (with spacing) Tj ET
q 1 0 0 1 -0 -0 cm BT /F1 12 Tf 1 0 0 1 -0 -0 Tm (A) Tj -1000 -1000 Td [(B) -3000 (C)] TJ ET Q`,
  'literal string escapes': String.raw`BT /F1 12 Tf 72 700 Td (paren \( \) backslash \\ octal \101\102\7 \0537 newline\nreturn\r tab\t line\
continued) Tj <48 65 6c 6C 6f3> Tj ET`,
};

describe('simple reader: text operators against pdf.js', () => {
  for (const [name, content] of Object.entries(CASES)) {
    it(name, async () => {
      await expectSameAsPdfJs(one(content));
      await expectSameAsPdfJs(one(content, { flate: true }));
    });
  }

  it('page boxes: CropBox ∩ MediaBox, inherited MediaBox, rotated pages, UserUnit', async () => {
    const content = CASES['text outside the page box (left, right, above, below) and straddling it']!;
    await expectSameAsPdfJs(one(content, { pageExtra: '/CropBox [50 50 500 700]' }));
    await expectSameAsPdfJs(one(content, { pageExtra: '/MediaBox [612 792 0 0]' }));
    await expectSameAsPdfJs(one(content, { pagesExtra: '/MediaBox [0 0 400 400] /Rotate 90' }));
    for (const r of [90, 180, 270, -90, 450]) await expectSameAsPdfJs(one(CASES['lines close together, far apart, and columns (tabs in the layout)']!, { pageExtra: `/Rotate ${r}` }));
    await expectSameAsPdfJs(one(content, { pageExtra: '/UserUnit 2' }));
    await expectSameAsPdfJs(one(content, { pagesExtra: '' }));
  });
});


const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'café', 'naïve', 'Œuvre', '—', '“q”', '…', '12.50', '€', 'fi', 'A', 'V', ' ', '  '];

function randomContent(r: () => number): string {
  const pick = <T,>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const num = (lo: number, hi: number, dp = 2): string => (lo + r() * (hi - lo)).toFixed(dp);
  const str = (): string => {
    const words = Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(WORDS)).join(pick([' ', ' ', '', '  ']));
    return `<${Buffer.from(words, 'latin1').toString('hex')}>`;
  };
  const out: string[] = [];
  let depth = 0;
  for (let i = 0; i < 60; i++) {
    const k = r();
    if (k < 0.05 && depth < 4) {
      out.push('q');
      depth++;
    } else if (k < 0.1 && depth > 0) {
      out.push('Q');
      depth--;
    } else if (k < 0.14) out.push(`${pick(['1 0 0 1', '2 0 0 2', '0.5 0 0 0.5', '0 1 -1 0', '-1 0 0 -1', '0.96 0.28 -0.28 0.96', '1 0 0.3 1'])} ${num(-50, 300)} ${num(-50, 300)} cm`);
    else if (k < 0.2) out.push(`BT /F${1 + Math.floor(r() * 3)} ${pick(['8', '10', '12', '9.5', '24', '0.5', '1'])} Tf ${num(0, 600)} ${num(0, 800)} Td`);
    else if (k < 0.25) out.push('ET');
    else if (k < 0.3) out.push(`${num(-2, 3)} Tc`);
    else if (k < 0.34) out.push(`${num(-5, 10)} Tw`);
    else if (k < 0.37) out.push(`${pick(['100', '80', '120', '50', '200'])} Tz`);
    else if (k < 0.4) out.push(`${num(-5, 5)} Ts`);
    else if (k < 0.44) out.push(`${num(8, 20)} TL T*`);
    else if (k < 0.5) out.push(`${num(-40, 120)} ${num(-30, 10)} Td`);
    else if (k < 0.53) out.push(`${pick(['1 0 0 1', '0 1 -1 0', '1.5 0 0 1.5', '1 0.2 0 1'])} ${num(0, 600)} ${num(0, 800)} Tm`);
    else if (k < 0.6) out.push(`/F${1 + Math.floor(r() * 3)} ${pick(['8', '10', '12', '11'])} Tf`);
    else if (k < 0.75) out.push(`[${Array.from({ length: 1 + Math.floor(r() * 6) }, () => (r() < 0.5 ? str() : pick(['-250', '-1000', '120', '-60', '0', '-30', '500', '-3000', num(-400, 100, 0)]))).join(' ')}] TJ`);
    else if (k < 0.8) out.push(`${str()} '`);
    else if (k < 0.83) out.push(`${num(0, 3)} ${num(0, 1)} ${str()} "`);
    else out.push(`${str()} Tj`);
  }
  // Text shown before any BT/Tf would not be eligible: start with one.
  return `BT /F1 11 Tf 72 720 Td\n${out.join('\n')}\nET`;
}

describe('simple reader: random content streams against pdf.js', () => {
  for (let seed = 1; seed <= Number(process.env.SIMPLE_PDF_SEEDS ?? 120); seed++) {
    it(`seed ${seed}`, async () => {
      const r = rng(seed);
      const pages = [0, 1, 2].map(() => ({ content: randomContent(r), resources: FONTS(3) }));
      await expectSameAsPdfJs(pagesPdf(pages, FONT_OBJS));
    });
  }
});
