/**
 * PDF text extraction on a second thread. pdf.js is pure JavaScript and the largest single cost
 * of a PDF analysis (~250–450 ms cold: module compile, parsing, text layout); on the main thread
 * it would serialise with the structure reader, the C2PA reader and the image forensics. (DOCX
 * text is read on the main thread, docx/text.ts: one parse of one part costs less than a thread.) A `worker_threads` Worker runs them on the other core instead, and gives
 * the time budget a real stop: a thread stuck inside pdf.js is terminated, not abandoned.
 *
 * pdf.js itself stays worker-free inside that thread (its worker code is registered as
 * `globalThis.pdfjsWorker`, pdfjs-reader.ts). The thread runs the compiled entry
 * `extraction-thread-main.js`; where it does not exist (the TypeScript sources run by the test
 * runner) the same code runs on the calling thread, with identical results.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PdfJsDocument } from './pdf/pdfjs-reader.js';

export type ExtractionJob = { kind: 'pdf'; bytes: ArrayBuffer; textPages: number };
export type ExtractionMessage =
  | { type: 'opened'; pages: number; info: Record<string, unknown>; xmpRaw: string | null }
  | { type: 'text'; text: string }
  | { type: 'error'; name: string; message: string };

const ENTRY = new URL('./extraction-thread-main.js', import.meta.url);
let available: boolean | undefined;

/** True when the compiled thread entry exists (built code); false under the TypeScript sources. */
export function extractionThreadAvailable(): boolean {
  available ??= ENTRY.protocol === 'file:' && existsSync(fileURLToPath(ENTRY));
  return available;
}

/** An error carrying the name pdf.js gave it (PasswordException, InvalidPDFException, …). */
function namedError(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

interface ThreadRun {
  opened: Promise<Extract<ExtractionMessage, { type: 'opened' }>>;
  text: Promise<string>;
  stop(): void;
}

async function startThread(job: ExtractionJob): Promise<ThreadRun> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(ENTRY);
  let resolveOpened!: (m: Extract<ExtractionMessage, { type: 'opened' }>) => void;
  let resolveText!: (t: string) => void;
  let rejectAll!: (e: Error) => void;
  const opened = new Promise<Extract<ExtractionMessage, { type: 'opened' }>>((res, rej) => {
    resolveOpened = res;
    rejectAll = rej;
  });
  const text = new Promise<string>((res, rej) => {
    resolveText = res;
    const prev = rejectAll;
    rejectAll = (e) => {
      prev(e);
      rej(e);
    };
  });
  // Either may be left unread (a time-out, an over-limit page count): never an unhandled rejection.
  opened.catch(() => undefined);
  text.catch(() => undefined);
  let stopped = false;
  worker.on('message', (m: ExtractionMessage) => {
    if (m.type === 'opened') resolveOpened(m);
    else if (m.type === 'text') resolveText(m.text);
    else rejectAll(namedError(m.name, m.message));
  });
  worker.on('error', (err) => rejectAll(err instanceof Error ? err : new Error(String(err))));
  worker.on('exit', (code) => rejectAll(new Error(stopped ? 'the extraction thread was stopped' : `the extraction thread stopped unexpectedly (exit code ${code})`)));
  // The job's bytes are a private copy, moved (not copied again) to the thread.
  worker.postMessage(job, [job.bytes]);
  return {
    opened,
    text,
    stop: () => {
      stopped = true;
      void worker.terminate();
    },
  };
}

/** A private copy of `bytes` as its own ArrayBuffer (other stages keep reading the original). */
function ownCopy(bytes: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}

/** pdf.js reading that can be cancelled: `cancel` releases the document or stops the thread, whichever exists. */
export interface PdfReading {
  opened: Promise<PdfJsDocument>;
  cancel(): void;
}

/** Opens a PDF with pdf.js (on the extraction thread when available); the text of the first `textPages` pages is read straight after. */
export function startPdfReading(bytes: Buffer, textPages: number): PdfReading {
  if (!extractionThreadAvailable()) {
    const opened = import('./pdf/pdfjs-reader.js').then((m) => m.openPdfJs(bytes));
    return { opened, cancel: () => void opened.then((d) => d.destroy()).catch(() => undefined) };
  }
  const run = startThread({ kind: 'pdf', bytes: ownCopy(bytes), textPages });
  const opened = run.then(async (r): Promise<PdfJsDocument> => {
    const m = await r.opened;
    return {
      pages: m.pages,
      info: m.info,
      xmpRaw: m.xmpRaw,
      text: async (n) => {
        if (n !== textPages) throw new Error(`the extraction thread reads ${textPages} pages, not ${n}`);
        return r.text;
      },
      destroy: async () => r.stop(),
    };
  });
  opened.catch(() => run.then((r) => r.stop()).catch(() => undefined));
  return { opened, cancel: () => void run.then((r) => r.stop()).catch(() => undefined) };
}
