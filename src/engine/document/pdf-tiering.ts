/**
 * Later optimisation, and no incremental marking (RUN_GC below), while pdf.js reads a small PDF
 * (Node 20 only), switched on only once both threads have started.
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
 * its bundle is compiled from its code cache, the extraction thread once the simple-PDF reader
 * (or, where that reader is not used, pdf.js) is loaded from its own — the simple reader's short
 * reading gains most of all from the later optimisation (~27 vs ~36 ms cold for the bench's ten
 * pages); both caches are then read under the default flags, and the code caches of every
 * command live in one folder. A code cache read or written after that (the CLI's at exit,
 * pdf.js's on the thread, sharp's and exifr's for a PDF's embedded images) is read or written
 * with V8's default put back for the moment (each thread registers `withDefaultFlags` for
 * code-cache.ts; a shared count and lock keep the default while any thread is inside): otherwise a PDF run would reject the caches a photo's run wrote and rewrite them
 * under its flags, and the next photo would do the same in turn. The flag is process-wide:
 * setting it from either thread affects both.
 */
const FLAG = '--interrupt-budget';
/** V8's default on Node 20 (V8 11.3: 66 KB). */
const DEFAULT_BUDGET = 67_584;
const PDF_RUN_BUDGET = 8 * DEFAULT_BUDGET;

/**
 * And no incremental marking for the run, set and put back with the budget. A small PDF's run is
 * over in ~0.2 s, but the PDF thread's heap grows past V8's first old-generation limit on the way
 * (~13 MB live: pdf.js's bytecode and the pages read), so V8 started marking it incrementally, on
 * helper threads, for a collection the run never needed; and a heap torn down while it is being
 * marked first finishes that marking in one pause (`--trace-gc`: a 14.6 ms "external finalize"
 * mark-compact as the PDF thread ended, and the process waits for its threads at exit). Without
 * it, a heap that reaches its limit is collected in one full mark-compact, as V8 collects a heap
 * that outgrows incremental marking: the same heap limits, the same results.
 * 15 interleaved pairs of the 10-page bench PDF: 0.948× the CPU, 0.959× the wall time.
 */
const RUN_GC = '--no-incremental-marking';
const DEFAULT_GC = '--incremental-marking';

/**
 * The state the two threads share (an Int32Array over a SharedArrayBuffer): [0] threads that have
 * arrived at the gate, [1] threads now inside a default-flags scope, [2] a lock held while either
 * count changes together with the flag, so that the flag always matches them: the run's budget
 * once the gate is open and no thread is reading or writing a code cache, V8's default otherwise.
 */
export interface PdfTiering {
  gate: Int32Array;
}

const ARRIVED = 0;
const INSIDE = 1;
const LOCK = 2;

/** A gate for this process, or undefined where the flag does not apply (not Node 20). */
export function pdfRunTiering(nodeVersion = process.versions.node): PdfTiering | undefined {
  if (nodeVersion.split('.')[0] !== '20') return undefined;
  return { gate: new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT)) };
}

let setFlags = (flags: string): void => process.getBuiltinModule('node:v8').setFlagsFromString(flags);

/** For tests: records the flags instead of setting them (returns the previous setter). */
export function replaceFlagSetterForTests(f: (flags: string) => void): (flags: string) => void {
  const prev = setFlags;
  setFlags = f;
  return prev;
}

function setBudget(budget: number): void {
  setFlags(`${FLAG}=${budget} ${budget === PDF_RUN_BUDGET ? RUN_GC : DEFAULT_GC}`);
}

/** Runs `f` holding the shared lock (held for a few microseconds: a count and a flag). */
function locked<T>(g: Int32Array, f: () => T): T {
  while (Atomics.compareExchange(g, LOCK, 0, 1) !== 0) Atomics.wait(g, LOCK, 1, 1);
  try {
    return f();
  } finally {
    Atomics.store(g, LOCK, 0);
    Atomics.notify(g, LOCK, 1);
  }
}

/**
 * One thread has started; the second to arrive opens the gate and sets the run's budget (unless a
 * thread is inside a default-flags scope: the last to leave it sets the budget). True when this
 * call opened the gate.
 */
export function arriveAtTieringGate(t: PdfTiering | undefined): boolean {
  if (!t) return false;
  const g = t.gate;
  return locked(g, () => {
    const arrived = g[ARRIVED]! + 1;
    g[ARRIVED] = arrived;
    if (arrived !== 2) return false;
    if (g[INSIDE] === 0) setBudget(PDF_RUN_BUDGET);
    return true;
  });
}

/**
 * Registers, for this thread's code caches (code-cache.ts `underDefaultV8Flags`), a scope that
 * keeps V8's default while a cache is read or written.
 */
export function useDefaultFlagsForCodeCaches(t: PdfTiering | undefined): void {
  if (!t) return;
  (globalThis as Record<symbol, unknown>)[Symbol.for('verity.v8DefaultFlagsScope')] = <T>(f: () => T): T => withDefaultFlags(t, f);
}

/**
 * `f()` under V8's default budget: the first thread in puts the default back if the gate is open,
 * the last one out sets the run's budget again (threads may overlap: each holds the default until
 * all are out).
 */
export function withDefaultFlags<T>(t: PdfTiering, f: () => T): T {
  const g = t.gate;
  locked(g, () => {
    const inside = g[INSIDE]!;
    g[INSIDE] = inside + 1;
    if (inside === 0 && g[ARRIVED]! >= 2) setBudget(DEFAULT_BUDGET);
  });
  try {
    return f();
  } finally {
    locked(g, () => {
      const inside = g[INSIDE]! - 1;
      g[INSIDE] = inside;
      if (inside === 0 && g[ARRIVED]! >= 2) setBudget(PDF_RUN_BUDGET);
    });
  }
}
