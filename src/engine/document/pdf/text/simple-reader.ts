/**
 * A fast reader of the page count and first pages' text of "simple" PDFs, on the calling thread
 * and without pdf.js, whose answer is byte-for-byte what pdfjs-reader.ts's `openPdfJs(bytes)` →
 * `doc.text(n)` returns (pdf.js 5.4.296 items, laid out by page-layout.ts). Whatever it cannot
 * reproduce with certainty it declines ("not eligible", with a short stable reason), and the
 * caller reads the file with pdf.js as before. It never throws.
 *
 * Supported: unencrypted files whose cross-reference chain and objects structure.ts reads without
 * warnings, each object read in one version only; a page tree pdf.js reads plainly; content streams
 * unfiltered or Flate; text operators in the fonts fonts.ts supports; form XObjects (read in
 * place); images, marked content and font-less ExtGStates (ignored, as pdf.js ignores them for
 * text). Not: inline images, Type3 fonts, fonts whose text pdf.js would take from the program,
 * vertical or right-to-left text, and anything malformed that pdf.js would repair.
 */
import { isDict, isRef, type PdfDict, type PdfValue } from '../objects.js';
import { readPdfStructure, type PdfStructure } from '../structure.js';
import { readOperations } from './content-ops.js';
import { DocObjects } from './doc-objects.js';
import { FontLoader, type TextFont } from './fonts.js';
import { Ineligible } from './ineligible.js';
import { layoutPageText, viewportTransform } from './page-layout.js';
import { pageResources, pageRotate, pageUserUnit, pageView, readPageTree, type PageInfo } from './page-tree.js';
import { extractTextItems, type FormXObject, type ResourceScope, type TextItem } from './text-content.js';

export interface SimpleReading {
  pages: number;
  text: string;
}

export type SimpleOutcome = { ok: true; reading: SimpleReading } | { ok: false; reason: string };

/**
 * Past these a file is not "simple": pdf.js reads it (on its thread, under the time budget).
 * `readBytes` bounds the reader's whole work, since it runs where nothing can interrupt it (the
 * CLI thread, a pool thread, serve's event loop): the content bytes it interprets for one reading,
 * every page's and every use of a form counted (a form drawn many times is read every time, as in
 * pdf.js), and each glyph costs at least one byte of a string. Ten dense text pages are ~0.1–0.3
 * MB; a hostile 1 MB of text strings takes the reader well under a second.
 */
const LIMITS = { opsPerPage: 200_000, contentBytesPerPage: 16 * 1024 * 1024, streamsPerPage: 64, readBytes: 1024 * 1024 };

/** What one reading has interpreted so far (LIMITS.readBytes). */
interface Work {
  bytes: number;
}

function spend(work: Work, bytes: number): void {
  work.bytes += bytes;
  if (work.bytes > LIMITS.readBytes) fail('content: too much to read');
}

const nameOf = (v: PdfValue | undefined): string | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'name' ? v.name : undefined;

function fail(reason: string): never {
  throw new Ineligible(reason);
}

function pageItems(objs: DocObjects, fonts: FontLoader, page: PageInfo, work: Work): { items: TextItem[]; transform: number[] } {
  const view = pageView(objs, page);
  const rotate = pageRotate(objs, page);
  const userUnit = pageUserUnit(objs, page);
  const resources = pageResources(objs, page);

  // Contents: a stream or an array of streams, concatenated as pdf.js does (no separator).
  const contents = page.dict.entries.get('Contents');
  const parts: Buffer[] = [];
  if (contents !== undefined) {
    const resolved = objs.get(contents);
    const refs = Array.isArray(resolved) ? resolved : [contents];
    if (Array.isArray(resolved) && isRef(contents)) fail('content: indirect Contents array');
    if (refs.length > LIMITS.streamsPerPage) fail('content: too many streams');
    let total = 0;
    for (const r of refs) {
      const { dict, data } = objs.stream(r);
      if (refs.length === 1 && dict.entries.has('Resources')) fail('content: stream Resources');
      total += data.length;
      if (total > LIMITS.contentBytesPerPage) fail('content: too large');
      spend(work, data.length);
      parts.push(data);
    }
  }
  const ops = readOperations(parts.length === 1 ? parts[0]! : Buffer.concat(parts), { maxOps: LIMITS.opsPerPage });

  const budget = { ops: ops.length, work };
  const items = extractTextItems({ ops, view, scope: resourceScope(objs, fonts, resources, budget) });
  return { items, transform: viewportTransform(view, rotate, userUnit) };
}

/**
 * A content stream's resources for the extractor: fonts by name (loaded once per font object),
 * image and form XObjects (a form's operators read once, its uses counted against the page's
 * operator budget, since pdf.js reads a form again at every `Do`), and font-less ExtGStates.
 */
