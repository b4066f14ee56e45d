/**
 * Entry point of the extraction thread (see extraction-thread.ts): pdf.js reads one PDF here, on
 * the second core, while the main thread runs the structure reader, C2PA and the image analysis. The
 * thread starts before its job (preparePdfReader) and loads pdf.js while it waits. One job per
 * thread; the main thread terminates it when done, out of time, or when the file is not given to it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ExtractionJob, ExtractionMessage } from './extraction-thread.js';

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
const { codeCacheDir } = (workerData ?? {}) as { codeCacheDir?: string };
const reader = import('./pdf/pdfjs-reader.js').then(async (m) => {
  await m.loadPdfJs(codeCacheDir);
  return m;
});
reader.catch(() => undefined);

async function run(job: ExtractionJob): Promise<void> {
  const bytes = Buffer.from(job.bytes);
  const { openPdfJs } = await reader;
  const doc = await openPdfJs(bytes);
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
