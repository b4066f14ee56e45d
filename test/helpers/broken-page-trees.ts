/**
 * PDFs with broken page trees, built byte by byte (raw-pdf.ts), for the e2e test of the whole CLI
 * (test/e2e/pdf-broken-page-tree.test.ts) and the check of the bundled pdf.js's patch
 * (test/e2e/pdfjs-bundle-patches.test.ts). `strayPrefetch`: pdf.js, unpatched, leaves a failed
 * fetch of a top-level kid unawaited on this file (an unhandled rejection).
 */
import { objectStreamPdf, rawPdf } from './raw-pdf.js';

const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const contentOf = (text: string): string => {
  const ops = `BT /F1 12 Tf 72 700 Td (${text}) Tj ET`;
  return `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`;
};

/**
 * Object 1 the catalog, 2 the /Pages node (`pages(kids)` gives it), 3 the font, then each page's
 * content stream and page: page p's dictionary is object 5 + 2p. Every page reads "Page N says the
 * supplier delivers." (five words of prose).
 */
function pageTree(n: number, pages: (kids: string[]) => string = (kids) => `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`) {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', font];
  const kids: string[] = [];
  for (let p = 0; p < n; p++) {
    objects.push(contentOf(`Page ${p + 1} says the supplier delivers.`));
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length} 0 R >>`);
    kids.push(`${objects.length} 0 R`);
  }
  return { objects, kids, finish: (k = kids) => ((objects[1] = pages(k)), objects) };
}
const pageObject = (p: number): number => 5 + 2 * p;
/** An offset inside the file's header, where no object starts. */
const NOWHERE = 3;

export const PDF_FAILED = /^pdf\.js could not read the document \(/;
export type BrokenPageTree = { name: string; bytes: Buffer; code: number; warning?: RegExp; noWarning?: RegExp; words?: number; strayPrefetch?: boolean };

/** The files, each with the exit code and warnings the CLI must give it. */
export function brokenPageTrees(): BrokenPageTree[] {
  const all: BrokenPageTree[] = [];
  const add = (c: BrokenPageTree): number => all.push(c);
  {
    const t = pageTree(3, (k) => `<< /Type /Pages /Kids [${k.join(' ')}] /Count 1 >>`);
    add({ name: '/Count 1 over three kids', bytes: rawPdf(t.finish()), code: 0, words: 5 });
    // The defect: the third kid's fetch fails, and nothing walks to it.
    add({ name: '/Count 1 over three kids, the third at a bad offset', bytes: rawPdf(t.finish(), { [pageObject(2)]: NOWHERE }), code: 0, words: 5, noWarning: PDF_FAILED, strayPrefetch: true });
  }
  {
    const t = pageTree(3, (k) => `<< /Type /Pages /Kids [${k.join(' ')}] /Count 9 >>`);
    add({ name: '/Count 9 over three kids', bytes: rawPdf(t.finish()), code: 0, words: 15 });
  }
  {
    const t = pageTree(3);
    add({ name: 'the last page at a bad offset', bytes: rawPdf(t.finish(), { [pageObject(2)]: NOWHERE }), code: 0, words: 15 });
    add({ name: 'a middle page past the end of the file', bytes: rawPdf(t.finish(), { [pageObject(1)]: 99_999_999 }), code: 0, words: 15 });
    add({ name: 'a kid that names a missing object', bytes: rawPdf(t.finish([...t.kids, '99 0 R'])), code: 0, warning: PDF_FAILED });
    add({ name: 'a kid that is the font dictionary', bytes: rawPdf(t.finish([t.kids[0]!, '3 0 R', ...t.kids.slice(1)])), code: 0 });
    add({ name: 'a kid that names the /Pages node itself', bytes: rawPdf(t.finish([...t.kids, '2 0 R'])), code: 0, warning: /circular reference/ });
  }
  {
    const t = pageTree(3);
    t.objects.push('42');
    add({ name: 'a kid that is a number', bytes: rawPdf(t.finish([t.kids[0]!, `${t.objects.length} 0 R`, ...t.kids.slice(1)])), code: 0, warning: /wrong type of object/ });
  }
  {
    const t = pageTree(2);
    t.objects.push('<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>');
    add({ name: 'a cycle through an intermediate /Pages node', bytes: rawPdf(t.finish([...t.kids, `${t.objects.length} 0 R`])), code: 0, warning: /circular reference/ });
  }
  {
    const t = pageTree(2, () => '<< /Type /Pages /Kids 5 /Count 2 >>');
    add({ name: '/Kids that is not an array', bytes: rawPdf(t.finish()), code: 0, warning: /kids object is not an array/ });
  }
  {
    const t = pageTree(12);
    add({ name: 'twelve pages, the eleventh (after the ten read) at a bad offset', bytes: rawPdf(t.finish(), { [pageObject(10)]: NOWHERE }), code: 0, warning: /^text was extracted from the first 10 of 12 pages$/ });
  }
  {
    const t = pageTree(1);
    add({ name: '/Kids naming one page 1,500 times', bytes: rawPdf(t.finish(Array<string>(1500).fill(t.kids[0]!))), code: 0, warning: /^text was extracted from the first 10 of 1500 pages$/ });
    add({ name: '/Kids naming one page 5,000 times (over the page limit)', bytes: rawPdf(t.finish(Array<string>(5000).fill(t.kids[0]!))), code: 2 });
  }
  {
    // 3,000 /Pages nodes, each the only kid of the one above, over one page.
    const t = pageTree(1);
    let child = t.kids[0]!;
    for (let d = 0; d < 3000; d++) {
      t.objects.push(`<< /Type /Pages /Kids [${child}] /Count 1 >>`);
      child = `${t.objects.length} 0 R`;
    }
    add({ name: 'a page 3,000 /Pages nodes deep', bytes: rawPdf(t.finish([child])), code: 0, words: 5 });
  }
  {
    // The page dictionaries in an object stream (object 10), damaged in turn.
    const pages = [pageObject(0), pageObject(1), pageObject(2)];
    const short = pageTree(3, (k) => `<< /Type /Pages /Kids [${k.join(' ')}] /Count 1 >>`).finish();
    const whole = pageTree(3).finish();
    // The third page's entry names an object stream that does not exist (pdf.js: "bad ObjStm stream").
    add({ name: 'object stream: /Count 1 over three kids, the third entry naming a missing stream', bytes: objectStreamPdf(short, pages, { entries: { [pages[2]!]: [99, 0] } }), code: 0, words: 5, noWarning: PDF_FAILED, strayPrefetch: true });
    add({ name: 'object stream: the last page entry naming a missing stream', bytes: objectStreamPdf(whole, pages, { entries: { [pages[2]!]: [99, 0] } }), code: 0 });
    // An index past the stream's objects (pdf.js repairs it from the stream's header).
    add({ name: 'object stream: the last page entry past the stream', bytes: objectStreamPdf(whole, pages, { entries: { [pages[2]!]: [10, 7] } }), code: 0, words: 15 });
    // The header's offset for the last page points back into the first page's dictionary.
    // Every object of the stream then fails to read, the first page first: the later kids' fetches
    // were left unawaited.
    add({ name: 'object stream: a bad header offset for the last page', bytes: objectStreamPdf(whole, pages, { headerOffsets: { [pages[2]!]: 5 } }), code: 0, warning: PDF_FAILED, strayPrefetch: true });
    add({ name: 'object stream: a header offset past the stream for the last page', bytes: objectStreamPdf(whole, pages, { headerOffsets: { [pages[2]!]: 100_000 } }), code: 0 });
    add({ name: 'object stream: intact', bytes: objectStreamPdf(whole, pages), code: 0, words: 15 });
  }
  return all;
}
