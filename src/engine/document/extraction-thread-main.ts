/**
 * Entry point of the extraction thread (see extraction-thread.ts): pdf.js reads one PDF here, on
 * the second core, while the main thread runs the structure reader, C2PA and the image analysis. The
 * thread starts before its job (preparePdfReader) and loads pdf.js while it waits. One job per
 * thread; the main thread terminates it when done, out of time, or when the file is not given to it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { ExtractionJob, ExtractionMessage, SpeculativeFile, ThreadData } from './extraction-thread.js';
import type { PdfJsDocument } from './pdf/pdfjs-reader.js';
import { startDecodeBudget, type DecodeBudget } from './pdf/decode-cap.js';
import { INFLATE_LIMITS } from './budget.js';
import { arriveAtTieringGate, useDefaultFlagsForCodeCaches } from './pdf-tiering.js';
import { loadBundledSimpleReader, saveBundledSimpleReaderCache, type BundledSimpleReader } from './pdf/simple-bundle.js';
import { underDefaultV8Flags } from '../code-cache.js';
import type { PdfJsLikeReading } from './pdf/simple-reading.js';
import { STRUCTURE_SLOT } from './extraction-thread.js';
import type { PdfStructure } from './pdf/structure.js';

/**
 * Decoded bytes the reading ahead may produce before the job arrives. The bench's 100-page PDF
 * decodes 0.27 MB for its opening and first ten pages' text, the largest of the shared fixtures
 * 9 KB; embedded fonts (decoded for their glyph maps) can take a few MB more. A file past this
 * is not read ahead: its job reads it afresh, as without reading ahead (same results).
 */
const SPECULATIVE_DECODE_BYTES = 8 * 1024 * 1024;

/**
 * Decoded bytes one reading of a document may produce in all (every decoder's output, and the
 * concatenation of a page's content streams: both are memory pdf.js holds, so a page's content
 * counts about twice). The structure reader measures each stream once, within
 * INFLATE_LIMITS.documentBytes; pdf.js decodes a stream again for every reference to it, so this
 * is what bounds a file that names one large stream many times. Half the measuring's cap: with
 * 256 MB such a file still took 6 s and 558 MB, with this 3.4–4.2 s and ~415 MB (docs/document.md
 * "Limits"); an ordinary ten-page read decodes well under 1 MB.
 */
const DOCUMENT_DECODE_BYTES = INFLATE_LIMITS.documentBytes / 2;

function send(msg: ExtractionMessage): void {
  try {
    parentPort!.postMessage(msg);
  } catch {
    // pdf.js Info values are plain data; should one not be cloneable, send its JSON form.
    parentPort!.postMessage(JSON.parse(JSON.stringify(msg)) as ExtractionMessage);
  }
}

function fail(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  send({ type: 'error', name: e.name, message: String(e.message ?? '') });
}

const { codeCacheDir, speculative, tiering } = (workerData ?? {}) as ThreadData;
useDefaultFlagsForCodeCaches(tiering);

/**
 * The file named ahead, read with the simple-PDF reader before anything else (pdf/simple-reading.ts:
 * pdf.js's reading of a simple PDF, without pdf.js). When it answers, pdf.js is not loaded at all
 * unless the job asks for it: the answer is ready while the CLI thread is still loading, and the
 * thread costs its own start and ~20–40 ms of reading instead of pdf.js's load, opening and text
 * layout. When it declines, pdf.js is loaded and reads ahead as before, that much later.
 */
const aheadBytes = speculative && readBounded(speculative);

/**
 * This thread's arrival at the tiering gate, once: the simple reader's load and pdf.js's (after
 * the simple reader declined) both say it, and the gate counts threads — a second count from here
 * would open it before the CLI's thread has compiled its bundle from its code cache.
 */
let arrivedAtGate = false;
function arriveOnce(): void {
  if (arrivedAtGate) return;
  arrivedAtGate = true;
  arriveAtTieringGate(tiering);
}
const simpleAhead = ((): { bytes: Buffer; textPages: number; reading: PdfJsLikeReading } | undefined => {
  if (!speculative || !aheadBytes || speculative.simpleReader === false) return undefined;
  try {
    const simple = loadBundledSimpleReader(codeCacheDir);
    if (!simple) return undefined;
    // The reader was read from its code cache under V8's default flags, and the built-in modules
    // it needs (node:zlib) are loaded with it: the later optimisation may start now, before the
    // structure and the pages (pdf-tiering.ts). Left to V8's default budget, as until issue 31's
    // tenth round, TurboFan compiled the reader's functions during this short run for more CPU
    // than the optimised code saved: the ten pages of the bench's 10-page PDF read in ~36 ms cold
    // instead of ~27 (docs/document.md).
    arriveOnce();
    const r = simple.readLikePdfJs(aheadBytes, readAndShareStructure(simple, aheadBytes), speculative.textPages);
    return 'reading' in r ? { bytes: aheadBytes, textPages: speculative.textPages, reading: r.reading } : undefined;
  } catch {
    return undefined;
  } finally {
    // Only a run without a usable cache writes one; the reader's functions are compiled by now.
    saveBundledSimpleReaderCache();
  }
})();

