/**
 * Where a PDF's signatures are: every dictionary, in any version of any object, whose `/ByteRange`
 * is four numbers. Apart from signatures.ts so that a file without one never loads the signature
 * verifiers (pkijs, asn1js: ~60 ms of module loading per file).
 */
import { isDict, type PdfDict } from './objects.js';
import type { PdfStructure } from './structure.js';

export interface SignatureDict {
  num: number;
  dict: PdfDict;
  range: [number, number, number, number];
}

/** Dictionaries with a four-number `/ByteRange`, in the structure's object order (duplicates included). */
export function* signatureByteRanges(s: PdfStructure): Generator<SignatureDict> {
  for (const list of s.versions.values())
    for (const o of list) {
      const d = o.value;
      if (!isDict(d)) continue;
      const br = d.entries.get('ByteRange');
      if (!Array.isArray(br) || br.length !== 4 || !br.every((x) => typeof x === 'number')) continue;
      yield { num: o.num, dict: d, range: br as [number, number, number, number] };
    }
}

/** Whether the file has any dictionary checkSignatures would check. */
export function hasSignatureDicts(s: PdfStructure): boolean {
  return !signatureByteRanges(s).next().done;
}
