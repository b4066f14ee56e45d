/**
 * No incremental marking once a large image's pixels have arrived in `verify media`'s one-shot
 * process (issue 31).
 *
 * Why: V8 counts the external memory allocated since its last full collection (the file's bytes,
 * the pixel plane: 16 MB for a 24 MP photo's analysed region) against the old generation's limit,
 * so the plane's arrival left a 24 MP run's heap (~16 MB of objects, a limit of ~36 MB) with no
 * room, and V8 began marking it incrementally (`--trace-incremental-marking`: "Start (allocation
 * limit)") — for a collection the run never needs: it ends ~30 ms later. The marking's steps and
 * its final pause (a mark-compact of 2.4–4.3 ms, plus 1–2 ms of steps) fell in the analysis after
 * the pixels, on the critical path. Without incremental marking V8 collects a heap that reaches
 * its hard limit in one full mark-compact, as it does a heap that outgrows incremental marking:
 * the same limits, the same results (src/engine/document/pdf-tiering.ts does the same for a small
 * PDF's run). In a traced 24 MP, 12 MP or 4K PNG run no mark-compact then comes at all.
 *
 * Why only then: V8 checks a code cache, Node's built-in ones included, against a hash of the
 * process's flags, so the flag is set only once the pixels are there (by then the CLI has loaded
 * what it reads from caches), and only for a plane of LARGE_PLANE_PIXELS or more (a small photo
 * decodes before the CLI has loaded, and is never marked anyway). A cache read or written after
 * that (the CLI's own at exit) is read or written with V8's default put back for the moment,
 * through the scope code-cache.ts and bin/run-bundle.js look for.
 */

/** Analysed pixels from which the plane's arrival stops incremental marking (a 4K frame: 8.3 MP). */
export const LARGE_PLANE_PIXELS = 8_000_000;

const RUN_GC = '--no-incremental-marking';
const DEFAULT_GC = '--incremental-marking';
/** Where code-cache.ts and bin/run-bundle.js find how to put V8's default flags back. */
const DEFAULT_FLAGS_SCOPE = Symbol.for('verity.v8DefaultFlagsScope');

type SetFlags = (flags: string) => void;

/** V8's flag setter (node:v8 is loaded by this call: ~0.6 ms, better spent while the thread would wait). */
export function v8FlagSetter(): SetFlags {
  const v8 = process.getBuiltinModule('node:v8');
  return (flags) => v8.setFlagsFromString(flags);
}

/**
 * Stops V8's incremental marking for the rest of the process and registers the default-flags
 * scope; false (and nothing changed) when another part of the process already changed V8's flags
 * and registered its own scope (`serve`, a PDF run), or when it was already done.
 */
export function stopIncrementalMarking(setFlags: SetFlags = v8FlagSetter()): boolean {
  const g = globalThis as Record<symbol, unknown>;
  if (g[DEFAULT_FLAGS_SCOPE]) return false;
  setFlags(RUN_GC);
  let inside = 0;
  g[DEFAULT_FLAGS_SCOPE] = <T>(f: () => T): T => {
    if (inside++ === 0) setFlags(DEFAULT_GC);
    try {
      return f();
    } finally {
      if (--inside === 0) setFlags(RUN_GC);
    }
  };
  return true;
}

/** For tests: forgets the scope stopIncrementalMarking registered (V8's flags are not touched). */
export function forgetDefaultFlagsScopeForTests(): void {
  delete (globalThis as Record<symbol, unknown>)[DEFAULT_FLAGS_SCOPE];
}
