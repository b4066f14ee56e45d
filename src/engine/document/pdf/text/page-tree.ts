/**
 * The page list and each page's attributes as pdf.js 5.4.296 reads them, for page trees it
 * reads plainly: every node's /Count equal to the pages under it (pdf.js skips subtrees by
 * /Count), no cycles, bounded depth, each page's /Parent the node it hangs from, and the
 * linearization dictionary's /N (which pdf.js prefers) equal to /Count. `view` is pdf.js's
 * `page.view` (MediaBox ∩ CropBox, letter size by default), `rotate` its `page.rotate`.
 */
import { isDict, isRef, type PdfDict, type PdfRef, type PdfValue } from '../objects.js';
import type { DocObjects } from './doc-objects.js';
import { ineligible } from './ineligible.js';

export interface PageInfo {
  ref: PdfRef;
  dict: PdfDict;
  /** Nearest first: the page, its parent, … (for inherited attributes). */
  chain: PdfDict[];
}

const MAX_DEPTH = 32;
const MAX_PAGES = 100_000;

const nameOf = (v: PdfValue | undefined): string | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'name' ? v.name : undefined;

export function readPageTree(objs: DocObjects, firstPages: number): { count: number; pages: PageInfo[] } {
  const s = objs.s;
  const rootRef = s.trailer?.entries.get('Root');
  if (!isRef(rootRef)) ineligible('page tree: no catalog');
  const catalog = objs.dict(rootRef);
  if (!catalog) ineligible('page tree: no catalog');
  const pagesRef = catalog.entries.get('Pages');
  if (!isRef(pagesRef)) ineligible('page tree: Pages not a reference');
  const top = objs.dict(pagesRef);
  if (!top) ineligible('page tree: no Pages');
  const count = objs.get(top.entries.get('Count'));
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) ineligible('page tree: bad Count');
  if (count > MAX_PAGES) ineligible('page tree: too many pages');

  // pdf.js prefers a valid linearization dictionary's page count.
  let first: { offset: number; value: PdfValue | undefined } | undefined;
  for (const list of s.versions.values()) for (const o of list) if (o.inObjStm === undefined && (!first || o.offset < first.offset)) first = o;
  if (first && isDict(first.value) && first.value.entries.has('Linearized') && first.value.entries.get('N') !== count) ineligible('page tree: linearization /N differs from /Count');

  const pages: PageInfo[] = [];
  const seen = new Set<number>();
  const walk = (ref: PdfRef, node: PdfDict, chain: PdfDict[], depth: number): number => {
    if (depth > MAX_DEPTH) ineligible('page tree: too deep');
    const kids = objs.get(node.entries.get('Kids'));
    if (!Array.isArray(kids)) ineligible('page tree: no Kids');
    let leaves = 0;
    for (const kidRef of kids) {
      if (!isRef(kidRef)) ineligible('page tree: kid not a reference');
      if (seen.has(kidRef.num)) ineligible('page tree: cycle');
      seen.add(kidRef.num);
      const kid = objs.dict(kidRef);
      if (!kid) ineligible('page tree: kid not a dictionary');
      const parent = kid.entries.get('Parent');
      if (!isRef(parent) || parent.num !== ref.num) ineligible('page tree: Parent mismatch');
      const type = nameOf(objs.get(kid.entries.get('Type')));
      if (type === 'Pages' && kid.entries.has('Kids')) {
        const n = walk(kidRef, kid, [kid, ...chain], depth + 1);
        if (objs.get(kid.entries.get('Count')) !== n) ineligible('page tree: count mismatch');
        leaves += n;
      } else if (type === 'Page' && !kid.entries.has('Kids')) {
        if (pages.length < firstPages) pages.push({ ref: kidRef, dict: kid, chain: [kid, ...chain] });
        leaves++;
      } else ineligible('page tree: node type');
      if (seen.size > MAX_PAGES * 2) ineligible('page tree: too many nodes');
    }
    return leaves;
  };
  seen.add(pagesRef.num);
  if (nameOf(objs.get(top.entries.get('Type'))) !== 'Pages') ineligible('page tree: node type');
  if (top.entries.has('Parent')) ineligible('page tree: root has a Parent');
  const n = walk(pagesRef, top, [top], 0);
  if (n !== count) ineligible('page tree: count mismatch');
  return { count, pages };
}

