/**
 * PDF text extraction on a second thread. pdf.js is pure JavaScript and the largest single cost
 * of a PDF analysis (~250–450 ms cold: module compile, parsing, text layout); on the main thread
 * it would serialise with the structure reader, the C2PA reader and the image forensics. (DOCX
 * text is read on the main thread, docx/text.ts: one parse of one part costs less than a thread.) A `worker_threads` Worker runs them on the other core instead, and gives
 * the time budget a real stop: a thread stuck inside pdf.js is terminated, not abandoned.
 *
 * pdf.js itself stays worker-free inside that thread (its worker code is registered as
 * `globalThis.pdfjsWorker`, pdfjs-reader.ts). The thread runs extraction-thread-main.ts as
 * bundled by the build (`dist/extraction-thread.cjs`); where that does not exist (the TypeScript
 * sources run by the test runner) the same code runs on the calling thread, with identical results.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PdfJsDocument } from './pdf/pdfjs-reader.js';
import type { PdfTiering } from './pdf-tiering.js';
import type { PdfStructure } from './pdf/structure.js';

export { arriveAtTieringGate, pdfRunTiering, useDefaultFlagsForCodeCaches } from './pdf-tiering.js';

/**
 * `simpleReader: false`: pdf.js must read the file (`document.pdf_reader = pdfjs`), even where
 * the simple reader could (the thread's reading ahead of the same bytes is then not used).
 */
export type ExtractionJob = {
  kind: 'pdf';
  bytes: ArrayBuffer;
  textPages: number;
  simpleReader?: boolean;
};

export type ExtractionMessage =
  | { type: 'opened'; pages: number; info: Record<string, unknown>; xmpRaw: string | null }
  /**
   * `readAhead`: the text came from the reading ahead; `decodedBytes`: what pdf.js decoded in all.
   */
  /** `simple`: read by the simple-PDF reader. */
  | { type: 'text'; text: string; readAhead: boolean; decodedBytes: number; simple?: boolean }
  | { type: 'error'; name: string; message: string }
  /** The reading ahead opened the named file, or was abandoned past its speculative budget. */
  | { type: 'ahead'; event: 'opened' | 'abandoned'; decodedBytes: number }
  /**
   * The named file's structure as the thread read it (pdf/structure.ts; undefined where that
   * threw), with the bytes it was read from, for the calling thread to use instead of reading its
   * own (see PdfReader.structureAhead).
   */
  | { type: 'structure'; structure: PdfStructure | undefined; bytes: ArrayBuffer };

// extraction-thread-main.ts as bundled by scripts/build.mjs (beside dist/verity.cjs).
const ENTRY = new URL('../../extraction-thread.cjs', import.meta.url);
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

/** A started thread (see preparePdfReader): its job is sent later, once the file may be given to pdf.js. */
export interface ThreadRun {
  opened: Promise<Extract<ExtractionMessage, { type: 'opened' }>>;
  text: Promise<string>;
  /** Sends the one job; from then on the thread keeps the process alive until it answers or is stopped. */
  send(job: ExtractionJob): void;
  /** Lets a thread that reads ahead read the pages' text too (the host will run the engine). */
  go(): void;
  stop(): void;
  /** What the thread reported, for tests (bin/run-bundle.js prints it on request). */
  stats: ThreadStats;
  /** The reading ahead's first event (never settles without one), for tests. */
  ahead: Promise<'opened' | 'abandoned'>;
  /** Started with a file to read ahead: the thread tries the simple-PDF reader on it first. */
  readsAhead: boolean;
  /** The thread has ended (stopped, failed or exited): it answers nothing more. */
  readonly ended: boolean;
  /**
   * The thread's 'structure' message, when the thread has begun reading the named file's
   * structure (STRUCTURE_SLOT says so); undefined when it has not (it never will, or has not got
   * that far). Settles undefined if the thread fails first; keeps the process alive meanwhile.
   */
  structure(): Promise<Extract<ExtractionMessage, { type: 'structure' }> | undefined> | undefined;
}

