/** Hostile ToUnicode CMaps: the reader's work is bounded by what the map holds and by every entry written. */
import { expect, it } from 'vitest';
import { readLikePdfJs } from '../../../../src/engine/document/pdf/simple-reading.js';
import { readPdfStructure } from '../../../../src/engine/document/pdf/structure.js';
import { pagesPdf, firstExtra } from './harness.js';

function fontPdf(cmap: string, show = '<0041> Tj'): Buffer {
  const f = firstExtra(1);
  return pagesPdf([{ content: `BT /F1 12 Tf 20 100 Td ${show} ET`, resources: `<< /Font << /F1 ${f} 0 R >> >>` }], [
    { body: `<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode ${f + 1} 0 R >>` },
    { body: '<< >>', stream: cmap, flate: true },
  ]);
}
const head = '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def 1 begincodespacerange <00> <FF> endcodespacerange\n';
function declines(bytes: Buffer, reason: string) {
  expect(readLikePdfJs(bytes, readPdfStructure(bytes), 10)).toEqual({ notLikePdfJs: reason });
}
// Before the bounds, one <FFFFFFFE> code made a map of 4.29 billion slots (90 s in one file of 825
// bytes), and repeated ranges were not counted (4,000 took 4 s): the default test time-out fails
// either.
it('a code above two bytes is declined at once', () => {
  for (const code of ['FFFFFFFF', 'FFFFFFFE', '00FFFFFF', '010000']) declines(fontPdf(`${head}1 beginbfchar <${code}> <0041> endbfchar endcmap`), 'unicode: ToUnicode code above 0xFFFF');
});
it('ranges written over and over are counted, not only new codes', () => {
  const body = Array.from({ length: 4000 }, () => '<0000> <FFFF> <0041>').join('\n');
  declines(fontPdf(`${head}4000 beginbfrange\n${body}\nendbfrange endcmap`), 'unicode: ToUnicode too large');
});

// The reader runs where nothing can interrupt it: the content it interprets for one reading is
// bounded (simple-reader.ts LIMITS.readBytes), whether one page holds it or a form drawn many times.
it('more than 1 MB of content to interpret is declined, a form counted at every use', () => {
  const big = `BT /F1 12 Tf 20 100 Td (${'A'.repeat(1100 * 1024)}) Tj ET`;
  declines(fontPdf(`${head}1 beginbfchar <41> <0041> endbfchar endcmap`, `(A) Tj ET BT ${big.slice(3, -3)}`), 'content: too much to read');
  const f = firstExtra(1);
  const form = `BT /F1 12 Tf 0 0 Td (${'B'.repeat(20 * 1024)}) Tj ET`;
  const draws = Array.from({ length: 60 }, () => '/X1 Do').join(' ');
  const bytes = pagesPdf([{ content: draws, resources: `<< /Font << /F1 ${f} 0 R >> /XObject << /X1 ${f + 1} 0 R >> >>` }], [
    { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    { body: `<< /Type /XObject /Subtype /Form /BBox [0 0 300 300] /Resources << /Font << /F1 ${f} 0 R >> >> >>`, stream: form, flate: true },
  ]);
  declines(bytes, 'content: too much to read');
});
