/**
 * DOCX analysis (ECMA-376 / ISO/IEC 29500): package properties (docProps/core.xml, app.xml),
 * editing sessions (`w:rsids` in word/settings.xml: Word adds one revision-save id per editing
 * session), tracked changes and comments, and OPC XML signatures (xml-signature.ts: signature value, every
 * reference and signed part, and the signer's trust).
 * Text for the AI-text detector comes from the main document part (text.ts: the text mammoth's
 * extractRawText gives, without mammoth).
 */
import { VerityError } from '../../../api/errors.js';
import type { Budget } from '../budget.js';
import { checkFuture, checkOrder, checkTooEarly, humanDelta, isoOrNull } from '../dates.js';
import { UNKNOWN_PRODUCER, emptyAnalysis, type FormatAnalysis } from '../report.js';
import { assertReadableXml, unreadablePart } from '../xml-budget.js';
import type { TrustAnchors } from '../signing/trust-store.js';
import { DocxStructureError, documentXmlText, mainDocumentPath } from './text.js';
import { signaturePartPaths } from './signature-parts.js';
import { corruptPartError, inflatePart } from './zip-parts.js';

/** Parts larger than this (uncompressed) are not read: a zip bomb must not exhaust memory. */
const MAX_PART_BYTES = 64 * 1024 * 1024;
const IMAGE_LIMIT = 4;
/** Word writes `w:date` on tracked changes in local time marked as UTC; allow the widest zone offset. */
const TRACKED_DATE_TOLERANCE_MS = 14 * 3600_000 + 60_000;

const unescape = (s: string): string =>
  s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

function tag(xml: string | null, name: string): string | null {
  if (!xml) return null;
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml);
  const v = m ? unescape(m[1]!.replace(/<[^>]+>/g, '')).trim() : '';
  return v || null;
}

function attrs(xml: string, element: string, attr: string): string[] {
  const out: string[] = [];
  const re = new RegExp(`<${element}\\b[^>]*?\\s${attr}="([^"]*)"`, 'g');
  let m: RegExpExecArray | null;
  while ((m = re.exec(xml))) out.push(unescape(m[1]!));
  return out;
}

const count = (xml: string | null, re: RegExp): number => (xml ? (xml.match(re) ?? []).length : 0);

type Zip = import('jszip');

function uncompressedSize(zip: Zip, path: string): number {
  const f = zip.file(path) as unknown as { _data?: { uncompressedSize?: number } } | null;
  return f?._data?.uncompressedSize ?? 0;
}

const tooLarge = (path: string): VerityError => new VerityError('PAYLOAD_TOO_LARGE', `the DOCX part ${path} expands to more than ${MAX_PART_BYTES / 1048576} MB`);
const partLabel = (path: string): string => `the DOCX part ${path}`;

/** jszip's own reading of a part, its failures (a corrupt stream, a size other than declared) answered 422 naming the part. */
async function unzipPart<T extends 'string' | 'nodebuffer'>(f: import('jszip').JSZipObject, path: string, type: T): Promise<T extends 'string' ? string : Buffer> {
  try {
    return (await f.async(type)) as T extends 'string' ? string : Buffer;
  } catch (err) {
    throw corruptPartError(path, err);
  }
}

/**
 * An XML part's text, or null when absent. Every part read passes the XML budget first
 * (xml-budget.ts: well-formed, no DOCTYPE, depth and element limits), or the file is refused 422.
 */
async function readPart(zip: Zip, path: string): Promise<string | null> {
  const f = zip.file(path);
  if (!f) return null;
  if (uncompressedSize(zip, path) > MAX_PART_BYTES) throw tooLarge(path);
  const raw = inflatePart(f, MAX_PART_BYTES);
  if (raw === 'too-large') throw tooLarge(path);
  // jszip's 'string' is the UTF-8 decoding of the same bytes (a byte-order mark kept).
  const xml = raw ? raw.toString('utf8') : await unzipPart(f, path, 'string');
  assertReadableXml(xml, partLabel(path));
  return xml;
}

/** An embedded image's bytes (the caller has checked its size). */
async function readImage(zip: Zip, path: string): Promise<Buffer> {
  const f = zip.file(path)!;
  const raw = inflatePart(f, MAX_PART_BYTES);
  return raw instanceof Buffer ? Buffer.from(raw) : unzipPart(f, path, 'nodebuffer');
}