/** How a thread's reading went (see ThreadRun.stats). */
export interface ThreadStats {
  /** Whether the answer's text came from the reading ahead; set with the answer. */
  readAhead?: boolean;
  /** Bytes pdf.js's decoders produced for the answer's reading. */
  decodedBytes?: number;
  /** The answer came from the simple-PDF reader (pdf/simple-reading.ts), not pdf.js. */
  simple?: boolean;
  /** The calling thread used the structure the thread read (PdfReader.structureAhead). */
  structureFromThread?: boolean;
  /** Why an early thread was stopped before the engine took it (EarlyPdfThread.discard). */
  discarded?: string;
  /** Whether the host said "go". */
  go?: boolean;
  /** The reading ahead's last event, and what it had decoded by then. */
  ahead?: 'opened' | 'abandoned';
  aheadDecodedBytes?: number;
}

/**
 * A thread started by the host before the engine exists (bin/run-bundle.js, for `verify document`
 * of a PDF: the thread's start-up and pdf.js's load then overlap the CLI's own start-up, ~0.1 s of
 * the critical path). The engine adopts it for its first PDF (EnginePorts.pdfThread); it must
 * have been started with the same code-cache folder. Unused, it does not keep the process alive.
 */
export interface EarlyPdfThread {
  /** The thread, the first time it is asked for; undefined afterwards (one job per thread). */
  take(): ThreadRun | undefined;
  /**
   * Stops the thread if it was never taken: the host's command is over, or (`reason`) the host
   * knows it will not run the local engine (a remote service, the sandbox).
   */
  discard(reason?: string): void;
  /** The host will run the local engine: the thread may read the named file's pages ahead. */
  go(): void;
  /** The thread's report, for tests. */
  readonly stats: ThreadStats;
}

/**
 * Text is extracted from at most this many pages (pdf/analyze.ts): the detector reads at most
 * 60,000 characters, and pdf.js text extraction costs ~20–30 ms a page.
 */
export const TEXT_PAGE_LIMIT = 10;

/**
 * What the early thread signals to the calling thread through shared memory (an Int32Array over
 * a SharedArrayBuffer, `SpeculativeFile.signals`): STRUCTURE_SLOT is set (to 1, with a notify) just
 * before the thread reads the named file's structure, and a 'structure' message follows. The
 * calling thread then waits for that message rather than reading the same structure itself (~20
 * ms of a cold 100-page file, on its critical path), since the thread began first.
 */
export const STRUCTURE_SLOT = 0;
export const SIGNALS_LENGTH = 1;

/**
 * The file the host expects the engine to be given (an absolute path), which the thread may read
 * with pdf.js before its job arrives: see extraction-thread-main.ts. Read only up to `maxBytes`.
 */
export interface SpeculativeFile {
  path: string;
  maxBytes: number;
  /** false: the config asks for pdf.js (`document.pdf_reader = pdfjs`), so the simple-PDF reader is not tried on it. */
  simpleReader?: boolean;
  /** The signals shared with the calling thread (see STRUCTURE_SLOT); made here when not given (tests give their own). */
  signals?: SharedArrayBuffer;
}

/** What the thread is started with (its workerData); `textPages` is what the thread reads ahead. */
export interface ThreadData {
  codeCacheDir?: string;
  speculative?: SpeculativeFile & { textPages: number };
  /** The later-optimisation gate shared with the host (pdf-tiering.ts); the thread arrives once the simple-PDF reader (or, without it, pdf.js) is loaded. */
  tiering?: PdfTiering;
}

/**
 * Starts the extraction thread now, for an engine created later (see EarlyPdfThread); undefined
 * without the built entry. With `speculative`, the thread reads that file with pdf.js as soon as
 * pdf.js is loaded, before the engine has decided whether pdf.js may read it (see
 * extraction-thread-main.ts for what that reading does and what bounds it).
 */
export function startEarlyPdfThread(codeCacheDir: string | undefined, speculative?: SpeculativeFile, tiering?: PdfTiering): EarlyPdfThread | undefined {
  if (!extractionThreadAvailable()) return undefined;
  let run: ThreadRun | undefined = startThread(codeCacheDir, speculative, tiering);
  const stats = run.stats;
  return {
    take: () => {
      const r = run;
      run = undefined;
      return r;
    },
    discard: (reason = 'unused') => {
      if (run) stats.discarded = reason;
      run?.stop();
      run = undefined;
    },
    go: () => run?.go(),
    stats,
  };
}

/** Threads started in this process, for tests (bin/run-bundle.js prints it with VERITY_DEBUG_PDF_THREADS=1). */
const THREADS_STARTED = Symbol.for('verity.pdfThreadsStarted');

