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
 * The speculative open. The host names the file it expects the job to carry (bin/run-bundle.js,
 * `verify document FILE` of a PDF), and the thread opens it with pdf.js as soon as pdf.js is
 * loaded, instead of idling until the calling thread has read the structure and measured the
 * streams (~25–35 ms of the critical path). Only the opening (cross-reference, catalog, first and
 * last page, Info and XMP: what openPdfJs does) runs ahead; the page text waits for the job.
 *
 * The calling thread's verdict still decides everything: a file it refuses (past a decompression
 * cap, over the page limit, …) gets no job and this thread is terminated with whatever it has
 * opened; the job's bytes are compared with the bytes opened here and anything else (another
 * file, a file changed in between) is opened afresh, so the reading is always that of the job's
 * bytes, as before. Until the verdict, what bounds the open is what bounds pdf.js on a file it may
 * read without measuring (an encrypted one): the host names only files of at most ~1 MB, every
 * stream pdf.js decodes stops at the 64 MB cap (pdf/decode-cap.ts), and the thread is terminated
 * when the verdict (or the time budget, or the end of the command) comes.
 */
const early = ((): { bytes: Buffer; doc: Promise<PdfJsDocument> } | undefined => {
  const bytes = speculative && readBounded(speculative);
  if (!bytes) return undefined;
  const doc = reader.then((m) => m.openPdfJs(bytes));
  // Awaited only if the job carries these bytes; its failure is then reported as the job's.
  doc.catch(() => undefined);
  return { bytes, doc };
})();

async function run(job: ExtractionJob): Promise<void> {
  const bytes = Buffer.from(job.bytes);
  const { openPdfJs } = await reader;
  let doc: PdfJsDocument;
  if (early?.bytes.equals(bytes)) doc = await early.doc;
  else {
    void early?.doc.then((d) => d.destroy()).catch(() => undefined);
    doc = await openPdfJs(bytes);
  }
  send({ type: 'opened', pages: doc.pages, info: doc.info, xmpRaw: doc.xmpRaw });
  // The main thread terminates this thread if the page count is over the limit.
  const text = await doc.text(job.textPages);
  // Before the answer: the main thread terminates this thread once it has the text. Only a run
  // without a usable code cache writes one.
  (await import('./pdf/pdfjs-bundle.js')).saveBundledPdfJsCache();
  send({ type: 'text', text });
  await doc.destroy();
}

parentPort!.once('message', (job: ExtractionJob) => {
  run(job).catch(fail);
});
