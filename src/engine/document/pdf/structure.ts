/**
 * The project's own reader of a PDF's file structure (ISO 32000-1 §7.5): indirect objects with
 * their byte offsets, object streams, the cross-reference chain (`startxref` → `/Prev` …) and the
 * incremental-update revisions it implies. pdf.js answers "what does the document say"; this
 * answers "how was the file built and what was appended later", which pdf.js does not expose.
 *
 * Linearized files carry a first-page xref section and a second `%%EOF` near the start; hybrid
 * files carry an `/XRefStm` beside their table. Both are one revision, not an edit (§7.5.8.4, Annex F).
 */
import { InflateBudget } from '../budget.js';
import { inflateBounded } from './bounded-inflate.js';
import {
  PdfLexer,
  arrayOf,
  isDict,
  nameOf,
  numberOf,
  refOf,
  type PdfDict,
  type PdfRef,
  type PdfValue,
} from './objects.js';

export interface IndirectObject {
  num: number;
  gen: number;
  /** Byte offset of `N G obj`, or of the containing object stream for compressed objects. */
  offset: number;
  value: PdfValue | undefined;
  /** Byte range of the raw (still encoded) stream data, when the object is a stream. */
  stream?: { start: number; end: number };
  /** Number of the object stream that holds it (PDF 1.5 compressed objects). */
  inObjStm?: number;
}

export interface XrefSection {
  offset: number;
  kind: 'table' | 'stream';
  trailer: PdfDict | undefined;
  /** Object numbers this section marks free (object 0, the free-list head, left out). */
  freed: number[];
}

export interface Revision {
  /** 0 is the original file; 1… are incremental updates. */
  index: number;
  start: number;
  /** Offset just past this revision's `%%EOF` (and its end-of-line). */
  end: number;
  objects: IndirectObject[];
  /** Object numbers this revision's cross-reference section marks free. */
  freed: number[];
}

export interface PdfStructure {
  version: string | null;
  size: number;
  linearized: boolean;
  hybridXref: boolean;
  /** True when the xref chain from the last `startxref` could be followed to its end. */
  xrefChainOk: boolean;
  sections: XrefSection[];
  revisions: Revision[];
  /** The newest trailer (for xref streams, the stream dictionary). */
  trailer: PdfDict | undefined;
  encrypted: boolean;
  /** Every version of every object, in file order. */
  versions: Map<number, IndirectObject[]>;
  /** Bytes after the last `%%EOF` that are not whitespace. */
  trailingBytes: number;
  warnings: string[];
  /** What this document has inflated so far; later readers (XMP, the diff analysis) draw on it too. */
  inflateBudget: InflateBudget;
}

const OBJ_RE = /(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?![A-Za-z])/g;

/** Undoes the PNG predictors (§7.4.4.4) xref streams use: each row starts with a filter-type byte. */
function unpredict(data: Buffer, columns: number, predictor: number): Buffer {
  if (predictor < 10) return data;
  const rowLen = columns + 1;
  const rows = Math.floor(data.length / rowLen);
  const out = Buffer.alloc(rows * columns);
  let prev = Buffer.alloc(columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * rowLen]!;
    const row = Buffer.from(data.subarray(r * rowLen + 1, (r + 1) * rowLen));
    for (let i = 0; i < columns; i++) {
      const left = i > 0 ? row[i - 1]! : 0;
      const up = prev[i]!;
      const ul = i > 0 ? prev[i - 1]! : 0;
      if (type === 1) row[i] = (row[i]! + left) & 0xff;
      else if (type === 2) row[i] = (row[i]! + up) & 0xff;
      else if (type === 3) row[i] = (row[i]! + ((left + up) >> 1)) & 0xff;
      else if (type === 4) {
        const p = left + up - ul;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - ul);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? left : pb <= pc ? up : ul)) & 0xff;
      }
    }
    row.copy(out, r * columns);
    prev = row;
  }
  return out;
}

