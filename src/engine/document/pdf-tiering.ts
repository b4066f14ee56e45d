/**
 * Later optimisation while pdf.js reads a small PDF (Node 20 only), switched on only once both
 * threads have started.
 *
 * Why the flag: a `verify document` run of a small PDF is ~0.4 s on two busy threads, in which
 * V8's optimising compiler, TurboFan, compiled pdf.js's functions on background threads for more
 * CPU than the optimised code then saved. Eight times V8's default interrupt budget makes a
 * function wait eight times as long before it is optimised: code that runs only for this short
 * run stays in the baseline tiers, while a long loop (a PDF of many thousands of objects) is
 * still optimised. The tiers run the same code with the same results. (pdf.js's cold read of the
 * bench's 10-page text PDF: ~310 ms of CPU with V8's default budget, ~200 ms with this one.)
 * Node 24's V8 has no such flag (an unknown flag is reported on stderr): other versions keep
 * V8's defaults.
 *
 * Why not at once: V8 checks a code cache against a hash of the process's V8 flags, and Node's
 * built-in modules come with code caches made under the default flags. With the flag set before
 * the extraction thread started (as verity did until issue 31's fourth round), every built-in
 * module that thread's Node start-up loads, and every one the CLI loads later, was compiled from
 * source: an empty thread's start cost ~27 ms more CPU, on the path to pdf.js's first page. So
 * the flag is set when the second of the two threads arrives at the gate: the CLI's thread once
 * its bundle is compiled from its code cache, the extraction thread once pdf.js is loaded from
 * its own; both caches are then read under the default flags, and the code caches of every
 * command live in one folder. Before writing a code cache (the CLI's at exit, pdf.js's on the
 * thread) the flag is put back to V8's default, so that every cache is written under the flags it
 * is read under. The flag is process-wide: setting it from either thread affects both.
 */
const FLAG = '--interrupt-budget';
/** V8's default on Node 20 (V8 11.3: 66 KB). */
const DEFAULT_BUDGET = 67_584;
const PDF_RUN_BUDGET = 8 * DEFAULT_BUDGET;

/** The gate shared by the two threads (an Int32Array over a SharedArrayBuffer: threads that have arrived). */
export interface PdfTiering {
  gate: Int32Array;
}

/** A gate for this process, or undefined where the flag does not apply (not Node 20). */
export function pdfRunTiering(nodeVersion = process.versions.node): PdfTiering | undefined {
  if (nodeVersion.split('.')[0] !== '20') return undefined;
  return { gate: new Int32Array(new SharedArrayBuffer(4)) };
}

function setBudget(budget: number): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`${FLAG}=${budget}`);
}

/** One thread has started; the second to arrive sets the flag. True when this call set it. */
export function arriveAtTieringGate(t: PdfTiering | undefined): boolean {
  if (!t || Atomics.add(t.gate, 0, 1) !== 1) return false;
  setBudget(PDF_RUN_BUDGET);
  return true;
}

/** Puts V8's default back (before a code cache is written); the gate stays passed. */
export function resetTiering(t: PdfTiering | undefined): void {
  if (t && Atomics.load(t.gate, 0) >= 2) setBudget(DEFAULT_BUDGET);
}
