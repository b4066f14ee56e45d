/**
 * Reads the few XMP properties the document checks use (ISO 16684-1). XMP writers use both the
 * attribute form (`xmp:CreateDate="…"`) and the element form (`<xmp:CreateDate>…</…>`), and
 * `dc:creator` is an `rdf:Seq` of `rdf:li`. One streaming pass of saxes (no RDF model), after
 * the XML budget (xml-budget.ts): a packet that is malformed, declares a DOCTYPE or nests past
 * the limit is not read at all (the caller warns). Regular expressions, which this replaced,
 * cost time quadratic in the number of unclosed property tags.
 */
import { SaxesParser } from 'saxes';
import { xmlProblem } from './xml-budget.js';

export interface XmpFields {
  createDate: string | null;
  modifyDate: string | null;
  metadataDate: string | null;
  creatorTool: string | null;
  producer: string | null;
  creator: string | null;
  documentId: string | null;
  /** Number of `stEvt:action` entries in xmpMM:History (saves/conversions recorded by the writer). */
  historyEvents: number;
}

/** Each field and the property names (as written, with their usual prefixes) it is read from, in order of preference. */
const FIELDS: Record<Exclude<keyof XmpFields, 'historyEvents'>, string[]> = {
  createDate: ['xmp:CreateDate', 'xap:CreateDate'],
  modifyDate: ['xmp:ModifyDate', 'xap:ModifyDate'],
  metadataDate: ['xmp:MetadataDate', 'xap:MetadataDate'],
  creatorTool: ['xmp:CreatorTool', 'xap:CreatorTool'],
  producer: ['pdf:Producer'],
  creator: ['dc:creator'],
  documentId: ['xmpMM:DocumentID'],
};
const WANTED = new Set(Object.values(FIELDS).flat());

/** The packet's fields, or the reason it was not read. */
export function readXmp(xml: string): { fields: XmpFields } | { problem: string } {
  const problem = xmlProblem(xml);
  if (problem) return { problem };
  // First value per property name: the attribute form wins over the element form (either order in the text).
  const attrValues = new Map<string, string>();
  const elementValues = new Map<string, string>();
  let historyEvents = 0;
  /** The property element being read: its text, and the first rdf:li's text when it holds a list. */
  let open: { name: string; depth: number; text: string; li: string | null; inLi: boolean; liDone: boolean } | undefined;
  let depth = 0;
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    depth++;
    for (const [name, value] of Object.entries(tag.attributes as Record<string, string>)) {
      if (name === 'stEvt:action') historyEvents++;
      if (WANTED.has(name) && !attrValues.has(name)) attrValues.set(name, value);
    }
    if (tag.name === 'stEvt:action') historyEvents++;
    if (open) {
      if (tag.name === 'rdf:li' && open.li === null) open.inLi = true;
    } else if (WANTED.has(tag.name) && !elementValues.has(tag.name) && !tag.isSelfClosing) open = { name: tag.name, depth, text: '', li: null, inLi: false, liDone: false };
  });
  parser.on('text', (t) => {
    if (!open) return;
    open.text += t;
    if (open.inLi) open.li = (open.li ?? '') + t;
  });
  parser.on('closetag', (tag) => {
    if (open?.inLi && tag.name === 'rdf:li') {
      open.inLi = false;
      open.li ??= '';
    }
    if (open && depth === open.depth) {
      elementValues.set(open.name, (open.li ?? open.text).trim());
      open = undefined;
    }
    depth--;
  });
  parser.write(xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml).close();
  const value = (names: string[]): string | null => {
    for (const n of names) {
      const v = attrValues.get(n);
      if (v !== undefined) return v.trim() || null;
    }
    for (const n of names) {
      const v = elementValues.get(n);
      if (v !== undefined) return v || null;
    }
    return null;
  };
  const fields = Object.fromEntries(Object.entries(FIELDS).map(([k, names]) => [k, value(names)])) as Omit<XmpFields, 'historyEvents'>;
  return { fields: { ...fields, historyEvents } };
}

/** XMP dates are ISO 8601 with optional parts (`2023-05-04T13:31:05-07:00`, `2023-05-04`). */
export function parseXmpDate(v: string | null): string | null {
  if (!v) return null;
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  const zone = !tz || tz === 'Z' ? 'Z' : tz.includes(':') ? tz : `${tz.slice(0, 3)}:${tz.slice(3)}`;
  const t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}
