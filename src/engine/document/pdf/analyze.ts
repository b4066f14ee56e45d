/**
 * PDF analysis: pdf.js (called directly, pdfjs-reader.ts) reads what the document says — text, page count, the
 * Info dictionary and the XMP packet, decrypting files with an empty user password — and the
 * project's structure reader says how the file was built: revisions, signatures, what each
 * incremental update changed. Each reading that fails becomes a warning, not a failure.
 */
import { LIMITS } from '../../../api/requests.js';
import { VerityError } from '../../../api/errors.js';
import { InflateBudget, type Budget } from '../budget.js';
import { checkFuture, checkOrder, checkSame, checkTooEarly, humanDelta } from '../dates.js';
import { UNKNOWN_PRODUCER, emptyAnalysis, type FormatAnalysis, type Finding } from '../report.js';
import { revisionTimeline, signatureCoverage } from '../revision-timeline.js';
import type { XmpFields } from '../xmp.js';
import { revisionChanges, summariseChanges, type ObjectChange } from './changes.js';
import type { RevisionDiff } from './diff-policy.js';
import { canonical, decodeTextString, isDict, nameOf, refOf, stringOf } from './objects.js';
import { parsePdfDate } from './pdf-date.js';
import { hasSignatureDicts } from './signature-dicts.js';
import type { SignatureCheck } from './signatures.js';
import type { TrustAnchors } from '../signing/trust-store.js';
import { preparePdfReader, TEXT_PAGE_LIMIT, type PdfReader, type PdfReading } from '../extraction-thread.js';
import { exceedsInflateCaps, type MeasuredStream } from './bounded-inflate.js';
import { pdfMayCarryC2pa } from './c2pa-scan.js';
import type { PdfJsDocument } from './pdfjs-reader.js';
import { loadSimpleReader, saveBundledSimpleReaderCache } from './simple-bundle.js';
import type { PdfJsLikeReading, SimpleReadingOutcome } from './simple-reading.js';
import { pageCountFromTree, readPdfStructure, resolveRef, resolveValue, type PdfStructure } from './structure.js';

/**
 * Text is extracted from at most this many pages (defined beside the extraction thread, which reads
 * them ahead).
 */
export { TEXT_PAGE_LIMIT };
/** Embedded images handed to the image analysis, largest first. */
export const IMAGE_LIMIT = 2;

/** Tools whose only trace is that they removed metadata (a sanitizer's producer and nothing else). */
const SANITIZERS = [/\bmat2?\b/i, /metadata anonymi[sz]ation/i, /dangerzone/i, /sanitiz/i, /pdf[-_ ]?redact/i, /scrubbed/i, /exiftool/i];

interface PdfJsReading {
  pages: number;
  info: Record<string, unknown>;
  xmpRaw: string | null;
  text: string;
}

async function readWithPdfJs(reading: PdfReading, budget: Budget, warnings: string[]): Promise<PdfJsReading | undefined> {
  const opening = reading.opened;
  let doc: PdfJsDocument | undefined;
  try {
    const openRun = await budget.run(opening);
    if (openRun.timedOut) {
      // Whatever pdf.js still finishes later is released, not kept (the thread is stopped).
      reading.cancel();
      warnings.push('pdf.js did not finish reading the document within the time budget; text and Info/XMP metadata were not read');
      return undefined;
    }
    doc = openRun.value;
    checkPageLimit(doc.pages);
    const out: PdfJsReading = { pages: doc.pages, info: doc.info, xmpRaw: doc.xmpRaw, text: '' };
    const textRun = await budget.run(doc.text(TEXT_PAGE_LIMIT));
    if (textRun.timedOut) warnings.push('text extraction did not finish within the time budget; AI-text analysis had no text');
    else out.text = textRun.value;
    pushPagesRead(doc.pages, warnings);
    return out;
  } catch (err) {
    // Cancelled or over a limit: stop pdf.js (the thread) rather than let it read on.
    reading.cancel();
    if (err instanceof VerityError) throw err;
    const e = err instanceof Error ? err : new Error(String(err));
    if (e.name === 'PasswordException')
      warnings.push('the PDF is encrypted with a user password: text, page count and Info/XMP metadata could not be read; the file structure and signatures were analysed');
    else warnings.push(`pdf.js could not read the document (${e.name}: ${String(e.message ?? '').slice(0, 120)}); the file structure was analysed instead`);
    return undefined;
  } finally {
    await doc?.destroy().catch(() => undefined);
  }
}

