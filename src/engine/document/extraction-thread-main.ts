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

// pdf.js is compiled as soon as the thread starts, before its job arrives (the calling thread is
// meanwhile reading the file's structure); a failure here is reported with the job.
const { codeCacheDir, speculative } = (workerData ?? {}) as ThreadData;
const reader = import('./pdf/pdfjs-reader.js').then(async (m) => {
  await m.loadPdfJs(codeCacheDir);
  return m;
});
reader.catch(() => undefined);

/** The named file's bytes when it is a regular file of at most `maxBytes` (read no further); otherwise undefined. */
function readBounded(f: SpeculativeFile): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking: should the path have become a named pipe, opening it must not wait for a writer.
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
 * `verify document FILE` of a PDF), and the thread reads it with pdf.js — the opening
 * (cross-reference, catalog, Info, XMP) and the text of the first pages, exactly what a job asks
 * for — as soon as pdf.js is loaded, instead of idling until the calling thread has read the
 * structure and measured the streams.
 *
 * The calling thread's verdict still decides everything. A file it refuses (past a decompression
 * cap) gets no job, and the thread is terminated with whatever it has read; one over the page
 * limit is stopped when its page count arrives, as before. The job's bytes are compared with the
 * bytes read here, and anything else (another file, a file changed in between, another page
 * count) is read afresh, so what is reported is always pdf.js's reading of the job's bytes, and
 * reaches the calling thread only after its verdict. Until that verdict, what bounds the
 * reading is what bounds pdf.js on a file whose streams cannot be measured beforehand (an
 * encrypted one): the host names only files of at most ~1 MB, every stream pdf.js decodes stops at
 * 64 MB and a page's content at 256 MB (pdf/decode-cap.ts), at most `textPages` pages are read, and
 * the thread is terminated when the verdict refuses the file (or the time budget runs out, or
 * the command ends).
 */
const early = ((): { bytes: Buffer; textPages: number; doc: Promise<PdfJsDocument>; text: Promise<string> } | undefined => {
  const bytes = speculative && readBounded(speculative);
  if (!speculative || !bytes) return undefined;
  const doc = reader.then((m) => m.openPdfJs(bytes));
  const text = doc.then((d) => d.text(speculative.textPages));
  // Awaited only if the job carries these bytes; a failure is then reported as the job's.
  doc.catch(() => undefined);
  text.catch(() => undefined);
  return { bytes, textPages: speculative.textPages, doc, text };
})();

async function run(job: ExtractionJob): Promise<void> {
  const bytes = Buffer.from(job.bytes);
  const { openPdfJs } = await reader;
  let doc: PdfJsDocument;
  let ahead: Promise<string> | undefined;
  if (early && early.textPages === job.textPages && early.bytes.equals(bytes)) {
    doc = await early.doc;
    ahead = early.text;
  } else {
    // Not what was read ahead: released once it settles, and the job's bytes read as before.
    void early?.text.catch(() => undefined).then(() => early.doc).then((d) => d.destroy()).catch(() => undefined);
    doc = await openPdfJs(bytes);
  }
  send({ type: 'opened', pages: doc.pages, info: doc.info, xmpRaw: doc.xmpRaw });
  // The main thread terminates this thread if the page count is over the limit.
  const text = await (ahead ?? doc.text(job.textPages));
  // Before the answer: the main thread terminates this thread once it has the text. Only a run
  // without a usable code cache writes one.
  (await import('./pdf/pdfjs-bundle.js')).saveBundledPdfJsCache();
  send({ type: 'text', text });
  await doc.destroy();
}

parentPort!.once('message', (job: ExtractionJob) => {
  run(job).catch(fail);
});