/** Starts the thread now (synchronously: a dynamic import here would let the caller's synchronous work run first). */
function startThread(codeCacheDir: string | undefined, speculative?: SpeculativeFile, tiering?: PdfTiering): ThreadRun {
  const g = globalThis as { [THREADS_STARTED]?: number };
  g[THREADS_STARTED] = (g[THREADS_STARTED] ?? 0) + 1;
  const signals = speculative && speculative.simpleReader !== false ? (speculative.signals ?? new SharedArrayBuffer(SIGNALS_LENGTH * Int32Array.BYTES_PER_ELEMENT)) : undefined;
  const workerData: ThreadData = { codeCacheDir, speculative: speculative && { ...speculative, signals, textPages: TEXT_PAGE_LIMIT }, tiering };
  const worker = new Worker(ENTRY, { workerData });
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
  const stats: ThreadStats = {};
  // The 'structure' message is kept here until structure() hands it out once (a structure and a
  // copy of the file: not held after); `structureSettled` says it came, or never will.
  let structureMsg: Extract<ExtractionMessage, { type: 'structure' }> | undefined;
  let settleStructure!: () => void;
  const structureSettled = new Promise<void>((res) => {
    settleStructure = res;
  });
  let awaitingStructure = false;
  let structureArrived = false;
  let ended = false;
  let jobSent = false;
  let resolveAhead!: (event: 'opened' | 'abandoned') => void;
  const ahead = new Promise<'opened' | 'abandoned'>((res) => {
    resolveAhead = res;
  });
  worker.on('message', (m: ExtractionMessage) => {
    if (m.type === 'structure') {
      structureArrived = true;
      structureMsg = m;
      settleStructure();
      // Back to not keeping the process alive, unless the job has been sent since.
      if (awaitingStructure && !jobSent) worker.unref();
      awaitingStructure = false;
    } else if (m.type === 'opened') resolveOpened(m);
    else if (m.type === 'ahead') {
      stats.ahead = m.event;
      stats.aheadDecodedBytes = m.decodedBytes;
      resolveAhead(m.event);
    } else if (m.type === 'text') {
      stats.readAhead = m.readAhead;
      stats.decodedBytes = m.decodedBytes;
      if (m.simple) stats.simple = true;
      resolveText(m.text);
    } else rejectAll(namedError(m.name, m.message));
  });
  worker.on('error', (err) => {
    ended = true;
    settleStructure();
    rejectAll(err instanceof Error ? err : new Error(String(err)));
  });
  worker.on('exit', (code) => {
    ended = true;
    settleStructure();
    rejectAll(new Error(stopped ? 'the extraction thread was stopped' : `the extraction thread stopped unexpectedly (exit code ${code})`));
  });
  // Waiting for a job, the thread must not keep the process alive (a file over the decompression
  // caps, or an early thread the engine never takes, gets none); send() refs it. After the
  // listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  return {
    opened,
    text,
    send: (job) => {
      try {
        jobSent = true;
        worker.ref();
        // The job's bytes are a private copy, moved (not copied again) to the thread.
        worker.postMessage(job, [job.bytes]);
      } catch (err) {
        rejectAll(err instanceof Error ? err : new Error(String(err)));
      }
    },
    go: () => {
      if (stats.go) return;
      stats.go = true;
      try {
        worker.postMessage({ type: 'go' });
      } catch {
        // a thread that already ended reads nothing more
      }
    },
    stop: () => {
      stopped = true;
      void worker.terminate();
    },
    stats,
    ahead,
    readsAhead: !!speculative,
    get ended() {
      return ended;
    },
    structure: () => {
      if (!signals || stopped || Atomics.load(new Int32Array(signals), STRUCTURE_SLOT) === 0) return undefined;
      if (!structureArrived && !awaitingStructure && !jobSent) {
        awaitingStructure = true;
        worker.ref();
      }
      return structureSettled.then(() => {
        const m = structureMsg;
        structureMsg = undefined;
        return m;
      });
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

/**
 * A pdf.js reader made ready before the file may be given to it: on built code the extraction
 * thread starts at once and compiles pdf.js (~0.2 s of thread start-up and module compile) while
 * the calling thread reads the structure and measures the streams; `read` then hands it the file.
 * `discard` stops a thread that was never used (a file over the decompression caps) or is still
 * reading; it may be called more than once. `codeCacheDir`: where the thread keeps pdf.js's V8
 * code cache (pdf/pdfjs-bundle.ts); none → compiled from source.
 */
export interface PdfReader {
  /** `simpleReader: false`: pdf.js reads the file even where the simple-PDF reader could (`document.pdf_reader = pdfjs`). */
  read(bytes: Buffer, textPages: number, simpleReader?: boolean): PdfReading;
  /**
   * True when the thread has been reading ahead the file the host named, and so has already
   * tried the simple-PDF reader on it (extraction-thread-main.ts): the caller need not try it
   * too. False once that thread has ended: the caller then reads a simple PDF itself (a job sent
   * to an ended thread fails, and the reading with it).
   */
  readonly simpleAhead: boolean;
  /**
   * The structure of `bytes` as the early thread read it, when the thread read that same file
   * ahead and began its structure before this was asked (it then finishes first: it began first):
   * the caller uses it instead of reading its own. Undefined (not a promise) when there is none
   * to wait for; the promise gives undefined when the thread failed or read other bytes. The
   * structure is a structured clone (plain data and Maps): its inflateBudget is plain data too,
   * which the caller makes an InflateBudget again (pdf/analyze.ts).
   */
  structureAhead(bytes: Buffer): Promise<PdfStructure | undefined> | undefined;
  /** `reason`, when given, is kept in the thread's stats (tests read it: a thread the engine took and never used). */
  discard(reason?: string): void;
}

export function preparePdfReader(codeCacheDir?: string, early?: EarlyPdfThread): PdfReader {
  if (!extractionThreadAvailable()) {
    // On this thread: nothing runs before read(), and the reading is released by its caller.
    return {
      read: (bytes) => {
        const opened = import('./pdf/pdfjs-reader.js').then((m) => m.openPdfJs(bytes));
        return { opened, cancel: () => void opened.then((d) => d.destroy()).catch(() => undefined) };
      },
      discard: () => undefined,
      simpleAhead: false,
      structureAhead: () => undefined,
    };
  }
  // An early thread (bin/run-bundle.js) is already starting and reading the file ahead. Without
  // one the thread starts when a file is given to pdf.js: most simple PDFs are read by the
  // simple-PDF reader on the calling thread first (pdf/simple-reading.ts) and never need it.
  let r: ThreadRun | undefined;
  let startError: Error | undefined;
  try {
    r = early?.take();
  } catch (err) {
    startError = err instanceof Error ? err : new Error(String(err));
  }
  const thread = (): ThreadRun => {
    if (startError) throw startError;
    try {
      r ??= startThread(codeCacheDir);
    } catch (err) {
      startError = err instanceof Error ? err : new Error(String(err));
      throw startError;
    }
    return r;
  };
  let discarded: string | undefined;
  return {
    read: (bytes, textPages, simpleReader = true) => {
      let run: ThreadRun;
      try {
        run = thread();
      } catch (err) {
        // No thread could be started: the reading fails with that error (a warning), as pdf.js errors do.
        const failed = Promise.reject(err instanceof Error ? err : new Error(String(err)));
        failed.catch(() => undefined);
        return { opened: failed, cancel: () => undefined };
      }
      run.send({ kind: 'pdf', bytes: ownCopy(bytes), textPages, simpleReader });
      const opened = run.opened.then((m): PdfJsDocument => {
        return {
          pages: m.pages,
          info: m.info,
          xmpRaw: m.xmpRaw,
          text: async (n) => {
            if (n !== textPages) throw new Error(`the extraction thread reads ${textPages} pages, not ${n}`);
            return run.text;
          },
          destroy: async () => run.stop(),
        };
      });
      opened.catch(() => run.stop());
      return { opened, cancel: () => run.stop() };
    },
    discard: (reason) => {
      if (!r) return;
      if (reason && !discarded) r.stats.discarded = discarded = reason;
      r.stop();
    },
    get simpleAhead() {
      return !!r?.readsAhead && !r.ended;
    },
    structureAhead: (bytes) => {
      const run = r;
      const message = run?.structure();
      if (!run || !message) return undefined;
      return message.then((m) => {
        if (!m?.structure || !Buffer.from(m.bytes).equals(bytes)) return undefined;
        run.stats.structureFromThread = true;
        return m.structure;
      });
    },
  };
}

/** Opens a PDF with pdf.js (on the extraction thread when available); the text of the first `textPages` pages is read straight after. */
export function startPdfReading(bytes: Buffer, textPages: number): PdfReading {
  return preparePdfReader().read(bytes, textPages);
}
