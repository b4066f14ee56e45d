/**
 * Entry point of the extraction thread (see extraction-thread.ts): pdf.js or mammoth read one
 * document here, on the second core, while the main thread runs the structure reader, C2PA and
 * the image analysis. One job per thread; the main thread terminates it when done or out of time.
 */
import { parentPort } from 'node:worker_threads';
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

async function run(job: ExtractionJob): Promise<void> {
  const bytes = Buffer.from(job.bytes);
  if (job.kind === 'pdf') {
    const { openPdfJs } = await import('./pdf/pdfjs-reader.js');
    const doc = await openPdfJs(bytes);
    send({ type: 'opened', pages: doc.pages, info: doc.info, xmpRaw: doc.xmpRaw });
    // The main thread terminates this thread if the page count is over the limit.
    send({ type: 'text', text: await doc.text(job.textPages) });
    await doc.destroy();
    return;
  }
  const { default: mammoth } = await import('mammoth');
  const r = await mammoth.extractRawText({ buffer: bytes });
  send({ type: 'text', text: r.value });
}

parentPort!.once('message', (job: ExtractionJob) => {
  run(job).catch(fail);
});
