/**
 * Whether a PDF may carry a C2PA manifest, decided from its bytes and the structure reader's
 * objects, so the C2PA reader (c2pa-wasm: ~40 ms to compile and ~300 ms to walk a 100-page file)
 * starts only for files where it can find something.
 *
 * What the reader (c2pa-rs, `asset_handlers/pdf.rs`) can report for a PDF, and what this looks for:
 * - an embedded manifest: a file specification, an indirect object listed in the catalog's /AF
 *   array, whose /AFRelationship is /C2PA_Manifest — any indirect object with an /AFRelationship
 *   key (name escapes decoded, object streams included) counts;
 * - a remote manifest: `dcterms:provenance` in the catalog's XMP stream — the raw bytes, and every
 *   Flate-compressed XML/Metadata stream decoded, are searched for "provenance";
 * - the raw markers "c2pa", "C2PA" or "jumb" anywhere (a manifest store's JUMBF box).
 * The answer errs towards reading: no readable structure, an encrypted file or an object stream
 * that could not be decoded means "maybe", and the reader runs as before.
 */
import { InflateBudget } from '../budget.js';
import { isDict, nameOf } from './objects.js';
import { decodeStream, type PdfStructure } from './structure.js';

const RAW_MARKERS = ['c2pa', 'C2PA', 'jumb', 'provenance'];
/** XMP packets are small; a metadata stream inflating past this is searched no further (and counts as "maybe"). */
const XMP_INFLATE_CAP = 16 * 1024 * 1024;

export function pdfMayCarryC2pa(bytes: Buffer, s: PdfStructure | undefined): boolean {
  if (RAW_MARKERS.some((m) => bytes.includes(m, 0, 'latin1'))) return true;
  if (!s || s.encrypted) return true;
  if (s.warnings.some((w) => /object stream\(s\) could not be decoded/.test(w))) return true;
  for (const list of s.versions.values())
    for (const o of list) {
      if (!isDict(o.value)) continue;
      if (o.value.entries.has('AFRelationship')) return true;
      if (!o.stream) continue;
      const type = nameOf(o.value, 'Type');
      const subtype = nameOf(o.value, 'Subtype')?.toLowerCase();
      if (type !== 'Metadata' && subtype !== 'xml') continue;
      if (!o.value.entries.has('Filter')) continue; // unfiltered: already searched as raw bytes
      const data = decodeStream(bytes, o, new InflateBudget({ perStreamBytes: XMP_INFLATE_CAP, documentBytes: XMP_INFLATE_CAP }));
      if (!data || data.includes('provenance', 0, 'latin1') || data.includes('c2pa', 0, 'latin1')) return true;
    }
  return false;
}
