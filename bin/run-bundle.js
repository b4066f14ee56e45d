// The CLI proper, for bin/verity.js: runs the bundled CLI (dist/verity.cjs) through a V8 code
// cache, because Node 20 has no module compile cache (module.enableCompileCache arrived in Node
// 22.1). A separate file so that `--version` and the top-level help load none of this.
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export async function runBundle() {
  const file = fileURLToPath(new URL('../dist/verity.cjs', import.meta.url));
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    process.stderr.write('verity is not built yet: run `npm run build` first\n');
    process.exit(1);
  }
  // The cache is keyed by the bundle's size and mtime; V8 also rejects data that does not match
  // the source, so a stale or corrupt cache only costs one slower start.
  const env = process.env;
  const cacheDir = env.VERITY_HOME
    ? join(env.VERITY_HOME, 'cache')
    : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'verity');
  const st = statSync(file);
  const cacheFile = join(cacheDir, `cli-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}.v8cache`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
  });
  if (!cachedData || script.cachedDataRejected) {
    // Written at exit, so the functions this run compiled are in the cache too; not after Ctrl-C
    // (exit 130), where writing it could hold the exit up for seconds on a busy machine.
    process.once('exit', (code) => {
      if (code === 130) return;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, cacheFile);
      } catch {
        // No writable cache folder (or a full disk): every start is simply uncached. A partly
        // written temporary file must not stay behind.
        try {
          unlinkSync(tmp);
        } catch {
          // never created
        }
      }
    });
  }
  globalThis.__verity_import = (specifier) => import(specifier);
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(file), mod, file, dirname(file));
  await mod.exports.main(process.argv);
}