/**
 * The decoded data of a stream object (Flate only, plus unfiltered); undefined when not decodable
 * here or when the inflation budget (shared by the whole document) stops it.
 */
export function decodeStream(bytes: Buffer, obj: IndirectObject, budget: InflateBudget = new InflateBudget()): Buffer | undefined {
  if (!obj.stream || !isDict(obj.value)) return undefined;
  const raw = bytes.subarray(obj.stream.start, obj.stream.end);
  const filter = obj.value.entries.get('Filter');
  const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
  const names = filters.map((f) => (f && typeof f === 'object' && !Array.isArray(f) && f.kind === 'name' ? f.name : '?'));
  if (names.length === 0) return raw;
  if (names.length !== 1 || names[0] !== 'FlateDecode') return undefined;
  const out = inflateBounded(raw, budget).data;
  if (!out) return undefined;
  const parms = obj.value.entries.get('DecodeParms');
  if (isDict(parms)) {
    const predictor = numberOf(parms, 'Predictor') ?? 1;
    const columns = numberOf(parms, 'Columns') ?? 1;
    if (predictor >= 10) return unpredict(out, columns, predictor);
  }
  return out;
}

function findStreamData(src: string, lex: PdfLexer, dict: PdfDict): { start: number; end: number; next: number } | undefined {
  const save = lex.pos;
  if (lex.peekWord() !== 'stream') {
    lex.pos = save;
    return undefined;
  }
  let p = lex.pos + 'stream'.length;
  if (src[p] === '\r') p++;
  if (src[p] === '\n') p++;
  const len = numberOf(dict, 'Length');
  if (len !== undefined && len >= 0 && p + len <= src.length) {
    const after = src.slice(p + len, p + len + 20);
    if (/^[\r\n\s]*endstream/.test(after)) return { start: p, end: p + len, next: p + len + after.indexOf('endstream') + 9 };
  }
  // Indirect or wrong /Length: the data ends at the next `endstream`.
  const e = src.indexOf('endstream', p);
  if (e < 0) return { start: p, end: src.length, next: src.length };
  let end = e;
  if (src[end - 1] === '\n') end--;
  if (src[end - 1] === '\r') end--;
  return { start: p, end: Math.max(p, end), next: e + 9 };
}

function scanObjects(src: string, bytes: Buffer, warnings: string[], budget: InflateBudget): IndirectObject[] {
  const out: IndirectObject[] = [];
  OBJ_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = OBJ_RE.exec(src))) {
    const start = m.index;
    // The number must start a token: a digit glued to what precedes it is inside something else.
    if (start > 0 && /[0-9A-Za-z.]/.test(src[start - 1]!)) continue;
    const lex = new PdfLexer(src, start + m[0].length);
    const value = lex.readValue();
    const obj: IndirectObject = { num: Number(m[1]), gen: Number(m[2]), offset: start, value };
    if (isDict(value)) {
      const s = findStreamData(src, lex, value);
      if (s) {
        obj.stream = { start: s.start, end: s.end };
        OBJ_RE.lastIndex = s.next;
      } else OBJ_RE.lastIndex = Math.max(OBJ_RE.lastIndex, lex.pos);
    } else OBJ_RE.lastIndex = Math.max(OBJ_RE.lastIndex, lex.pos);
    out.push(obj);
  }
  const compressed: IndirectObject[] = [];
  let undecodable = 0;
  for (const obj of out) {
    if (!isDict(obj.value) || nameOf(obj.value, 'Type') !== 'ObjStm') continue;
    const data = decodeStream(bytes, obj, budget);
    if (!data) {
      undecodable++;
      continue;
    }
    const n = numberOf(obj.value, 'N') ?? 0;
    const first = numberOf(obj.value, 'First') ?? 0;
    const s = data.toString('latin1');
    const head = new PdfLexer(s, 0, Math.min(first, s.length));
    for (let i = 0; i < n; i++) {
      const num = Number(head.readWord());
      const off = Number(head.readWord());
      if (!Number.isInteger(num) || !Number.isInteger(off)) break;
      const value = new PdfLexer(s, first + off).readValue();
      compressed.push({ num, gen: 0, offset: obj.offset, value, inObjStm: obj.num });
    }
  }
  if (undecodable) warnings.push(`${undecodable} object stream(s) could not be decoded (${budget.exceeded ?? 'encrypted or damaged'}); objects inside them were not inspected`);
  return [...out, ...compressed].sort((a, b) => a.offset - b.offset);
}

