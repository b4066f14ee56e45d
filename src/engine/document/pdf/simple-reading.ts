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
import { sharedDescriptorConflict, type DescriptorKey } from './text/fonts.js';
import { Ineligible } from './text/ineligible.js';
import { checkStructure, joinPages, readSimplePdfShared, type PageShare } from './text/simple-reader.js';

export interface PdfJsLikeReading {
  pages: number;
  info: Record<string, unknown>;
  xmpRaw: string | null;
  text: string;
}

export type SimpleReadingOutcome = { reading: PdfJsLikeReading } | { notLikePdfJs: string };

export function readLikePdfJs(bytes: Buffer, s: PdfStructure, textPages: number): SimpleReadingOutcome {
  const r = readShared(bytes, s, textPages);
  if ('notLikePdfJs' in r) return r;
  const { pageTexts, fonts: _fonts, ...rest } = r.reading;
  return { reading: { ...rest, text: joinPages(pageTexts as string[]) } };
}

/**
 * One of two readers of a document's first pages (the early thread and the CLI thread: the
 * thread goes up from the first page, the CLI down from the last, each taking the pages `share`
 * gives it), so the pages are read on both cores. The two readings are joined by joinReadings.
 */
export interface SharedPdfJsLikeReading {
  pages: number;
  info: Record<string, unknown>;
  xmpRaw: string | null;
  /** Each page's text, undefined where the other reader took it. */
  pageTexts: (string | undefined)[];
  /** The fonts this reader loaded that pdf.js could alias to each other across the two (fonts.ts sharedDescriptorConflict). */
  fonts: DescriptorKey[];
}

export function readLikePdfJsShared(bytes: Buffer, s: PdfStructure, textPages: number, share: PageShare): { reading: SharedPdfJsLikeReading } | { notLikePdfJs: string } {
  return readShared(bytes, s, textPages, share);
}

/**
 * The whole reading from two shared ones: undefined when a page was read by neither, or when the
 * fonts the two loaded could alias in pdf.js, which loads them all in one document (then pdf.js
 * reads the file).
 */
export function joinReadings(mine: SharedPdfJsLikeReading, other: { pageTexts: readonly (string | null | undefined)[]; fonts: readonly DescriptorKey[] }): PdfJsLikeReading | undefined {
  const texts: string[] = [];
  for (let i = 0; i < mine.pageTexts.length; i++) {
    const t = mine.pageTexts[i] ?? other.pageTexts[i];
    if (typeof t !== 'string') return undefined;
    texts.push(t);
  }
  if (other.pageTexts.length > mine.pageTexts.length) return undefined;
  if (sharedDescriptorConflict([...mine.fonts, ...other.fonts])) return undefined;
  return { pages: mine.pages, info: mine.info, xmpRaw: mine.xmpRaw, text: joinPages(texts) };
}

function readShared(bytes: Buffer, s: PdfStructure, textPages: number, share?: PageShare): { reading: SharedPdfJsLikeReading } | { notLikePdfJs: string } {
  const doubt = structureDoubt(s);
  if (doubt) return { notLikePdfJs: doubt };
  try {
    // Info and XMP through the xref, as the text reader reads its objects (and as pdf.js does).
    const objs = new DocObjects(bytes, s);
    const xmpRaw = pdfJsXmp(objs, s);
    if (xmpRaw !== null && typeof xmpRaw === 'object') return xmpRaw;
    const info = pdfJsInfo(objs, s);
    const r = readSimplePdfShared(bytes, s, textPages, share ?? { claim: () => true, descending: false });
    if (!r.ok) return { notLikePdfJs: r.reason };
    return { reading: { pages: r.reading.pages, info, xmpRaw, pageTexts: r.reading.pageTexts, fonts: r.reading.fonts } };
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
