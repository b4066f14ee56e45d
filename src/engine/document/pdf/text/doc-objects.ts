/**
 * The objects the simple reader reads, taken from structure.ts's scan only where pdf.js would
 * find the very same object through the cross-reference table: exactly one version of the
 * object in the file, not marked free, generation matching. Streams are decoded strictly (a whole
 * Flate stream, or unfiltered data of exactly its /Length); anything else is not eligible.
 */
import { inflateSync } from 'node:zlib';
import { isDict, isRef, type PdfDict, type PdfValue } from '../objects.js';
import type { IndirectObject, PdfStructure } from '../structure.js';
import { ineligible } from './ineligible.js';

export class DocObjects {
  private readonly freed = new Set<number>();
  /** Every object number read, so callers can tell two references to one object apart from two objects. */
  constructor(
    private readonly bytes: Buffer,
    readonly s: PdfStructure,
  ) {
    for (const sec of s.sections) for (const n of sec.freed) this.freed.add(n);
  }

  object(num: number, gen: number): IndirectObject {
    const list = this.s.versions.get(num);
    if (!list || list.length !== 1) ineligible(list ? 'objects: several versions' : 'objects: missing object');
    if (this.freed.has(num)) ineligible('objects: freed object');
    const o = list[0]!;
    if (o.gen !== gen) ineligible('objects: generation mismatch');
    if (o.value === undefined) ineligible('objects: unparsed object');
    return o;
  }

  /** The value, through at most a few references (pdf.js's fetchIfRef follows one; chains are odd). */
  get(v: PdfValue | undefined): PdfValue | undefined {
    if (!isRef(v)) return v;
    const o = this.object(v.num, v.gen);
    if (isRef(o.value)) ineligible('objects: reference to a reference');
    return o.value;
  }

  dict(v: PdfValue | undefined): PdfDict | undefined {
    const d = this.get(v);
    return isDict(d) ? d : undefined;
  }

  /** A referenced stream's dictionary, without decoding it. */
  streamDict(v: PdfValue | undefined): { dict: PdfDict; num: number } {
    if (!isRef(v)) ineligible('objects: stream not referenced');
    const o = this.object(v.num, v.gen);
    if (!o.stream || !isDict(o.value)) ineligible('objects: not a stream');
    return { dict: o.value, num: v.num };
  }

  /** A referenced stream's dictionary and decoded data. */
  stream(v: PdfValue | undefined): { dict: PdfDict; data: Buffer; num: number } {
    if (!isRef(v)) ineligible('objects: stream not referenced');
    const o = this.object(v.num, v.gen);
    if (!o.stream || !isDict(o.value)) ineligible('objects: not a stream');
    const dict = o.value;
    const raw = this.bytes.subarray(o.stream.start, o.stream.end);
    const filter = this.get(dict.entries.get('Filter'));
    const f = Array.isArray(filter) ? (filter.length === 1 ? this.get(filter[0]) : 'many') : filter;
    if (dict.entries.has('DecodeParms') || dict.entries.has('DP')) ineligible('stream: decode parameters');
    if (f === undefined) {
      const len = this.get(dict.entries.get('Length'));
      if (len !== raw.length) ineligible('stream: length');
      return { dict, data: raw, num: v.num };
    }
    if (!f || typeof f !== 'object' || Array.isArray(f) || f.kind !== 'name' || (f.name !== 'FlateDecode' && f.name !== 'Fl')) ineligible('stream: filter');
    const budget = this.s.inflateBudget;
    const cap = budget.nextCap();
    if (cap === 0) ineligible('stream: inflate budget');
    let data: Buffer;
    try {
      data = inflateSync(raw, { maxOutputLength: cap });
    } catch {
      ineligible('stream: flate');
    }
    budget.note(data.length, false, false);
    return { dict, data, num: v.num };
  }
}
