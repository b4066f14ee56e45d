/**
 * What an incremental update changed, in words: each object an update defines is compared with
 * its previous version and sorted by kind. This describes updates (the evidence for unsigned files,
 * and the names of objects in findings); whether a change after signing is permitted is decided
 * object by object by the difference analysis (diff-policy.ts), never by these kinds.
 */
import { canonical, isDict, nameOf, type PdfDict } from './objects.js';
import { pageContentRefs, resolveRef, type IndirectObject, type PdfStructure, type Revision } from './structure.js';

export type ChangeKind =
  | 'signature'
  | 'validation_data'
  | 'annotation'
  | 'structure'
  | 'metadata'
  | 'page_content'
  | 'page_added_or_removed'
  | 'form_value'
  | 'resource_replaced'
  | 'other';

export interface ObjectChange {
  num: number;
  kind: ChangeKind;
  /** A short human description, e.g. "page content stream 12 0 rewritten". */
  what: string;
}

function classify(s: PdfStructure, o: IndirectObject, rev: Revision, contentRefs: Set<number>): ObjectChange {
  const prev = resolveRef(s, { kind: 'ref', num: o.num, gen: o.gen }, rev.start);
  const d: PdfDict | undefined = isDict(o.value) ? o.value : undefined;
  const type = nameOf(d, 'Type');
  const subtype = nameOf(d, 'Subtype');
  const ft = nameOf(d, 'FT');
  const num = o.num;
  if (contentRefs.has(num) && prev) return { num, kind: 'page_content', what: `page content stream ${num} rewritten` };
  if (type === 'Sig' || type === 'DocTimeStamp' || d?.entries.has('ByteRange')) return { num, kind: 'signature', what: `signature dictionary ${num}` };
  if (type === 'DSS' || type === 'VRI' || d?.entries.has('VRI') || d?.entries.has('OCSPs') || d?.entries.has('CRLs'))
    return { num, kind: 'validation_data', what: `validation data (DSS) ${num}` };
  if (type === 'XRef' || type === 'ObjStm') return { num, kind: 'structure', what: `cross-reference/object stream ${num}` };
  if (type === 'Metadata') return { num, kind: 'metadata', what: `XMP metadata ${num}` };
  if (ft || (subtype === 'Widget' && d?.entries.has('V'))) {
    if (ft === 'Sig') return { num, kind: 'signature', what: `signature field ${num}` };
    const before = prev && isDict(prev.value) ? canonical(prev.value.entries.get('V')) : 'undefined';
    const after = canonical(d?.entries.get('V'));
    if (prev && before !== after) return { num, kind: 'form_value', what: `form field ${num} value changed` };
    if (!prev && d?.entries.has('V')) return { num, kind: 'form_value', what: `form field ${num} added with a value` };
    return { num, kind: 'annotation', what: `form field ${num} (value unchanged)` };
  }
  if (type === 'Annot' || (subtype && d?.entries.has('Rect'))) return { num, kind: 'annotation', what: `annotation ${num} (${subtype ?? 'unknown'})` };
  if (type === 'Page') {
    if (!prev) return { num, kind: 'page_added_or_removed', what: `page ${num} added` };
    const pc = isDict(prev.value) ? canonical(prev.value.entries.get('Contents')) : '';
    if (pc !== canonical(d?.entries.get('Contents'))) return { num, kind: 'page_content', what: `page ${num} points to different content` };
    const pr = isDict(prev.value) ? canonical(prev.value.entries.get('Resources')) : '';
    if (pr !== canonical(d?.entries.get('Resources'))) return { num, kind: 'resource_replaced', what: `page ${num} resources changed` };
    return { num, kind: 'annotation', what: `page ${num} annotations list updated` };
  }
  if (type === 'Pages') {
    const before = prev && isDict(prev.value) ? canonical(prev.value.entries.get('Kids')) : '';
    if (prev && before !== canonical(d?.entries.get('Kids'))) return { num, kind: 'page_added_or_removed', what: `page tree ${num} changed (pages added, removed or reordered)` };
    return { num, kind: 'structure', what: `page tree ${num}` };
  }
  if (type === 'Catalog' || d?.entries.has('Fields')) return { num, kind: 'structure', what: type === 'Catalog' ? `catalog ${num}` : `form ${num}` };
  if (prev) {
    const pt = isDict(prev.value) ? nameOf(prev.value, 'Type') ?? nameOf(prev.value, 'Subtype') : undefined;
    if (pt === 'XObject' || pt === 'Font' || pt === 'Image' || pt === 'Form' || subtype === 'Image' || subtype === 'Form')
      return { num, kind: 'resource_replaced', what: `${pt ?? subtype} ${num} replaced` };
    if (prev && canonical(prev.value) === canonical(o.value) && !o.stream) return { num, kind: 'structure', what: `object ${num} rewritten unchanged` };
  }
  // New streams without a type are usually certificates, OCSP responses or CRLs for the DSS.
  if (!prev && o.stream && !type) return { num, kind: 'validation_data', what: `new untyped stream ${num}` };
  return { num, kind: 'other', what: `object ${num}${type ? ` (${type})` : ''} ${prev ? 'changed' : 'added'}` };
}

export function revisionChanges(s: PdfStructure, rev: Revision): ObjectChange[] {
  if (rev.index === 0) return [];
  const contentRefs = pageContentRefs(s, rev.start);
  return rev.objects.map((o) => classify(s, o, rev, contentRefs));
}

export function summariseChanges(changes: readonly ObjectChange[]): string {
  const counts = new Map<ChangeKind, number>();
  for (const c of changes) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`).join(', ');
}
