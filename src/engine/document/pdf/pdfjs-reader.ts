/**
 * pdf.js, called directly (the legacy build of pdfjs-dist, which pdf-parse 2 itself wraps): page
 * count, the Info dictionary, the raw XMP packet and the text of the first pages.
 *
 * Why not pdf-parse: its `getInfo` also reads the outline, permissions and page labels we never
 * use, and its package loads more than pdf.js. The text layout below reproduces pdf-parse's
 * `getText` with its defaults exactly (line enforcement, cell separator, page joiner), so the
 * text the AI-text detector sees is unchanged.
 *
 * Worker-free in Node: pdf.js's worker code is imported into this thread and registered as
 * `globalThis.pdfjsWorker`, which pdf.js uses instead of spawning a worker (the same "fake
 * worker" it would otherwise set up by importing the worker file itself, one step later). Both
 * modules are the minified builds: the same code, ~20 ms less to compile on every cold start.
 */
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { layoutPageText, type LayoutItem } from './text/page-layout.js';

type PdfJsModule = typeof PdfJs;

const API_MODULE = 'pdfjs-dist/legacy/build/pdf.min.mjs';
const WORKER_MODULE = 'pdfjs-dist/legacy/build/pdf.worker.min.mjs';

let loaded: Promise<PdfJsModule> | undefined;

/**
 * Imports pdf.js and its worker code once per process; call early to overlap the ~100 ms compile
 * with other work. Built code loads the bundled copy through a V8 code cache in `codeCacheDir`
 * (pdfjs-bundle.ts); the ES modules are imported where there is no bundle.
 */
export function loadPdfJs(codeCacheDir?: string): Promise<PdfJsModule> {
  loaded ??= (async () => {
    const natives = { push: Array.prototype.push, parse: JSON.parse };
    let api: PdfJsModule, worker: { WorkerMessageHandler: unknown };
    try {
      const bundled = (await import('./pdfjs-bundle.js')).loadBundledPdfJs(codeCacheDir);
      [api, worker] = bundled
        ? [bundled.api as PdfJsModule, bundled.worker as { WorkerMessageHandler: unknown }]
        : await Promise.all([import(API_MODULE) as Promise<PdfJsModule>, import(WORKER_MODULE) as Promise<{ WorkerMessageHandler: unknown }>]);
    } finally {
      restoreNatives(natives);
    }
    const g = globalThis as { pdfjsWorker?: { WorkerMessageHandler: unknown } };
    g.pdfjsWorker ??= worker;
    return api;
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

/**
 * pdf.js's legacy build (the one that runs on Node 20) carries core-js polyfills, two of which
 * replace built-ins V8 already implements as the spec says: `Array.prototype.push` becomes a
 * JavaScript loop (core-js's check for an edge case of arrays whose length is not writable, which
 * neither pdf.js nor verity meets) and `JSON.parse` a JavaScript parser (for the
 * JSON.parse-with-source proposal, which nothing here uses). Every push of pdf.js's lexer and
 * text builder then went through the polyfill (~15–20 ms of CPU in a cold 10-page read), and on
 * a thread that loads pdf.js itself so did the rest of verity's code. The built-ins are put back
 * once pdf.js is loaded; the polyfills that only add what Node 20 lacks stay.
 */
function restoreNatives(natives: { push: typeof Array.prototype.push; parse: typeof JSON.parse }): void {
  if (Array.prototype.push !== natives.push)
    Object.defineProperty(Array.prototype, 'push', { value: natives.push, writable: true, enumerable: false, configurable: true });
  if (JSON.parse !== natives.parse)
    Object.defineProperty(JSON, 'parse', { value: natives.parse, writable: true, enumerable: false, configurable: true });
}

export interface PdfJsDocument {
  pages: number;
  info: Record<string, unknown>;
  xmpRaw: string | null;
  /** Text of pages 1…n, each page followed by a blank line (pdf-parse's page joiner removed). */
  text(firstPages: number): Promise<string>;
  destroy(): Promise<void>;
}

/**
 * Opens the document (decrypting with an empty user password, as pdf.js does) and reads the
 * Info dictionary and XMP. Rejects with pdf.js's own exceptions (`PasswordException`,
 * `InvalidPDFException`, …) so the caller can name what went wrong.
 */
export async function openPdfJs(bytes: Buffer): Promise<PdfJsDocument> {
  const pdfjs = await loadPdfJs();
  // A copy: pdf.js may keep or transfer its buffer, and other stages read `bytes` concurrently.
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, stopAtErrors: false });
  let doc: PdfJs.PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw err;
  }
  try {
    const { info, metadata } = await doc.getMetadata();
    return {
      pages: doc.numPages,
      info: (info ?? {}) as Record<string, unknown>,
      xmpRaw: metadata?.getRaw() ?? null,
      text: (n) => pagesText(doc, n),
      destroy: () => doc.destroy(),
    };
  } catch (err) {
    await doc.destroy().catch(() => undefined);
    throw err;
  }
}

async function pagesText(doc: PdfJs.PDFDocumentProxy, firstPages: number): Promise<string> {
  let out = '';
  const last = Math.min(firstPages, doc.numPages);
  for (let i = 1; i <= last; i++) {
    const page = await doc.getPage(i);
    out += `${await pageText(page)}\n\n\n`;
    page.cleanup();
  }
  return out;
}

/** One page's text laid out as pdf-parse 2 does (page-layout.ts, shared with the simple reader). */
async function pageText(page: PdfJs.PDFPageProxy): Promise<string> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
  const items: LayoutItem[] = [];
  for (const item of content.items) if ('str' in item) items.push(item);
  return layoutPageText(items, viewport.transform);
}