/**
 * The structure of the file read ahead, also sent to the calling thread, which reaches the same
 * read later and waits for this instead (PdfReader.structureAhead): STRUCTURE_SLOT tells it one
 * is coming. Sent as soon as it is read, before any page, with a copy of the bytes it was read
 * from (the calling thread compares them with its own); a structure that could not be read is
 * sent as undefined, and the calling thread then reads its own (and meets the same failure).
 */
function readAndShareStructure(reader: BundledSimpleReader, bytes: Buffer): PdfStructure {
  const signals = speculative?.signals && new Int32Array(speculative.signals);
  if (signals) {
    Atomics.store(signals, STRUCTURE_SLOT, 1);
    Atomics.notify(signals, STRUCTURE_SLOT);
  }
  let structure: PdfStructure | undefined;
  try {
    structure = reader.readPdfStructure(bytes);
    return structure;
  } finally {
    if (signals) {
      const copy = new Uint8Array(bytes).buffer;
      try {
        parentPort!.postMessage({ type: 'structure', structure, bytes: copy } satisfies ExtractionMessage, [copy]);
      } catch {
        // Not cloneable (it is plain data and Maps, so not expected): the calling thread, which
        // waits for this message, reads its own.
        parentPort!.postMessage({ type: 'structure', structure: undefined, bytes: new ArrayBuffer(0) } satisfies ExtractionMessage);
      }
    }
  }
}

// pdf.js is compiled as soon as the thread starts (unless the simple reader has answered), before
// its job arrives (the calling thread meanwhile measures the file's streams, with the structure
// sent from here or read there); a failure here is reported with the job.
let reader: Promise<typeof import('./pdf/pdfjs-reader.js')> | undefined;
const loadReader = (): Promise<typeof import('./pdf/pdfjs-reader.js')> => (reader ??= loadPdfJsReader());
if (!simpleAhead) loadReader();

function loadPdfJsReader(): Promise<typeof import('./pdf/pdfjs-reader.js')> {
  const loading = import('./pdf/pdfjs-reader.js').then(async (m) => {
    await m.loadPdfJs(codeCacheDir);
    // pdf.js streams every page's text through a web ReadableStream, whose Node modules
    // (internal/webstreams/readablestream and writablestream) load on first use of the global.
    // Loaded here, still under V8's default flags, they come from Node's own code cache; loaded by
    // the first page's text, after the gate, V8 rejected that cache (its flag hash differs) and
    // compiled them from source: ~2 ms more on the path to the text (pdf-tiering.ts).
    // (Under V8's default flags also when the gate is already open: the simple reader above
    // opened it and then declined the file.)
    underDefaultV8Flags(() => void globalThis.ReadableStream);
    // pdf.js was read from its code cache under V8's default flags: the later optimisation may
    // start now (pdf-tiering.ts), unless the simple reader's load already said so.
    arriveOnce();
    return m;
  });
  loading.catch(() => undefined);
  return loading;
}

/** Set when the job arrives: from then on the reading answers the job, not a guess. */
let jobArrived = false;
/** Called when the job's reading goes past its decode budget (set by run). */
let onDocumentCap: (() => void) | undefined;

/** The host's "go" (or the job itself): only then is page text read ahead. */
let go!: () => void;
const goSignal = new Promise<void>((resolve) => {
  go = resolve;
});

interface EarlyReading {
  bytes: Buffer;
  textPages: number;
  doc: Promise<PdfJsDocument>;
  text: Promise<string>;
  budget: DecodeBudget;
  abandoned: boolean;
  abandon(): void;
}

/**
 * The named file's bytes when it is a regular file of at most `maxBytes` (read no further);
 * otherwise undefined.
 */
function readBounded(f: SpeculativeFile): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: should the path have become a named pipe, opening it must not wait for a
    // writer.
    fd = openSync(f.path, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > f.maxBytes) return undefined;
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const r = readSync(fd, buf, n, st.size - n, n);
      if (r === 0) break;
      n += r;
    }
    return n === st.size ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Reading ahead. The host names the file it expects the job to carry (bin/run-bundle.js,
 * `verify document FILE` of a PDF), and the thread opens it with pdf.js (cross-reference, catalog,
 * Info, XMP) as soon as pdf.js is loaded, and reads the text of the first pages, exactly what a
 * job asks for, once the host says "go" (it does when it creates the local engine: a remote or
 * sandbox run stops the thread instead), instead of idling until the calling thread has read the
 * structure and measured the streams.
 *
 * The calling thread's verdict still decides everything. A file it refuses (past a decompression
 * cap) gets no job, and the thread is terminated with whatever it has read; one over the page
 * limit is stopped when its page count arrives, as before. The job's bytes are compared with the
 * bytes read here, and anything else (another file, a file changed in between, another page
 * count) is read afresh, so what is reported is always pdf.js's reading of the job's bytes, and
 * reaches the calling thread only after its verdict. Until the job arrives, the reading is bounded
 * by a speculative decode budget (SPECULATIVE_DECODE_BYTES, pdf/decode-cap.ts): past it, the
 * reading ahead is abandoned (its document destroyed) and a job that comes reads the file afresh
 * under the document's full budget, as without reading ahead. The host names only files of at
 * most ~1 MB, and at most `textPages` pages are read.
 */