/** Free entries of an xref table (`nnnnnnnnnn ggggg f`), read subsection by subsection. */
function tableFreed(src: string, from: number, to: number): number[] {
  const out: number[] = [];
  const lines = src.slice(from, to).split(/\r\n|\r|\n/);
  let num = 0;
  for (const line of lines) {
    const sub = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
    if (sub) {
      num = Number(sub[1]);
      continue;
    }
    const e = /^\s*(\d{10})\s+(\d{5})\s+([fn])/.exec(line);
    if (!e) continue;
    if (e[3] === 'f' && num !== 0) out.push(num);
    num++;
  }
  return out;
}

/** Free (type 0) entries of an xref stream (§7.5.8.3). */
function streamFreed(bytes: Buffer, obj: IndirectObject, budget: InflateBudget): number[] {
  const d = obj.value;
  if (!isDict(d)) return [];
  const w = arrayOf(d, 'W');
  const data = decodeStream(bytes, obj, budget);
  if (!w || w.length !== 3 || !w.every((x) => typeof x === 'number' && x >= 0 && x <= 8) || !data) return [];
  const [w0, w1, w2] = w as [number, number, number];
  const rowLen = w0 + w1 + w2;
  if (rowLen === 0) return [];
  const size = numberOf(d, 'Size') ?? 0;
  const index = arrayOf(d, 'Index') ?? [0, size];
  const out: number[] = [];
  let row = 0;
  for (let i = 0; i + 1 < index.length; i += 2) {
    const first = index[i], count = index[i + 1];
    if (typeof first !== 'number' || typeof count !== 'number') break;
    for (let k = 0; k < count && (row + 1) * rowLen <= data.length; k++, row++) {
      const type = w0 === 0 ? 1 : data.readUIntBE(row * rowLen, Math.min(w0, 6));
      if (type === 0 && first + k !== 0) out.push(first + k);
    }
  }
  return out;
}

function readSection(src: string, bytes: Buffer, offset: number, byOffset: Map<number, IndirectObject>, budget: InflateBudget): XrefSection | undefined {
  if (offset < 0 || offset >= src.length) return undefined;
  const lex = new PdfLexer(src, offset);
  if (lex.peekWord() === 'xref') {
    const t = src.indexOf('trailer', offset);
    if (t < 0) return { offset, kind: 'table', trailer: undefined, freed: [] };
    const trailer = new PdfLexer(src, t + 7).readValue();
    return { offset, kind: 'table', trailer: isDict(trailer) ? trailer : undefined, freed: tableFreed(src, lex.pos + 4, t) };
  }
  // An xref stream: `N G obj << /Type /XRef … >> stream`. Tolerate an offset a few bytes off.
  for (let d = 0; d <= 4; d++) {
    const obj = byOffset.get(offset + d) ?? byOffset.get(offset - d);
    if (obj && isDict(obj.value) && nameOf(obj.value, 'Type') === 'XRef') return { offset: obj.offset, kind: 'stream', trailer: obj.value, freed: streamFreed(bytes, obj, budget) };
  }
  return undefined;
}

function eofEnds(src: string): number[] {
  const ends: number[] = [];
  let i = src.indexOf('%%EOF');
  while (i >= 0) {
    let e = i + 5;
    if (src[e] === '\r') e++;
    if (src[e] === '\n') e++;
    ends.push(e);
    i = src.indexOf('%%EOF', i + 5);
  }
  return ends;
}