/** Lets the caller start work on parts of the package (embedded images) while the text is extracted. */
export interface DocxAnalysisHooks {
  /** Called once, as soon as the package is open and its largest images are read. */
  onImages?(images: { bytes: Buffer; label: string }[]): void;
  /** `document.trust_anchors` for the signers' trust (and the warnings loading them produced). */
  trustAnchors?: { anchors: TrustAnchors; warnings: string[] };
}

export async function analyzeDocx(bytes: Buffer, now: Date, budget: Budget, hooks: DocxAnalysisHooks = {}): Promise<FormatAnalysis> {
  const a = emptyAnalysis('docx');
  const { default: JSZip } = await import('jszip');
  let zip: Zip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: false });
  } catch (err) {
    throw new VerityError('UNPROCESSABLE_CONTENT', `the file looks like a ZIP package but cannot be opened: ${(err as Error).message}`);
  }
  const hasDocument = !!zip.file('word/document.xml') || Object.keys(zip.files).some((p) => /^word\/document\d*\.xml$/.test(p));
  if (!hasDocument) {
    const kind = zip.file('xl/workbook.xml') ? 'an XLSX workbook' : zip.file('ppt/presentation.xml') ? 'a PPTX presentation' : zip.file('mimetype') ? 'an OpenDocument or EPUB package' : 'a ZIP archive';
    throw new VerityError('UNSUPPORTED_MEDIA_TYPE', `the ZIP package is ${kind}, not a DOCX (no word/document.xml); supported: PDF, DOCX, images, raw text`);
  }
  const docPath = zip.file('word/document.xml') ? 'word/document.xml' : Object.keys(zip.files).find((p) => /^word\/document\d*\.xml$/.test(p))!;
  const partPaths = ['docProps/core.xml', 'docProps/app.xml', 'word/settings.xml', docPath, 'word/comments.xml'];
  // Size limits first: a zip bomb is refused before any part is inflated.
  for (const p of partPaths)
    if (zip.file(p) && uncompressedSize(zip, p) > MAX_PART_BYTES) throw new VerityError('PAYLOAD_TOO_LARGE', `the DOCX part ${p} expands to more than ${MAX_PART_BYTES / 1048576} MB`);

  // The text (text.ts) comes from the main document part alone, named by the package
  // relationships. A relationships part that cannot be read is refused (readPart); otherwise a
  // package without the relationship falls back to word/document.xml, as mammoth does.
  const mainPath = await mainDocumentPath((p) => readPart(zip, p), (p) => zip.file(p) !== null).catch((err: unknown) => {
    if (err instanceof VerityError) throw err;
    return docPath;
  });
  const media = Object.keys(zip.files).filter((p) => /^word\/media\/.+\.(jpe?g|png)$/i.test(p));
  const sized = media.map((p) => ({ p, n: uncompressedSize(zip, p) })).filter((x) => x.n <= 20 * 1024 * 1024).sort((x, y) => y.n - x.n).slice(0, IMAGE_LIMIT);
  for (const { p } of sized) a.images.push({ bytes: await readImage(zip, p), label: p });
  hooks.onImages?.(a.images);

  const [core, app, settings, doc, comments] = await Promise.all([
    readPart(zip, 'docProps/core.xml'),
    readPart(zip, 'docProps/app.xml'),
    readPart(zip, 'word/settings.xml'),
    readPart(zip, docPath),
    readPart(zip, 'word/comments.xml'),
  ]);
  // The main document is inflated once: the text reads the same string as the checks below.
  const mainXml = mainPath === docPath ? doc : await readPart(zip, mainPath);
  const src = 'docx_properties';

  // ---- properties
  const creator = tag(core, 'dc:creator');
  const lastModifiedBy = tag(core, 'cp:lastModifiedBy');
  const created = isoOrNull(tag(core, 'dcterms:created'));
  const modified = isoOrNull(tag(core, 'dcterms:modified'));
  const revision = Number(tag(core, 'cp:revision') ?? NaN);
  const application = tag(app, 'Application');
  const appVersion = tag(app, 'AppVersion');
  const totalTime = Number(tag(app, 'TotalTime') ?? NaN);
  const pages = Number(tag(app, 'Pages') ?? NaN);
  const renderedBreaks = count(doc, /<w:lastRenderedPageBreak\b/g);
  const hardBreaks = count(doc, /<w:br\b[^>]*w:type="page"/g);

  a.metadata = {
    author: creator,
    created_at: created,
    producer: application ? `${application}${appVersion ? ` ${appVersion}` : ''}` : UNKNOWN_PRODUCER,
    page_count: Number.isInteger(pages) && pages > 0 ? pages : Math.max(renderedBreaks, hardBreaks) + 1,
  };
  if (!(Number.isInteger(pages) && pages > 0))
    a.warnings.push(`docProps/app.xml gives no page count; page_count ${a.metadata.page_count} is estimated from page breaks in the text`);

  if (!core && !app) {
    a.findings.push({ source: src, finding: 'the package has no docProps/core.xml and no docProps/app.xml: author, dates and application were removed (Word always writes them)', authority: 0.7, flag: 'metadata_stripped', severity: 0.35 });
  } else if (!creator && !lastModifiedBy && !created && !modified) {
    a.findings.push({ source: src, finding: `docProps/core.xml is ${core ? 'present but empty' : 'missing'}: no author, editor or dates`, authority: 0.65, flag: 'metadata_stripped', severity: 0.3 });
  } else {
    a.findings.push({
      source: src,
      finding: `creator ${JSON.stringify(creator)}, last modified by ${JSON.stringify(lastModifiedBy)}, created ${created ?? 'unknown'}, modified ${modified ?? 'unknown'}, revision ${Number.isFinite(revision) ? revision : 'unknown'}, application ${JSON.stringify(application)}, editing time ${Number.isFinite(totalTime) ? `${totalTime} min` : 'unknown'}`,
      authority: 0.5,
      severity: 0,
    });
  }

  const order = checkOrder(src, created, modified, ['dcterms:created', 'dcterms:modified']);
  if (order.finding) a.findings.push(order.finding);
  if (order.check) a.checks.push(order.check);
  for (const [label, v] of [['dcterms:created', created], ['dcterms:modified', modified]] as const) {
    const f = checkFuture(src, label, v, now) ?? checkTooEarly(src, label, v, '2006-01-01T00:00:00Z', 'Office Open XML');
    if (f) a.findings.push(f);
  }
  if (created && modified && Number.isFinite(totalTime) && totalTime > 0) {
    const spanMin = (Date.parse(modified) - Date.parse(created)) / 60_000;
    const agrees = totalTime <= spanMin + 60;
    a.checks.push({ name: 'editing time fits between created and modified', agrees });
    if (!agrees && spanMin >= 0)
      a.findings.push({ source: src, finding: `app.xml records ${totalTime} min of editing but modified is only ${humanDelta(spanMin * 60_000)} after created: the dates were reset or the file was copied from another document`, authority: 0.55, severity: 0.15 });
  }

  // ---- editing sessions vs revision count
  const rsids = count(settings, /<w:rsid\b/g);
  if (rsids > 0) {
    const revSrc = 'docx_revisions';
    if (Number.isFinite(revision) && revision > 0) {
      // Word keeps the session ids of text pasted from other documents, so more sessions than
      // saves is common and only a weak sign that the properties were reset; it stays evidence.
      const fewerSaves = rsids > 3 * (revision + 1) + 5;
      a.findings.push({
        source: revSrc,
        finding: `word/settings.xml lists ${rsids} editing-session id(s) (w:rsid); core.xml says revision ${revision}${fewerSaves ? ': far more sessions than saves, so text was pasted from other documents or the properties were reset by another tool' : ''}`,
        authority: 0.5,
        severity: fewerSaves ? 0.05 : 0,
      });
    } else a.findings.push({ source: revSrc, finding: `word/settings.xml lists ${rsids} editing-session id(s); core.xml gives no revision number`, authority: 0.5, severity: 0 });
  }

  // ---- tracked changes and comments
  const ins = count(doc, /<w:ins\b/g);
  const del = count(doc, /<w:del\b/g);
  if (doc && ins + del > 0) {
    const authors = [...new Set([...attrs(doc, 'w:ins', 'w:author'), ...attrs(doc, 'w:del', 'w:author')])];
    const dates = [...attrs(doc, 'w:ins', 'w:date'), ...attrs(doc, 'w:del', 'w:date')].map(isoOrNull).filter((d): d is string => !!d).sort();
    a.findings.push({
      source: 'docx_tracked_changes',
      finding: `${ins} tracked insertion(s) and ${del} deletion(s) by ${authors.length} author(s) (${authors.slice(0, 5).join(', ')})${dates.length ? `, dated ${dates[0]} to ${dates[dates.length - 1]}` : ''}`,
      authority: 0.7,
      severity: 0.05,
    });
    const latest = dates[dates.length - 1];
    if (latest && modified) {
      const agrees = Date.parse(latest) <= Date.parse(modified) + TRACKED_DATE_TOLERANCE_MS;
      a.checks.push({ name: 'tracked changes not after modified', agrees });
      if (!agrees)
        a.findings.push({ source: 'docx_tracked_changes', finding: `a tracked change is dated ${latest}, ${humanDelta(Date.parse(latest) - Date.parse(modified))} after dcterms:modified ${modified}`, authority: 0.65, flag: 'inconsistent_timestamps', severity: 0.4 });
    }
  }
  const nComments = count(comments, /<w:comment\b/g);
  if (comments && nComments > 0) {
    const authors = [...new Set(attrs(comments, 'w:comment', 'w:author'))];
    a.findings.push({ source: 'docx_comments', finding: `${nComments} comment(s) by ${authors.slice(0, 5).join(', ') || 'unnamed authors'}`, authority: 0.5, severity: 0 });
  }

  // ---- XML signatures (xml-signature.ts): broken → signature_forgery; an untrusted signer is reported, not flagged
  // The verifier (xml-crypto, xmldom, pkijs) loads only for a package that has signature parts.
  const sigs = signaturePartPaths(Object.keys(zip.files)).length
    ? await (await import('./xml-signature.js')).verifyPackageSignatures(zip, { anchors: hooks.trustAnchors?.anchors, now })
    : [];
  if (sigs.length > 0) {
    a.warnings.push(...(hooks.trustAnchors?.warnings ?? []));
    a.signatures = sigs.map((x) => ({
      field: x.part,
      kind: 'signature' as const,
      signer: x.signer,
      signed_at: x.signedAt,
      integrity: x.integrity,
      trust: x.trust,
      algorithm: x.algorithm,
      digest_algorithm: x.digestAlgorithm,
      timestamp: null,
      covers_whole_document: x.integrity !== 'broken' && x.unsignedParts.length === 0,
      problems: x.problems.slice(0, 5),
      notes: x.notes.slice(0, 5),
    }));
    for (const x of sigs) {
      const who = x.signer ? `signer "${x.signer.slice(0, 120)}"` : 'signer unknown';
      if (x.integrity === 'broken')
        a.findings.push({ source: 'docx_signature', finding: `XML signature ${x.part} (${who}) does not verify: ${x.problems.slice(0, 3).join('; ')}`, authority: 0.95, flag: 'signature_forgery', severity: 0.9 });
      else {
        const what = x.integrity === 'valid' ? `verifies: SignatureValue and ${x.partsChecked} signed part digest(s) match` : `could not be verified (${x.notes[0] ?? 'unknown reason'})`;
        const unsigned = x.unsignedParts.length ? `; ${x.unsignedParts.length} part(s) are outside the signature (${x.unsignedParts.slice(0, 3).join(', ')})` : '';
        a.findings.push({ source: 'docx_signature', finding: `XML signature ${x.part} (${who}) ${what}${unsigned}; trust ${x.trust}: ${x.trustDetail ?? 'not evaluated'}`, authority: 0.9, severity: x.trust === 'revoked' ? 0.3 : x.trust === 'expired' ? 0.1 : 0 });
        if (x.integrity === 'unknown') a.warnings.push(`XML signature ${x.part} could not be verified cryptographically: ${x.notes[0] ?? 'unknown reason'}`);
      }
    }
    const valid = sigs.filter((x) => x.integrity === 'valid');
    a.provenance = sigs.some((x) => x.integrity === 'broken') ? 0.1 : valid.some((x) => x.trust === 'trusted') ? 0.95 : valid.length ? 0.8 : 0.6;
  } else a.provenance = a.findings.some((f) => f.flag === 'metadata_stripped') ? 0.25 : core && app ? 0.55 : 0.45;

  // ---- text
  if (mainXml === null) throw unreadablePart('the DOCX package', `its main document part ${mainPath} is missing`);
  // The parse is checked against the time budget between 1 MB chunks (a 64 MB part takes seconds).
  let text: string | undefined;
  try {
    text = documentXmlText(mainXml, () => budget.expired());
  } catch (err) {
    // A structure the reader cannot take (no body, an unbound namespace prefix) is the file's fault.
    if (err instanceof DocxStructureError) throw unreadablePart(partLabel(mainPath), err.message);
    throw err;
  }
  if (text === undefined) {
    if (budget.signal?.aborted) throw budget.signal.reason ?? new Error('aborted');
    a.warnings.push('text extraction did not finish within the time budget; AI-text analysis had no text');
  } else a.text = text;
  return a;
}
