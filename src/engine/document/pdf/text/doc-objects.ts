/**
 * The objects the simple reader reads, taken from structure.ts's scan only where pdf.js finds the
 * very same object through the cross-reference sections (newest first): the version at the
 * offset the xref gives, or in the object stream it names, generation matching. An object the
 * xref does not list where the scan found it (pdf.js would then reconstruct the table, or fail)
 * is not eligible. Streams are decoded strictly (a whole Flate stream, or unfiltered data of
 * exactly its /Length); anything else is not eligible.
 */
import { inflateSync } from 'node:zlib';
import { arrayOf, isDict, isRef, numberOf, type PdfDict, type PdfValue } from '../objects.js';
import { decodeStream, type IndirectObject, type PdfStructure } from '../structure.js';
import { ineligible } from './ineligible.js';

type XrefEntry = { type: 'free' } | { type: 'offset'; offset: number; gen: number } | { type: 'compressed'; stm: number; index: number };

const MAX_XREF_ENTRIES = 4_000_000;
/**
 * Decoded stream bytes one reading may produce (content, fonts, CMaps). Far above any "simple"
 * file, and well under the 128 MB decode budget the extraction thread gives pdf.js (decode-cap.ts),
 * past which pdf.js's reading fails: a file this reader answers for never gets near it.
 */
const MAX_DECODED_BYTES = 32 * 1024 * 1024;

export class DocObjects {
  private xref: Map<number, XrefEntry> | undefined;
  private decoded = 0;
  constructor(
    private readonly bytes: Buffer,
    readonly s: PdfStructure,
  ) {}