export function readPdfStructure(bytes: Buffer, inflateBudget: InflateBudget = new InflateBudget()): PdfStructure {
  const src = bytes.toString('latin1');
  const warnings: string[] = [];
  const version = /%PDF-(\d\.\d)/.exec(src.slice(0, 1024))?.[1] ?? null;
  const all = scanObjects(src, bytes, warnings, inflateBudget);
  const versions = new Map<number, IndirectObject[]>();
  const byOffset = new Map<number, IndirectObject>();
  for (const o of all) {
    if (o.inObjStm === undefined) byOffset.set(o.offset, o);
    const list = versions.get(o.num);
    if (list) list.push(o);
    else versions.set(o.num, [o]);
  }
  const firstObj = all.find((o) => o.inObjStm === undefined);
  const linearized = !!firstObj && isDict(firstObj.value) && firstObj.value.entries.has('Linearized') && firstObj.offset < 1024;

  // Follow the xref chain from the last startxref.
  const sections: XrefSection[] = [];
  let hybridXref = false;
  let xrefChainOk = false;
  const sx = src.lastIndexOf('startxref');
  let next: number | undefined = sx >= 0 ? Number(new PdfLexer(src, sx + 9).readWord()) : undefined;
  const seen = new Set<number>();
  while (next !== undefined && Number.isFinite(next) && !seen.has(next) && sections.length < 10_000) {
    seen.add(next);
    const sec = readSection(src, bytes, next, byOffset, inflateBudget);
    if (!sec) break;
    sections.push(sec);
    if (sec.trailer?.entries.has('XRefStm')) hybridXref = true;
    const prev = numberOf(sec.trailer, 'Prev');
    if (prev === undefined) {
      xrefChainOk = true;
      break;
    }
    next = prev;
  }
  if (sx < 0) warnings.push('no startxref: the cross-reference chain is missing; revisions were estimated from %%EOF markers');
  else if (!xrefChainOk) warnings.push('the cross-reference chain is broken; revisions were estimated from %%EOF markers');

  const ends = eofEnds(src);
  const endAfter = (off: number): number => ends.find((e) => e > off) ?? src.length;
  let revisionEnds: number[];
  if (xrefChainOk && sections.length > 0) {
    const sectionEnds = sections.map((s) => endAfter(s.offset));
    if (linearized && sections.length >= 2) {
      // The first-page section near the top belongs to the original file: give it the end of the
      // section its /Prev points to (the main xref at the end of the original body).
      const firstPage = sections.reduce((a, b) => (b.offset < a.offset ? b : a));
      const i = sections.indexOf(firstPage);
      const prev = numberOf(firstPage.trailer, 'Prev');
      const j = sections.findIndex((s) => s.offset === prev);
      if (j >= 0) sectionEnds[i] = sectionEnds[j]!;
    }
    revisionEnds = [...new Set(sectionEnds)].sort((a, b) => a - b);
  } else {
    // Fallback: every %%EOF that closes new objects is a revision; a linearized file's first one is not.
    // `all` is sorted by offset: one pointer walks it alongside the %%EOF markers (no revisions × objects scan).
    revisionEnds = [];
    let i = 0;
    for (const e of ends) {
      let closesObjects = false;
      while (i < all.length && all[i]!.offset < e) {
        closesObjects = true;
        i++;
      }
      if (closesObjects) revisionEnds.push(e);
    }
    if (linearized && revisionEnds.length >= 2) revisionEnds.shift();
    if (revisionEnds.length === 0) revisionEnds.push(src.length);
  }
  // Objects after the final %%EOF (a file cut before its end) still belong to the last revision.
  const lastEnd = revisionEnds[revisionEnds.length - 1]!;
  const tail = src.slice(lastEnd);
  const trailingBytes = tail.replace(/[\0\s]/g, '').length;

  // Objects and xref sections are handed to revisions by one pass each over offset-sorted lists.
  const sortedSections = [...sections].sort((x, y) => x.offset - y.offset);
  let oi = 0;
  let si = 0;
  const revisions: Revision[] = revisionEnds.map((end, index) => {
    const start = index === 0 ? 0 : revisionEnds[index - 1]!;
    const isLast = index === revisionEnds.length - 1;
    const objects: IndirectObject[] = [];
    while (oi < all.length && (isLast || all[oi]!.offset < end)) objects.push(all[oi++]!);
    const freed = new Set<number>();
    while (si < sortedSections.length && (isLast || sortedSections[si]!.offset < end)) for (const n of sortedSections[si++]!.freed) freed.add(n);
    return { index, start, end, objects, freed: [...freed] };
  });

  const trailer = sections[0]?.trailer ?? findFallbackTrailer(src, all);
  return {
    version,
    size: bytes.length,
    linearized,
    hybridXref,
    xrefChainOk,
    sections,
    revisions,
    trailer,
    encrypted: !!trailer?.entries.has('Encrypt') || sections.some((s) => s.trailer?.entries.has('Encrypt')),
    versions,
    trailingBytes,
    warnings,
    inflateBudget,
  };
}

