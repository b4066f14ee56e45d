/**
 * What the sandbox reads for real from the user's file: cheap facts of the container (type,
 * dimensions, camera metadata; page count, producer, author), never an analysis. Only verdicts
 * and scores are simulated, so the sandbox does not mislead about the file itself.
 */
import type { DocumentResult, MediaResult } from '../../api/results.js';
import { inflatePart } from '../document/docx/zip-parts.js';
import { xmlProblem } from '../document/xml-budget.js';
import { emptyExif, readMetadataDetails } from '../media/metadata.js';

/** Format by magic bytes. */
export function sniffFormat(b: Buffer): string {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  if (b.subarray(0, 3).toString('latin1') === 'GIF') return 'gif';
  if (b.subarray(4, 8).toString('latin1') === 'ftyp') {
    const brand = b.subarray(8, 12).toString('latin1');
    return /^(heic|heix|mif1)/.test(brand) ? 'heif' : brand === 'avif' ? 'avif' : brand.startsWith('qt') ? 'mov' : 'mp4';
  }
  return 'unknown';
}

const STILL = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'avif']);

/** Type, pixel size (from the header; 0 when it cannot be read, e.g. a video) and EXIF. */
export async function mediaFacts(bytes: Buffer): Promise<MediaResult['metadata']> {
  const format = sniffFormat(bytes);
  let width = 0;
  let height = 0;
  if (STILL.has(format)) {
    try {
      const { default: sharp } = await import('sharp');
      const m = await sharp(bytes, { failOn: 'none' }).metadata();
      width = m.width ?? 0;
      height = m.height ?? 0;
    } catch {
      // A file sharp cannot read keeps 0 × 0: unknown, not invented.
    }
  }
  const exif = STILL.has(format) || format === 'unknown' ? (await readMetadataDetails(bytes)).exif : emptyExif();
  return { format, width, height, exif };
}

/** docProps parts are a few kB; larger ones (a zip bomb) are not inflated. */
const MAX_PROPERTIES_BYTES = 1024 * 1024;

/**
 * A docProps part's text, '' when absent, inflating past 1 MB, or past the XML budget (xml-budget.ts): the regular expressions below then only meet small,
 * well-formed XML.
 */
async function propertiesPart(zip: import('jszip'), path: string): Promise<string> {
  const f = zip.file(path);
  if (!f) return '';
  // zlib stops at the cap whatever the entry declares; an entry it cannot take is not read.
  const raw = inflatePart(f, MAX_PROPERTIES_BYTES);
  if (!(raw instanceof Buffer)) return '';
  const xml = raw.toString('utf8');
  return xmlProblem(xml) ? '' : xml;
}

const isPdf = (b: Buffer) => b.subarray(0, 1024).includes('%PDF-');
const isZip = (b: Buffer) => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** Page count, producer, author and creation date as the file states them. */
export async function documentFacts(bytes: Buffer): Promise<DocumentResult['metadata']> {
  const unknown: DocumentResult['metadata'] = { author: null, created_at: null, producer: 'unknown', page_count: 0 };
  if (isPdf(bytes)) {
    try {
      const { PDFDocument } = await import('pdf-lib');
      const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
      return {
        author: doc.getAuthor() ?? null,
        created_at: doc.getCreationDate()?.toISOString() ?? null,
        producer: doc.getProducer() ?? 'unknown',
        page_count: doc.getPageCount(),
      };
    } catch {
      return unknown;
    }
  }
  if (isZip(bytes)) {
    try {
      const { default: JSZip } = await import('jszip');
      const zip = await JSZip.loadAsync(bytes);
      const app = await propertiesPart(zip, 'docProps/app.xml');
      const core = await propertiesPart(zip, 'docProps/core.xml');
      const tag = (xml: string, name: string) => new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1]?.trim() || null;
      return {
        author: tag(core, 'dc:creator'),
        created_at: tag(core, 'dcterms:created'),
        producer: tag(app, 'Application') ?? 'unknown',
        page_count: Number(tag(app, 'Pages')) || 0,
      };
    } catch {
      return unknown;
    }
  }
  if (sniffFormat(bytes) !== 'unknown') return { ...unknown, producer: 'image', page_count: 1 };
  return { ...unknown, producer: 'text', page_count: 1 };
}
