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
