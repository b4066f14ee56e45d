/**
 * pdf.js's whole reading of a simple PDF — page count, Info, XMP and the first pages' text —
 * without pdf.js: the text from the simple-PDF reader (text/simple-reader.ts), the metadata from
 * pdfjs-metadata.ts, both from the structure reader's objects on the calling thread. It answers
 * only for a file whose structure leaves no doubt about which object pdf.js would read (no damage
 * the structure reader repaired, no freed object still in the file, none defined twice in one revision, no
 * encryption), and only when every part is what pdf.js would give; otherwise it says why, and
 * pdf.js reads the file as before. A 10-page text PDF then needs no second thread, no pdf.js load
 * and no cold pdf.js text layout (issue 31; docs/document.md "The simple-PDF reader").
 */
import { pdfJsInfo, pdfJsXmp } from './pdfjs-metadata.js';
import type { PdfStructure } from './structure.js';
import { DocObjects } from './text/doc-objects.js';
import { Ineligible } from './text/ineligible.js';
import { checkStructure, readSimplePdf } from './text/simple-reader.js';

export interface PdfJsLikeReading {
  pages: number;
  info: Record<string, unknown>;
  xmpRaw: string | null;
  text: string;
}

export type SimpleReadingOutcome = { reading: PdfJsLikeReading } | { notLikePdfJs: string };

export function readLikePdfJs(bytes: Buffer, s: PdfStructure, textPages: number): SimpleReadingOutcome {
  const doubt = structureDoubt(s);
  if (doubt) return { notLikePdfJs: doubt };
  try {
    // Info and XMP through the xref, as the text reader reads its objects (and as pdf.js does).
    const objs = new DocObjects(bytes, s);
    const xmpRaw = pdfJsXmp(objs, s);
    if (xmpRaw !== null && typeof xmpRaw === 'object') return xmpRaw;
    const info = pdfJsInfo(objs, s);
    const r = readSimplePdf(bytes, s, textPages);
    if (!r.ok) return { notLikePdfJs: r.reason };
    return { reading: { pages: r.reading.pages, info, xmpRaw, text: r.reading.text } };
  } catch (err) {
    if (err instanceof Ineligible) return { notLikePdfJs: err.reason };
    // A defect here must never cost the reading: pdf.js reads the file instead.
    return { notLikePdfJs: `simple reader failed: ${(err as Error).message}` };
  }
}

/** Why the structure reader's objects might not be the ones pdf.js reads through the xref; undefined when they are. */
function structureDoubt(s: PdfStructure): string | undefined {
  try {
    checkStructure(s);
  } catch (err) {
    if (err instanceof Ineligible) return err.reason;
    throw err;
  }
  for (const r of s.revisions) {
    // A number the xref marks free reads as null in pdf.js, whatever body the file still holds.
    if (r.freed.some((n) => s.versions.has(n))) return 'freed object still in the file';
    const seen = new Set<number>();
    for (const o of r.objects) {
      if (seen.has(o.num)) return 'object defined twice in one revision';
      seen.add(o.num);
    }
  }
  return undefined;
}