function checkPageLimit(pages: number): void {
  if (pages > LIMITS.pdfPages) throw new VerityError('PAYLOAD_TOO_LARGE', `the PDF has ${pages} pages; the limit is ${LIMITS.pdfPages}`);
}

function pushPagesRead(pages: number, warnings: string[]): void {
  if (pages > TEXT_PAGE_LIMIT) warnings.push(`text was extracted from the first ${TEXT_PAGE_LIMIT} of ${pages} pages`);
}

/** The simple reader's reading, with the page limit and warnings pdf.js's reading gets. */
function checkedReading(reading: PdfJsLikeReading, warnings: string[]): PdfJsReading {
  checkPageLimit(reading.pages);
  pushPagesRead(reading.pages, warnings);
  return reading;
}

/** Info dictionary straight from the file, for when pdf.js cannot open it (unencrypted files only). */
function infoFromStructure(s: PdfStructure): Record<string, string> {
  if (s.encrypted) return {};
  const obj = resolveRef(s, refOf(s.trailer, 'Info'));
  const out: Record<string, string> = {};
  if (!obj || !isDict(obj.value)) return out;
  for (const key of ['Author', 'Creator', 'Producer', 'CreationDate', 'ModDate', 'Title']) {
    const v = decodeTextString(stringOf(obj.value, key));
    if (v) out[key] = v;
  }
  return out;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

function describeSignature(sig: SignatureCheck): string {
  const parts = [`signature ${sig.objNum} 0 obj${sig.subFilter ? ` (${sig.subFilter})` : ''}`];
  if (sig.signingTime) parts.push(`signed ${sig.signingTime}`);
  parts.push(`ByteRange [${sig.byteRange.join(' ')}]`);
  return parts.join(', ');
}

/** The newest version of every stream pdf.js might decode for text and metadata (images excluded). */
function* decodableStreams(bytes: Buffer, s: PdfStructure): Generator<MeasuredStream> {
  for (const list of s.versions.values()) {
    const o = list[list.length - 1]!;
    if (!o.stream || !isDict(o.value)) continue;
    const t = nameOf(o.value, 'Type');
    if (nameOf(o.value, 'Subtype') === 'Image' || t === 'ObjStm' || t === 'XRef') continue;
    const f = o.value.entries.get('Filter');
    const chain = Array.isArray(f) ? f : f === undefined ? [] : [f];
    const filters = chain.map((x) => (x && typeof x === 'object' && !Array.isArray(x) && x.kind === 'name' ? x.name : '?'));
    yield { raw: bytes.subarray(o.stream.start, o.stream.end), filters };
  }
}

/** Whether the catalog points to an XMP metadata stream. */
function catalogNamesXmp(s: PdfStructure): boolean {
  const root = resolveRef(s, refOf(s.trailer, 'Root'))?.value;
  return isDict(root) && !!resolveValue(s, root.entries.get('Metadata'));
}

/** Signature dictionaries whose /ByteRange is not four numbers (checkSignatures passes over them). */
function oddByteRanges(s: PdfStructure): { num: number; range: string }[] {
  const out: { num: number; range: string }[] = [];
  const seen = new Set<string>();
  for (const list of s.versions.values())
    for (const o of list) {
      const d = o.value;
      if (!isDict(d) || !d.entries.has('ByteRange')) continue;
      const t = nameOf(d, 'Type');
      if (t !== 'Sig' && t !== 'DocTimeStamp' && !d.entries.has('Contents')) continue;
      const br = d.entries.get('ByteRange');
      if (Array.isArray(br) && br.length === 4 && br.every((x) => typeof x === 'number')) continue;
      const range = canonical(br);
      if (seen.has(`${o.num}:${range}`)) continue;
      seen.add(`${o.num}:${range}`);
      out.push({ num: o.num, range });
    }
  return out;
}

/** A violation in words; an object no rule explained is described by what it is (changes.ts). */
function describeViolation(v: { num: number; reason: string; revision: number }, changesByRev: Map<number, ObjectChange[]>): string {
  const what = /not explained by any permitted update$/.test(v.reason) ? changesByRev.get(v.revision)?.find((c) => c.num === v.num && c.kind !== 'other')?.what : undefined;
  return what ? `${what} in revision ${v.revision} (not explained by any permitted update)` : `revision ${v.revision}: ${v.reason}`;
}

/** Lets the caller start work on parts of the file (embedded images) while pdf.js is still reading. */
export interface PdfAnalysisHooks {
  /** Called once, as soon as the structure reader has listed the embedded JPEGs (not called when it could not read the file). */
  onImages?(images: { bytes: Buffer; label: string }[]): void;
  /** `document.trust_anchors` for the signers' trust (and the warnings loading them produced). */
  trustAnchors?: { anchors: TrustAnchors; warnings: string[] };
  /** Called once the structure is read, when the file may carry a C2PA manifest (c2pa-scan.ts); not called when it cannot. */
  onC2paCandidate?(): void;
  /**
   * false: pdf.js reads every PDF (`document.pdf_reader = pdfjs`). Otherwise a simple PDF is read
   * here without it, with the same result (simple-reading.ts).
   */
  simpleReader?: boolean;
  /** Where the simple reader's V8 code cache is kept (simple-bundle.ts), as for pdf.js. */
  codeCacheDir?: string;
  /** A pdf.js reader prepared by the caller (its thread already starting); the caller discards it afterwards. */
  pdfReader?: PdfReader;
  /** Called once this thread's own work is done and it is about to wait for pdf.js (its idle time). */
  whilePdfJsReads?(): void;
}

/** Embedded JPEG image XObjects (latest version of each object), largest first, at most IMAGE_LIMIT. */
function embeddedJpegs(bytes: Buffer, s: PdfStructure): { bytes: Buffer; label: string }[] {
  if (s.encrypted) return [];
  const images: { bytes: Buffer; label: string; size: number }[] = [];
  for (const [num, list] of s.versions) {
    const o = list[list.length - 1]!;
    if (!o.stream || !isDict(o.value) || nameOf(o.value, 'Subtype') !== 'Image') continue;
    const filter = o.value.entries.get('Filter');
    const f = Array.isArray(filter) ? (filter.length === 1 ? filter[0] : undefined) : filter;
    if (!f || typeof f !== 'object' || Array.isArray(f) || f.kind !== 'name' || f.name !== 'DCTDecode') continue;
    images.push({ bytes: bytes.subarray(o.stream.start, o.stream.end), label: `image ${num} 0 obj`, size: o.stream.end - o.stream.start });
  }
  return images.sort((x, y) => y.size - x.size).slice(0, IMAGE_LIMIT).map(({ bytes: b, label }) => ({ bytes: b, label }));
}

/** The simple-PDF reader on this thread (its code loaded on first use), which then writes its code cache if it had none. */
async function readHere(bytes: Buffer, s: PdfStructure, codeCacheDir: string | undefined): Promise<SimpleReadingOutcome> {
  const { readLikePdfJs } = await loadSimpleReader(codeCacheDir);
  const outcome = readLikePdfJs(bytes, s, TEXT_PAGE_LIMIT);
  // The reader's functions are compiled by now: a run without a usable code cache writes one.
  saveBundledSimpleReaderCache();
  return outcome;
}

export async function analyzePdf(bytes: Buffer, now: Date, budget: Budget, hooks: PdfAnalysisHooks = {}): Promise<FormatAnalysis> {
  const a = emptyAnalysis('pdf');
  const src = 'pdf_structure';
  // pdf.js reads on the extraction thread (extraction-thread.ts; started by the caller, which
  // compiles pdf.js meanwhile) while the embedded images' analysis runs here, through the hook.
  // The structure reader goes first: it measures what the streams inflate to (within the caps of
  // INFLATE_LIMITS) before pdf.js is given the file; pdf.js's own cap (decode-cap.ts) only bounds
  // what could not be measured.
  let s: PdfStructure | undefined;
  try {
    // The early thread reading this file ahead has read (or is reading) the same structure, and
    // began first: waiting for it costs less than reading it again here (extraction-thread.ts).
    const ahead = await hooks.pdfReader?.structureAhead(bytes);
    s = ahead ? { ...ahead, inflateBudget: InflateBudget.restore(ahead.inflateBudget) } : readPdfStructure(bytes);
    a.warnings.push(...s.warnings);
  } catch (err) {
    a.warnings.push(`the file structure could not be read (${(err as Error).message}); only pdf.js results are reported`);
  }
  if (hooks.onC2paCandidate && pdfMayCarryC2pa(bytes, s)) hooks.onC2paCandidate();
  const measured = s && !s.encrypted ? exceedsInflateCaps(decodableStreams(bytes, s), s.inflateBudget) : undefined;
  const overCap = measured ? measured.exceeded : s?.inflateBudget.exceeded;
  if (measured?.unmeasured) a.warnings.push(`${measured.unmeasured} stream(s) use a filter chain whose decoded size could not be measured before text extraction; pdf.js stops decoding any stream at the decompression caps`);
  const pdfjsWarnings: string[] = [];
  let pdfjsRun: Promise<PdfJsReading | undefined>;
  if (overCap) {
    a.warnings.push(`decompression stopped: ${overCap}; text, Info/XMP metadata and page text were not read (pdf.js was not run), the file structure and signatures were analysed`);
    hooks.pdfReader?.discard();
    pdfjsRun = Promise.resolve(undefined);
  } else {
    // A simple PDF is read as pdf.js would read it, without pdf.js (simple-reading.ts): on the
    // early thread that has read the named file ahead (which tried it first, and answers the job
    // from that reading), or here; anything else goes to pdf.js. With the early thread reading
    // ahead this thread reads no page: taking some of the first pages (from the last one down
    // while the thread went up) cost more than it saved, 0.93–0.98× wall and 0.89–0.95× CPU
    // without it (11 interleaved pairs each, 10- and 100-page PDFs, load 1.8–2.9): its pages were
    // read cold on a second isolate, after loading the reader (~3–5 ms).
    const allowSimple = hooks.simpleReader !== false;
    const reader = hooks.pdfReader ?? preparePdfReader();
    // It is synchronous (bounded by its size caps, not by a timer): not started once the time
    // budget is spent, where pdf.js's reading would report the time-out.
    const simple = s && allowSimple && !reader.simpleAhead && !budget.expired() ? await readHere(bytes, s, hooks.codeCacheDir) : undefined;
    if (simple && 'reading' in simple) {
      reader.discard('read without pdf.js');
      const reading = simple.reading;
      pdfjsRun = Promise.resolve().then(() => checkedReading(reading, pdfjsWarnings));
    } else pdfjsRun = readWithPdfJs(reader.read(bytes, TEXT_PAGE_LIMIT, allowSimple), budget, pdfjsWarnings);
  }
  if (s) {
    a.images = embeddedJpegs(bytes, s);
    hooks.onImages?.(a.images);
  }

  // Signature checks and the difference analysis need only the structure: they run here, while
  // pdf.js reads on the extraction thread; their findings are added below, in the usual order.
  // The verifiers (signatures.ts: pkijs, asn1js) load only for a file that has a signature
  // dictionary, the difference analysis (and fast-xml-parser, for XMP) only for a signed one.
  pdfjsRun.catch(() => undefined); // awaited below; a throw here must not leave it unobserved
  const signing = s && hasSignatureDicts(s) ? await import('./signatures.js') : undefined;
  const sigs = signing && s ? signing.checkSignatures(bytes, s, { anchors: hooks.trustAnchors?.anchors, now }) : [];
  // Each signed revision is the base every later revision is compared with (pyHanko's review).
  const bases = sigs.filter((x) => !x.coversWholeFile && x.revisionIndex !== null).map((x) => x.revisionIndex!);
  const diffPolicy = sigs.length ? await import('./diff-policy.js') : undefined;
  const diffsByBase: Map<number, RevisionDiff[]> = bases.length && s ? diffPolicy!.diffRevisions(bytes, s, bases) : new Map();

  hooks.whilePdfJsReads?.();
  const pdfjs = await pdfjsRun;
  a.warnings.push(...pdfjsWarnings);
  if (!pdfjs && s && !s.xrefChainOk && s.revisions.every((r) => r.objects.length === 0))
    throw new VerityError('UNPROCESSABLE_CONTENT', 'the PDF is damaged beyond reading: no objects, no cross-reference table and pdf.js could not open it');

  // ---- metadata: Info (pdf.js, or the raw dictionary) and XMP
  const info: Record<string, unknown> = pdfjs?.info ?? (s ? infoFromStructure(s) : {});
  // The XMP reader (and its XML parser) loads only for a file that has a packet.
  const xmpReader = pdfjs?.xmpRaw ? await import('../xmp.js') : undefined;
  const xmpRead = pdfjs?.xmpRaw && xmpReader ? xmpReader.readXmp(pdfjs.xmpRaw) : null;
  if (xmpRead && 'problem' in xmpRead) a.warnings.push(`the XMP metadata packet was not read: ${xmpRead.problem}`);
  const xmp: XmpFields | null = xmpRead && 'fields' in xmpRead ? xmpRead.fields : null;
  const infoCreated = parsePdfDate(str(info.CreationDate));
  const infoModified = parsePdfDate(str(info.ModDate));
  const xmpCreated = xmpReader?.parseXmpDate(xmp?.createDate ?? null) ?? null;
  const xmpModified = xmpReader?.parseXmpDate(xmp?.modifyDate ?? null) ?? null;
  const producer = str(info.Producer) ?? xmp?.producer ?? null;
  const infoFields = ['Author', 'Creator', 'Producer', 'CreationDate', 'ModDate', 'Title', 'Subject', 'Keywords'].filter((k) => str(info[k]));

  a.metadata = {
    author: str(info.Author) ?? xmp?.creator ?? null,
    created_at: infoCreated ?? xmpCreated,
    producer: producer ?? UNKNOWN_PRODUCER,
    page_count: pdfjs?.pages ?? (s ? pageCountFromTree(s) : undefined) ?? 0,
  };
  if (!pdfjs && a.metadata.page_count === 0) a.warnings.push('the page count could not be read; page_count is 0');
  a.text = pdfjs?.text ?? '';

  const metaSrc = 'pdf_metadata';
  const encryptedUnread = !!s?.encrypted && !pdfjs;
  // pdf.js did not run (or failed) but the catalog names an XMP stream: unread is not absent.
  const xmpUnread = !pdfjs && !!s && catalogNamesXmp(s);
  if (!encryptedUnread) {
    if (infoFields.length === 0 && !xmp && !xmpUnread) {
      a.findings.push({ source: metaSrc, finding: 'the PDF has neither an Info dictionary nor an XMP packet: no producer, author or dates were recorded or they were removed', authority: 0.6, flag: 'metadata_stripped', severity: 0.35 });
    } else if (!xmp && infoFields.length === 1 && producer && SANITIZERS.some((r) => r.test(producer))) {
      a.findings.push({ source: metaSrc, finding: `the only metadata left is Producer "${producer}", a metadata-removal tool`, authority: 0.7, flag: 'metadata_stripped', severity: 0.35 });
    } else {
      a.findings.push({
        source: metaSrc,
        finding: `Info dictionary has ${infoFields.length} field(s) (${infoFields.join(', ') || 'none'}); XMP packet ${xmp ? 'present' : 'absent'}; producer "${producer ?? UNKNOWN_PRODUCER}"`,
        authority: 0.5,
        severity: 0,
      });
    }
  }

  // ---- dates
  const add = (r: { finding?: Finding; check?: { name: string; agrees: boolean } }): void => {
    if (r.finding) a.findings.push(r.finding);
    if (r.check) a.checks.push(r.check);
  };
  add(checkOrder(metaSrc, infoCreated, infoModified, ['Info CreationDate', 'Info ModDate']));
  add(checkOrder(metaSrc, xmpCreated, xmpModified, ['XMP CreateDate', 'XMP ModifyDate']));
  add(checkSame(metaSrc, { label: 'Info CreationDate', value: infoCreated }, { label: 'XMP CreateDate', value: xmpCreated }));
  add(checkSame(metaSrc, { label: 'Info ModDate', value: infoModified }, { label: 'XMP ModifyDate', value: xmpModified }));
  for (const [label, v] of [['Info CreationDate', infoCreated], ['Info ModDate', infoModified], ['XMP CreateDate', xmpCreated], ['XMP ModifyDate', xmpModified]] as const) {
    const f = checkFuture(metaSrc, label, v, now) ?? checkTooEarly(metaSrc, label, v, '1993-06-15T00:00:00Z', 'PDF');
    if (f) a.findings.push(f);
  }

  if (!s) return a;

  // ---- structure and revisions
  const updates = s.revisions.length - 1;
  a.findings.push({
    source: src,
    finding: `PDF ${s.version ?? '(no header version)'}, ${s.size} bytes; ${s.linearized ? 'linearized; ' : ''}${s.hybridXref ? 'hybrid xref; ' : ''}${s.sections.length} cross-reference section(s), ${s.revisions.length} revision(s) (${updates} incremental update(s))${s.encrypted ? '; encrypted' : ''}`,
    authority: 0.85,
    severity: 0,
  });
  if (s.trailingBytes > 0)
    a.findings.push({ source: src, finding: `${s.trailingBytes} non-blank byte(s) follow the last %%EOF: data was appended outside any revision`, authority: 0.8, severity: 0.15 });
  if (!s.xrefChainOk) a.findings.push({ source: src, finding: 'the cross-reference chain from startxref is missing or broken: the file is damaged or was assembled by hand', authority: 0.7, severity: 0.1 });
  if (xmp && xmp.historyEvents > 0)
    a.findings.push({ source: metaSrc, finding: `XMP history records ${xmp.historyEvents} event(s) by the writing software`, authority: 0.5, severity: 0 });

  const changesByRev = new Map<number, ObjectChange[]>();
  for (const r of s.revisions.slice(1)) changesByRev.set(r.index, revisionChanges(s, r));

  // ---- signatures (checked above)
  const sigSrc = 'pdf_signature';
  if (sigs.length) {
    // Integrity and trust per signature (signatures.ts); a broken one is also in sig.problems below.
    a.signatures = sigs.map((x) => ({ ...signing!.signatureSummary(x), ...signatureCoverage(x) }));
    a.findings.push(...sigs.map(signing!.signatureTrustFinding));
    a.warnings.push(...(hooks.trustAnchors?.warnings ?? []));
    for (const sig of sigs) if (sig.integrity === 'unknown') a.warnings.push(`signature ${sig.objNum} 0 obj could not be verified cryptographically: ${sig.notes[0] ?? 'unknown reason'}`);
  }
  let goodSignature = false;
  let badSignature = false;
  // What each later revision changed, explained object by object (diff-policy.ts, computed above).
  for (const note of new Set([...diffsByBase.values()].flat().flatMap((x) => x.notes))) a.warnings.push(`changes after signing: ${note}`);
  // A /ByteRange that is not four numbers is a signature whose coverage cannot be standard.
  for (const odd of oddByteRanges(s)) {
    badSignature = true;
    a.findings.push({ source: sigSrc, finding: `signature ${odd.num} 0 obj has /ByteRange ${odd.range}, not the four numbers [0 start-of-/Contents end-of-/Contents rest]: non-standard coverage, bytes outside it are unsigned`, authority: 0.9, flag: 'signature_forgery', severity: 0.8 });
  }
  for (const sig of sigs) {
    const d = describeSignature(sig);
    if (sig.problems.length) {
      badSignature = true;
      a.findings.push({ source: sigSrc, finding: `${d}: ${sig.problems.join('; ')}`, authority: sig.digestMatches === false ? 0.95 : 0.85, flag: 'signature_forgery', severity: sig.digestMatches === false ? 0.9 : 0.75 });
      continue;
    }
    const digest = sig.digestMatches ? `; the ${sig.digestAlgorithm} digest of the signed bytes matches the signature` : '; the digest could not be checked here';
    if (sig.coversWholeFile) {
      goodSignature = true;
      a.findings.push({ source: sigSrc, finding: `${d} covers the whole file except its own /Contents${digest}`, authority: 0.9, severity: 0 });
      continue;
    }
    const later = sig.revisionIndex === null ? [] : diffsByBase.get(sig.revisionIndex) ?? [];
    const violations = later.flatMap((x) => x.violations.filter((v) => v.onlyFor === undefined || v.onlyFor === sig.objNum).map((v) => ({ ...v, revision: x.revision })));
    const unanalysed = s.revisions.length - 1 - (sig.revisionIndex ?? 0) - later.length;
    if (!violations.length && unanalysed > 0) {
      // The cap stopped the comparison: what the remaining revisions change is unknown, not allowed.
      a.findings.push({
        source: sigSrc,
        finding: `${d} covers revision ${sig.revisionIndex}; ${unanalysed} later revision(s) were not compared (the difference analysis stops after ${diffPolicy!.MAX_DIFF_REVISIONS} comparisons), so what they change after signing is unknown`,
        authority: 0.6,
        severity: 0.3,
      });
      continue;
    }
    if (violations.length) {
      badSignature = true;
      a.findings.push({
        source: sigSrc,
        finding: `${d} covers revision ${sig.revisionIndex} only; ${sig.bytesAfter} bytes were appended after signing and they change what was signed: ${violations.slice(0, 5).map((v) => describeViolation(v, changesByRev)).join('; ')}${violations.length > 5 ? ` and ${violations.length - 5} more` : ''}`,
        authority: 0.9,
        flag: 'signature_forgery',
        severity: 0.85,
      });
    } else {
      goodSignature = true;
      const touched = later.reduce((n, x) => n + x.touched, 0);
      const levels = [...new Set(later.map((x) => x.level))].filter((l) => l !== 'none');
      a.findings.push({
        source: sigSrc,
        finding: `${d} covers revision ${sig.revisionIndex}${digest}; the ${sig.bytesAfter} bytes appended later hold only ${levels.length ? levels.map(diffPolicy!.describeLevel).join(', ') : 'no change to the document'} (${touched} object(s), each explained by a permitted update${later.some((x) => x.docMdp !== null) ? `; DocMDP /P ${later.find((x) => x.docMdp !== null)!.docMdp}` : ''}), which a signed PDF may receive`,
        authority: 0.85,
        severity: 0,
      });
    }
    if (sig.signingTime && infoCreated && Date.parse(sig.signingTime) + 60_000 < Date.parse(infoCreated))
      a.findings.push({ source: sigSrc, finding: `signing time ${sig.signingTime} is ${humanDelta(Date.parse(infoCreated) - Date.parse(sig.signingTime))} before the document's CreationDate ${infoCreated}`, authority: 0.7, flag: 'inconsistent_timestamps', severity: 0.45 });
    const fut = checkFuture(sigSrc, 'signing time', sig.signingTime, now);
    if (fut) a.findings.push(fut);
  }

  if (updates > 0 || sigs.length)
    a.revisions = revisionTimeline({ revisions: s.revisions, signatures: sigs, changesByRev, diffsByBase, describeViolation: (v) => describeViolation(v, changesByRev) });

  // ---- edits in unsigned files (or before the first signature) are evidence, not forgery
  if (sigs.length === 0 && updates > 0) {
    for (const [i, changes] of changesByRev) {
      const content = changes.filter((c) => c.kind === 'page_content' || c.kind === 'form_value' || c.kind === 'page_added_or_removed' || c.kind === 'resource_replaced');
      a.findings.push({
        source: 'pdf_revisions',
        finding: `incremental update ${i} (bytes ${s.revisions[i]!.start}–${s.revisions[i]!.end}) defines ${changes.length} object(s): ${summariseChanges(changes) || 'none'}${content.length ? `; it edits the document: ${content.slice(0, 3).map((c) => c.what).join('; ')}` : ''}`,
        authority: 0.85,
        severity: content.length ? 0.25 : 0.05,
      });
    }
  }

  // ---- provenance strength for `source_authority`
  const stripped = a.findings.some((f) => f.flag === 'metadata_stripped');
  a.provenance = badSignature ? 0.1 : goodSignature ? signing!.signatureProvenance(sigs) : stripped ? 0.25 : xmp && infoFields.length > 0 ? 0.6 : 0.5;

  return a;
}