  /** The cross-reference entries, newest section first (each number's first entry wins, as in pdf.js). */
  private entries(): Map<number, XrefEntry> {
    if (this.xref) return this.xref;
    const map = new Map<number, XrefEntry>();
    const src = this.bytes;
    for (const sec of this.s.sections) {
      if (sec.kind === 'table') {
        const t = src.indexOf('trailer', sec.offset, 'latin1');
        if (t < 0) ineligible('xref: table');
        const lines = src.toString('latin1', sec.offset + 4, t).split(/\r\n|\r|\n/);
        let num = -1;
        let left = 0;
        for (const raw of lines) {
          const line = raw.trim();
          if (line === '') continue;
          const sub = /^(\d+) (\d+)$/.exec(line);
          if (sub && left === 0) {
            num = Number(sub[1]);
            left = Number(sub[2]);
            continue;
          }
          const e = /^(\d{10}) (\d{5}) ([fn])$/.exec(line);
          if (!e || left === 0) ineligible('xref: table');
          if (!map.has(num)) map.set(num, e[3] === 'f' ? { type: 'free' } : { type: 'offset', offset: Number(e[1]), gen: Number(e[2]) });
          num++;
          left--;
          if (map.size > MAX_XREF_ENTRIES) ineligible('xref: too large');
        }
        if (left !== 0) ineligible('xref: table');
      } else {
        let obj: IndirectObject | undefined;
        for (const list of this.s.versions.values()) for (const o of list) if (o.offset === sec.offset && o.inObjStm === undefined) obj = o;
        const d = obj?.value;
        if (!obj || !isDict(d)) ineligible('xref: stream');
        const w = arrayOf(d, 'W');
        const data = decodeStream(this.bytes, obj, this.s.inflateBudget);
        if (!w || w.length !== 3 || !w.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 6) || !data) ineligible('xref: stream');
        const [w0, w1, w2] = w as [number, number, number];
        const rowLen = w0 + w1 + w2;
        const size = numberOf(d, 'Size') ?? 0;
        const index = arrayOf(d, 'Index') ?? [0, size];
        let row = 0;
        for (let i = 0; i + 1 < index.length; i += 2) {
          const first = index[i], count = index[i + 1];
          if (typeof first !== 'number' || typeof count !== 'number') ineligible('xref: stream');
          for (let k = 0; k < count; k++, row++) {
            if ((row + 1) * rowLen > data.length) ineligible('xref: stream');
            const at = row * rowLen;
            const type = w0 === 0 ? 1 : data.readUIntBE(at, w0);
            const f2 = w1 === 0 ? 0 : data.readUIntBE(at + w0, w1);
            const f3 = w2 === 0 ? 0 : data.readUIntBE(at + w0 + w1, w2);
            const num = first + k;
            if (map.has(num)) continue;
            if (type === 0) map.set(num, { type: 'free' });
            else if (type === 1) map.set(num, { type: 'offset', offset: f2, gen: f3 });
            else if (type === 2) map.set(num, { type: 'compressed', stm: f2, index: f3 });
            else ineligible('xref: stream entry type');
            if (map.size > MAX_XREF_ENTRIES) ineligible('xref: too large');
          }
        }
      }
    }
    return (this.xref = map);
  }

  object(num: number, gen: number): IndirectObject {
    const entry = this.entries().get(num);
    if (!entry) ineligible('objects: not in xref');
    if (entry.type === 'free') ineligible('objects: freed object');
    const list = this.s.versions.get(num) ?? [];
    let o: IndirectObject | undefined;
    if (entry.type === 'offset') {
      if (entry.gen !== gen) ineligible('objects: generation mismatch');
      o = list.find((v) => v.inObjStm === undefined && v.offset === entry.offset);
    } else {
      if (gen !== 0) ineligible('objects: generation mismatch');
      // The object stream itself must be where the xref says, and hold this object only once.
      const stm = this.entries().get(entry.stm);
      if (!stm || stm.type !== 'offset') ineligible('objects: object stream not in xref');
      const inStm = list.filter((v) => v.inObjStm === entry.stm);
      if (inStm.length !== 1) ineligible('objects: object stream');
      if (!this.s.versions.get(entry.stm)?.some((v) => v.inObjStm === undefined && v.offset === stm.offset)) ineligible('objects: object stream not in xref');
      this.checkObjectStream(entry.stm, stm.gen, num, entry.index);
      o = inStm[0];
    }
    if (!o) ineligible('objects: xref offset mismatch');
    if (o.gen !== gen) ineligible('objects: generation mismatch');
    if (o.value === undefined) ineligible('objects: unparsed object');
    return o;
  }

  /**
   * pdf.js reads an object stream's header strictly (XRef.fetchCompressed): /N pairs of integers,
   * offsets that never go back, and it takes the entry at the xref's index, whatever number the
   * header gives it. The structure reader is lenient there (it stops at the first bad pair and
   * finds objects by number), so a header pdf.js would refuse or read otherwise is not eligible:
   * pdf.js then fails to open such a file, or reads another object.
   */
  private readonly checkedStreams = new Map<number, number[]>();
  private checkObjectStream(stm: number, gen: number, num: number, index: number): void {
    let nums = this.checkedStreams.get(stm);
    if (!nums) {
      const { dict, data } = this.stream({ kind: 'ref', num: stm, gen });
      const n = this.get(dict.entries.get('N'));
      const first = this.get(dict.entries.get('First'));
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || typeof first !== 'number' || !Number.isInteger(first) || first < 0 || first > data.length)
        ineligible('objects: object stream header');
      const words = data.toString('latin1', 0, first).trim().split(/[\0\t\n\f\r ]+/).filter((w) => w !== '');
      if (words.length !== 2 * n || !words.every((w) => /^\d{1,10}$/.test(w))) ineligible('objects: object stream header');
      nums = [];
      let last = -1;
      for (let i = 0; i < n; i++) {
        const off = Number(words[2 * i + 1]);
        if (off < last) ineligible('objects: object stream header');
        last = off;
        nums.push(Number(words[2 * i]));
      }
      this.checkedStreams.set(stm, nums);
    }
    if (nums[index] !== num) ineligible('objects: object stream index');
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
      this.count(raw.length);
      return { dict, data: raw, num: v.num };
    }
    if (!f || typeof f !== 'object' || Array.isArray(f) || f.kind !== 'name' || (f.name !== 'FlateDecode' && f.name !== 'Fl')) ineligible('stream: filter');
    const budget = this.s.inflateBudget;
    const cap = Math.min(budget.nextCap(), MAX_DECODED_BYTES - this.decoded + 1);
    if (cap === 0) ineligible('stream: inflate budget');
    let data: Buffer;
    try {
      data = inflateSync(raw, { maxOutputLength: cap });
    } catch (err) {
      ineligible((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError ? 'stream: too much decoded' : 'stream: flate');
    }
    budget.note(data.length, false, false);
    this.count(data.length);
    return { dict, data, num: v.num };
  }

  private count(bytes: number): void {
    this.decoded += bytes;
    if (this.decoded > MAX_DECODED_BYTES) ineligible('stream: too much decoded');
  }
}
