/**
 * Whether a document file was cut short, judged from its own bytes (not from what a parser made of
 * it): a PDF must end with `%%EOF` (ISO 32000-1 §7.5.5, within the last 1,024 bytes, as readers
 * accept), a ZIP package (DOCX) with its end-of-central-directory record (APPNOTE 4.3.16, in the
 * last 22 + 65,535 bytes). A cut file's tail — trailer, cross-reference table, Info dictionary,
 * signatures appended as incremental updates, the ZIP directory — is exactly what is missing.
 */
import type { DocumentKind } from './input.js';

export interface Truncation {
  /** One sentence: what shows that the file was cut. */
  evidence: string;
  /** What could not be checked because it lies past the cut. */
  unchecked: string[];
}

const EOCD = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

export function detectTruncation(kind: DocumentKind, bytes: Buffer): Truncation | null {
  if (kind === 'pdf') {
    const tail = bytes.subarray(Math.max(0, bytes.length - 1024)).toString('latin1');
    if (tail.includes('%%EOF')) return null;
    return {
      evidence: `the PDF is truncated: its ${bytes.length} bytes end without the %%EOF marker a complete PDF ends with`,
      unchecked: ['the trailer and cross-reference table', 'the Info dictionary and XMP metadata if they lie past the cut', 'signatures and incremental updates at the end of the file', 'pages and text past the cut'],
    };
  }
  if (kind === 'docx') {
    const tail = bytes.subarray(Math.max(0, bytes.length - 22 - 65_535));
    if (tail.includes(EOCD)) return null;
    return {
      evidence: `the DOCX (ZIP) package is truncated: its ${bytes.length} bytes end without the ZIP end-of-central-directory record`,
      unchecked: ['the package directory', 'document text, properties and signatures past the cut'],
    };
  }
  return null;
}
