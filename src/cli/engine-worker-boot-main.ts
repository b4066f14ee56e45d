/**
 * First module of the analysis worker (engine-worker-boot.ts): loads the bundled worker through a
 * V8 code cache in the cache folder, keyed by the bundle's size, mtime and the Node version, and
 * written when the worker's job is done (so the functions the analysis compiled are in it). V8
 * rejects a cache that does not match, which only costs one slower start.
 */
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import { threadId, workerData } from 'node:worker_threads';

const { bundle: file, cacheDir } = workerData as { bundle: string; cacheDir: string };
const st = statSync(file);
const cacheFile = join(cacheDir, `engine-worker-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}.v8cache`);
let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const wrap = (Module as unknown as { wrap(source: string): string }).wrap;
const script = new vm.Script(wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
if (!cachedData || script.cachedDataRejected) {
  process.once('exit', () => {
    const tmp = `${cacheFile}.${process.pid}.${threadId}.tmp`;
    try {
      mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cacheFile);
    } catch {
      // No writable cache folder: the next start is simply uncached; no temporary file stays.
      try {
        unlinkSync(tmp);
      } catch {
        // never created
      }
    }
  });
}
// Functions restored from a code cache lose vm's dynamic-import hook: the bundle's lazy imports of
// external packages go through this loader (scripts/build.mjs rewrites them), resolved from here.
(globalThis as { __verity_import?: (s: string) => Promise<unknown> }).__verity_import = (specifier) => import(specifier);
const mod = { exports: {} };
(script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, createRequire(file), mod, file, dirname(file));