function resourceScope(objs: DocObjects, fonts: FontLoader, resources: PdfDict | undefined, budget: { ops: number; work: Work }): ResourceScope {
  const sub = (key: string): PdfDict | undefined => {
    const v = objs.get(resources?.entries.get(key));
    if (v !== undefined && !isDict(v)) fail(`resources: bad ${key}`);
    return v;
  };
  const byName = new Map<string, TextFont>();
  const forms = new Map<string, FormXObject>();
  const scope: ResourceScope = {
    font: (name) => {
      let f = byName.get(name);
      if (!f) {
        const ref = sub('Font')?.entries.get(name);
        if (ref === undefined) fail('font: missing resource');
        f = fonts.load(ref);
        byName.set(name, f);
      }
      return f;
    },
    xobject: (name) => {
      let form = forms.get(name);
      if (!form) {
        const ref = sub('XObject')?.entries.get(name);
        if (!isRef(ref)) fail('xobject: missing');
        const { dict } = objs.streamDict(ref);
        const subtype = nameOf(objs.get(dict.entries.get('Subtype')));
        if (subtype === 'Image') return { kind: 'image' };
        if (subtype !== 'Form') fail('xobject: unknown type');
        const { data } = objs.stream(ref);
        if (data.length > LIMITS.contentBytesPerPage) fail('content: too large');
        const m = objs.get(dict.entries.get('Matrix'));
        let matrix: number[] | undefined;
        if (m !== undefined) {
          const values = Array.isArray(m) ? m.map((v) => objs.get(v)) : [];
          if (values.length !== 6 || !values.every((v): v is number => typeof v === 'number')) fail('form XObject: bad Matrix');
          matrix = values;
        }
        const own = objs.get(dict.entries.get('Resources'));
        const formOps = readOperations(data, { maxOps: LIMITS.opsPerPage });
        form = { kind: 'form', id: ref.num, ops: formOps, matrix, scope: isDict(own) ? resourceScope(objs, fonts, own, budget) : scope, bytes: data.length };
        forms.set(name, form);
      }
      budget.ops += form.ops.length;
      spend(budget.work, form.bytes);
      if (budget.ops > LIMITS.opsPerPage) fail('content: too many operators');
      return form;
    },
    extGState: (name) => {
      const gs = objs.dict(sub('ExtGState')?.entries.get(name));
      if (!gs) fail('extgstate: missing');
      if (gs.entries.has('Font')) fail('extgstate: Font');
    },
  };
  return scope;
}

/** `text` equals pdfjs-reader's doc.text(textPages); `pages` equals pdf.js's numPages. */
export function readSimplePdf(bytes: Buffer, s: PdfStructure, textPages: number): SimpleOutcome {
  const r = read(bytes, s, textPages, false);
  if (!r.ok) return r;
  return { ok: true, reading: { pages: r.pages, text: joinPages(r.pageTexts) } };
}

/** The text pdfjs-reader gives for these pages: each page's text followed by a blank line. */
export function joinPages(pageTexts: readonly string[]): string {
  let text = '';
  for (const t of pageTexts) text += `${t}\n\n\n`;
  return text;
}

/** For tests: the text items of each page (pdf.js's `getTextContent` items, the fields layout reads). */
export function readSimplePdfItems(bytes: Buffer, textPages = 10): { ok: true; pages: TextItem[][] } | { ok: false; reason: string } {
  const r = read(bytes, readPdfStructure(bytes), textPages, true);
  return r.ok ? { ok: true, pages: r.items } : r;
}

type Read = { ok: true; pages: number; pageTexts: string[]; items: TextItem[][] } | { ok: false; reason: string };

/** The file as a whole: what the structure reader found must be what pdf.js reads (throws Ineligible). */
export function checkStructure(s: PdfStructure): void {
  if (s.encrypted) fail('encrypted');
  if (s.warnings.length > 0) fail('structure warnings');
  if (!s.xrefChainOk) fail('xref chain');
  if (s.hybridXref) fail('hybrid xref');
}

function read(bytes: Buffer, s: PdfStructure, textPages: number, keepItems: boolean): Read {
  try {
    checkStructure(s);
    const objs = new DocObjects(bytes, s);
    const { count, pages } = readPageTree(objs, Math.max(0, Math.floor(textPages)));
    const fonts = new FontLoader(objs);
    const work: Work = { bytes: 0 };
    const pageTexts: string[] = [];
    const all: TextItem[][] = [];
    for (const page of pages) {
      const { items, transform } = pageItems(objs, fonts, page, work);
      if (keepItems) all.push(items);
      pageTexts.push(layoutPageText(items, transform));
    }
    return { ok: true, pages: count, pageTexts, items: all };
  } catch (err) {
    if (err instanceof Ineligible) return { ok: false, reason: err.reason };
    return { ok: false, reason: 'internal error' };
  }
}

export function readSimplePdfFile(bytes: Buffer, textPages = 10): SimpleOutcome {
  let s: PdfStructure;
  try {
    s = readPdfStructure(bytes);
  } catch {
    return { ok: false, reason: 'structure' };
  }
  return readSimplePdf(bytes, s, textPages);
}