/** The nearest value of an inheritable attribute, and how many levels carry one. */
function inherited(objs: DocObjects, page: PageInfo, key: string): { value: PdfValue | undefined; levels: number } {
  let value: PdfValue | undefined;
  let levels = 0;
  for (const d of page.chain) {
    const v = objs.get(d.entries.get(key));
    if (v === undefined) continue;
    if (levels === 0) value = v;
    levels++;
  }
  return { value, levels };
}

function box(objs: DocObjects, page: PageInfo, key: string): number[] | null {
  const { value } = inherited(objs, page, key);
  if (value === undefined) return null;
  if (!Array.isArray(value) || value.length !== 4) ineligible(`page: bad ${key}`);
  const r = value.map((v) => objs.get(v));
  if (!r.every((x): x is number => typeof x === 'number')) ineligible(`page: bad ${key}`);
  const n = r.slice();
  if (r[0]! > r[2]!) [n[0], n[2]] = [r[2]!, r[0]!];
  if (r[1]! > r[3]!) [n[1], n[3]] = [r[3]!, r[1]!];
  if (n[2]! - n[0]! > 0 && n[3]! - n[1]! > 0) return n;
  ineligible(`page: empty ${key}`);
}

export function pageView(objs: DocObjects, page: PageInfo): number[] {
  const mediaBox = box(objs, page, 'MediaBox') ?? [0, 0, 612, 792];
  const cropBox = box(objs, page, 'CropBox');
  if (!cropBox || cropBox.every((v, i) => v === mediaBox[i])) return mediaBox;
  const xLow = Math.max(Math.min(cropBox[0]!, cropBox[2]!), Math.min(mediaBox[0]!, mediaBox[2]!));
  const xHigh = Math.min(Math.max(cropBox[0]!, cropBox[2]!), Math.max(mediaBox[0]!, mediaBox[2]!));
  const yLow = Math.max(Math.min(cropBox[1]!, cropBox[3]!), Math.min(mediaBox[1]!, mediaBox[3]!));
  const yHigh = Math.min(Math.max(cropBox[1]!, cropBox[3]!), Math.max(mediaBox[1]!, mediaBox[3]!));
  if (xLow > xHigh || yLow > yHigh || !(xHigh - xLow > 0 && yHigh - yLow > 0)) ineligible('page: empty CropBox intersection');
  return [xLow, yLow, xHigh, yHigh];
}

export function pageRotate(objs: DocObjects, page: PageInfo): number {
  const { value } = inherited(objs, page, 'Rotate');
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value % 90 !== 0) ineligible('page: bad Rotate');
  let rotate = value;
  if (rotate >= 360) rotate %= 360;
  else if (rotate < 0) rotate = ((rotate % 360) + 360) % 360;
  return rotate;
}

export function pageUserUnit(objs: DocObjects, page: PageInfo): number {
  const u = objs.get(page.dict.entries.get('UserUnit'));
  if (u === undefined) return 1;
  if (typeof u !== 'number' || !(u > 0)) ineligible('page: bad UserUnit');
  return u;
}

/**
 * pdf.js's page.resources: the nearest /Resources when one level has it (or the nearest is not a
 * dictionary); when several levels do, their entries merged key by key, the nearest level's
 * value winning (Dict.merge without merging sub-dictionaries).
 */
export function pageResources(objs: DocObjects, page: PageInfo): PdfDict | undefined {
  const values: PdfValue[] = [];
  for (const d of page.chain) {
    const v = objs.get(d.entries.get('Resources'));
    if (v !== undefined) values.push(v);
  }
  if (values.length === 0) return undefined;
  if (values.length === 1 || !isDict(values[0])) return isDict(values[0]) ? values[0] : undefined;
  const merged = new Map<string, PdfValue>();
  for (const v of values) {
    if (!isDict(v)) continue;
    for (const [k, x] of v.entries) if (!merged.has(k)) merged.set(k, x);
  }
  return { kind: 'dict', entries: merged };
}