const early = ((): EarlyReading | undefined => {
  const bytes = aheadBytes;
  if (!speculative || !bytes || simpleAhead) return undefined;
  const e: EarlyReading = { bytes, textPages: speculative.textPages, abandoned: false } as EarlyReading;
  const abandon = (): void => {
    if (e.abandoned) return;
    e.abandoned = true;
    send({ type: 'ahead', event: 'abandoned', decodedBytes: e.budget.used });
    void e.doc.then((d) => d.destroy()).catch(() => undefined);
  };
  // Past the speculative budget before the job came: the early document is dropped (at once:
  // pdf.js then fails every further decode of it) and the job reads afresh.
  e.budget = startDecodeBudget(SPECULATIVE_DECODE_BYTES, () => {
    if (!jobArrived) queueMicrotask(abandon);
    else onDocumentCap?.();
  });
  e.abandon = abandon;
  e.doc = loadReader().then((m) => m.openPdfJs(bytes));
  void e.doc.then(() => {
    if (!e.abandoned && !jobArrived) send({ type: 'ahead', event: 'opened', decodedBytes: e.budget.used });
  }, () => undefined);
  e.text = Promise.all([e.doc, goSignal]).then(([d]) => (e.abandoned ? '' : d.text(speculative.textPages)));
  // Awaited only if the job carries these bytes; a failure is then reported as the job's.
  e.doc.catch(() => undefined);
  e.text.catch(() => undefined);
  return e;
})();

function capError(b: DecodeBudget): Error {
  const mb = Math.round(b.limit / (1024 * 1024));
  const err = new Error(`the document's streams decode past ${mb} MB in all (each reference to a stream is decoded again)`);
  err.name = 'DecompressionCapError';
  return err;
}

/** A reading that went past the document's decode budget fails as a whole (not as partial text). */
function checkBudget(b: DecodeBudget): void {
  if (b.exceeded) throw capError(b);
}

async function run(job: ExtractionJob): Promise<void> {
  jobArrived = true;
  const bytes = Buffer.from(job.bytes);
  // The simple reader's answer, when the job is for the bytes it read and allows it.
  if (simpleAhead && job.simpleReader !== false && simpleAhead.textPages === job.textPages && simpleAhead.bytes.equals(bytes)) {
    const { pages, info, xmpRaw, text } = simpleAhead.reading;
    send({ type: 'opened', pages, info, xmpRaw });
    send({ type: 'text', text, readAhead: true, decodedBytes: 0, simple: true });
    return;
  }
  const { openPdfJs } = await loadReader();
  let doc: PdfJsDocument;
  let ahead: Promise<string> | undefined;
  let budget: DecodeBudget;
  const readAhead = !!early && !early.abandoned && !early.budget.exceeded && early.textPages === job.textPages && early.bytes.equals(bytes);
  if (readAhead) {
    // The verdict has come: the reading ahead continues under the document's full budget.
    budget = early.budget;
    budget.limit = DOCUMENT_DECODE_BYTES;
    doc = await early.doc;
    ahead = early.text;
  } else {
    // Not what was read ahead (or abandoned): dropped at once, and the job's bytes read as before.
    if (early) early.abandon();
    budget = startDecodeBudget(DOCUMENT_DECODE_BYTES, () => onDocumentCap?.());
    doc = await openPdfJs(bytes);
  }
  checkBudget(budget);
  send({ type: 'opened', pages: doc.pages, info: doc.info, xmpRaw: doc.xmpRaw });
  // Past the budget, the reading fails at once (pdf.js would go on to the next pages, each
  // failing to decode): the main thread then reports it and stops this thread.
  const capped = new Promise<never>((_, reject) => {
    onDocumentCap = () => queueMicrotask(() => reject(capError(budget)));
  });
  capped.catch(() => undefined);
  if (budget.exceeded) onDocumentCap!();
  // The main thread terminates this thread if the page count is over the limit.
  const text = await Promise.race([ahead ?? doc.text(job.textPages), capped]);
  checkBudget(budget);
  // Before the answer: the main thread terminates this thread once it has the text. Only a run
  // without a usable code cache writes one.
  (await import('./pdf/pdfjs-bundle.js')).saveBundledPdfJsCache();
  send({ type: 'text', text, readAhead, decodedBytes: budget.used });
  await doc.destroy();
}

parentPort!.on('message', (m: ExtractionJob | { type: 'go' }) => {
  go();
  if (!('type' in m)) run(m).catch(fail);
});