/** Without a readable xref: the last `trailer` dictionary, or the last xref stream's dictionary. */
function findFallbackTrailer(src: string, all: IndirectObject[]): PdfDict | undefined {
  const t = src.lastIndexOf('trailer');
  if (t >= 0) {
    const v = new PdfLexer(src, t + 7).readValue();
    if (isDict(v)) return v;
  }
  for (let i = all.length - 1; i >= 0; i--) {
    const v = all[i]!.value;
    if (isDict(v) && nameOf(v, 'Type') === 'XRef') return v;
  }
  const catalog = [...all].reverse().find((o) => isDict(o.value) && nameOf(o.value, 'Type') === 'Catalog');
  if (catalog) return { kind: 'dict', entries: new Map([['Root', { kind: 'ref', num: catalog.num, gen: catalog.gen }]]) };
  return undefined;
}

/** The newest version of an object defined before `before` (default: anywhere in the file). */
export function resolveRef(s: PdfStructure, ref: PdfRef | undefined, before = Infinity): IndirectObject | undefined {
  if (!ref) return undefined;
  const list = s.versions.get(ref.num);
  if (!list) return undefined;
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.offset < before) return list[i];
  return undefined;
}

export function resolveValue(s: PdfStructure, v: PdfValue | undefined, before = Infinity): PdfValue | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) && v.kind === 'ref' ? resolveRef(s, v, before)?.value : v;
}

/** Page count from the page tree's root `/Count` (readable even when strings are encrypted). */
export function pageCountFromTree(s: PdfStructure): number | undefined {
  const root = resolveRef(s, refOf(s.trailer, 'Root'));
  if (!root || !isDict(root.value)) return undefined;
  const pages = resolveValue(s, root.value.entries.get('Pages'));
  if (!isDict(pages)) return undefined;
  const count = resolveValue(s, pages.entries.get('Count'));
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

/** Object numbers of every page's content streams as of a given offset. */
export function pageContentRefs(s: PdfStructure, before = Infinity): Set<number> {
  const out = new Set<number>();
  for (const [num, list] of s.versions) {
    let cur: IndirectObject | undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.offset < before) { cur = list[i]; break; }
    if (!cur || !isDict(cur.value) || nameOf(cur.value, 'Type') !== 'Page') continue;
    const c = cur.value.entries.get('Contents');
    const refs = Array.isArray(c) ? c : [c];
    for (const r of refs) if (r && typeof r === 'object' && !Array.isArray(r) && r.kind === 'ref') out.add(r.num);
    const arrRef = refOf(cur.value, 'Contents');
    if (arrRef) {
      const arr = resolveValue(s, arrRef, before);
      if (Array.isArray(arr)) for (const r of arr) if (r && typeof r === 'object' && !Array.isArray(r) && r.kind === 'ref') out.add(r.num);
    }
    void num;
  }
  return out;
}

export { arrayOf };
