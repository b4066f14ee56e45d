/**
 * Runs a bundled CommonJS file through a V8 code cache. Node 20 compiles every module from source
 * in every process (module.enableCompileCache arrived in Node 22.1), which cost the analysis worker
 * ~0.2 s and pdf.js ~0.1 s per file. The cache file is keyed by the file's size and mtime, the
 * Node version and the architecture; V8 itself rejects data that does not match, which only costs
 * one uncached start. Used by the analysis worker's first module (cli/engine-worker-boot-main.ts)
 * and pdf.js's bundle (document/pdf/pdfjs-bundle.ts); bin/run-bundle.js does the same for the CLI
 * bundle in plain JavaScript, since it runs before any of the build is loaded.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export interface CachedCommonJs<T> {
  exports: T;
  /** The cache file this run reads or would write (undefined without a cache folder). */
  cacheFile: string | undefined;
  /**
   * Writes the cache when this run had none it could use (call once the work is done, so the
   * functions it compiled are in it); true when a new cache file was written. A folder that cannot
   * be written is left alone, and no temporary file stays behind.
   */
  save(): boolean;
}

/**
 * Where a thread that changes V8's flags for a while registers how to put them back (a function
 * that runs its argument under V8's defaults: src/engine/document/pdf-tiering.ts). V8 accepts a
 * code cache only under the flags it was made with, so every cache is read and written under the
 * defaults, and a run with changed flags neither rejects nor rewrites another run's caches. A
 * global: the CLI bundle and the host's early-start modules are separate copies of this code.
 */
const DEFAULT_FLAGS_SCOPE = Symbol.for('verity.v8DefaultFlagsScope');

/** `f()` under V8's default flags where this thread registered a way to get them back; else as is. */
export function underDefaultV8Flags<T>(f: () => T): T {
  const scope = (globalThis as Record<symbol, unknown>)[DEFAULT_FLAGS_SCOPE] as (<R>(g: () => R) => R) | undefined;
  return scope ? scope(f) : f();
}

/**
 * A bundle the build writes into dist/ (pdf.js's, the simple-PDF reader's), run through its code
 * cache; undefined where there is none (the TypeScript sources, which have no dist/ beside them).
 */
export function runBuiltCommonJs<T>(bundle: URL, cacheDir: string | undefined, name: string): CachedCommonJs<T> | undefined {
  if (bundle.protocol !== 'file:') return undefined;
  const file = fileURLToPath(bundle);
  return existsSync(file) ? runCommonJsWithCodeCache<T>(file, cacheDir, name) : undefined;
}

/** The file's exports, compiled from `cacheDir`'s `<name>-<size>-<mtime>-<node>-<arch>.v8cache` when there is one. */
export function runCommonJsWithCodeCache<T>(file: string, cacheDir: string | undefined, name: string): CachedCommonJs<T> {
  const st = statSync(file);
  const cacheFile = cacheDir ? join(cacheDir, `${name}-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}-${process.arch}.v8cache`) : undefined;
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const wrap = (Module as unknown as { wrap(source: string): string }).wrap;
  const source = wrap(readFileSync(file, 'utf8'));
  const script = underDefaultV8Flags(() => new vm.Script(source, { filename: file, cachedData }));
  let unsaved = cacheFile !== undefined && (!cachedData || script.cachedDataRejected === true);
  if (cacheFile && !unsaved) markInUse(cacheFile);
  const mod = { exports: {} as T };
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
  return {
    exports: mod.exports,
    cacheFile,
    save() {
      if (!unsaved || !cacheFile) return false;
      unsaved = false;
      // The thread's id keeps two threads' temporary files apart. node:worker_threads is loaded
      // only here: loaded with this module, it cost `verify media`'s early decode (early-media.ts)
      // ~1.3 ms before the decode could start.
      const tmp = `${cacheFile}.${process.pid}.${process.getBuiltinModule('node:worker_threads').threadId}.tmp`;
      try {
        mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
        writeFileSync(tmp, underDefaultV8Flags(() => script.createCachedData()), { mode: 0o600 });
        renameSync(tmp, cacheFile);
        return true;
      } catch {
        try {
          unlinkSync(tmp);
        } catch {
          // never created
        }
        return false;
      }
    },
  };
}

/** Caches of one module kept in the folder: this build's and two more (another install, the build before). */
const KEEP_CACHES = 3;

/**
 * Marks a cache as in use (its mtime), at most once an hour: pruning keeps the newest, and a cache
 * is written only once, so without this the build in daily use would look oldest.
 */
function markInUse(cacheFile: string): void {
  try {
    if (Date.now() - statSync(cacheFile).mtimeMs > 3_600_000) utimesSync(cacheFile, new Date(), new Date());
  } catch {
    // a read-only folder: pruning may drop it later, which costs one uncached start
  }
}

/**
 * After `cacheFile` (a cache of module `name`) was written: drops that module's older caches
 * beyond the newest few. Keeping one only would make two installs (or two Node versions) that
 * share the folder delete each other's cache on every run; keeping all grew the folder by one
 * file per build forever.
 */
export function pruneCodeCaches(cacheFile: string, name: string): void {
  const dir = dirname(cacheFile);
  const pattern = new RegExp(`^${name}-\\d+-\\d+-v[\\d.]+-\\w+\\.v8cache$`);
  try {
    const others = readdirSync(dir)
      .filter((f) => pattern.test(f) && f !== basename(cacheFile))
      .map((f) => ({ path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { path } of others.slice(KEEP_CACHES - 1)) unlinkSync(path);
  } catch {
    // another process pruned them first
  }
}
