// The CLI proper, for bin/verity.js: runs the bundled CLI (dist/verity.cjs) through a V8 code
// cache, because Node 20 has no module compile cache (module.enableCompileCache arrived in Node
// 22.1). A separate file so that `--version` and the top-level help load none of this.
// CommonJS, as bin/verity.js (bin/package.json says so; bin/verity.js says why). Built-in modules
// as in bin/verity.js: no ESM facades to build (node:fs's loads the streams).
const { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } = process.getBuiltinModule('node:fs');
const Module = process.getBuiltinModule('node:module');
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, join, resolve } = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');

async function runBundle() {
  const file = join(__dirname, '..', 'dist', 'verity.cjs');
  // The cache is keyed by the bundle's size and mtime; V8 also rejects data that does not match
  // the source, so a stale or corrupt cache only costs one slower start.
  const env = process.env;
  const cacheDir = env.VERITY_HOME
    ? join(env.VERITY_HOME, 'cache')
    : join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'verity');
  // serve: a young generation that does not grow (keepYoungGenerationSmall), set before the
  // bundle runs; its code cache is still read under V8's default flags.
  const young = positionals(process.argv.slice(2))[0] === 'serve' ? keepYoungGenerationSmall() : undefined;
  // For tests: the young generation's size at exit, in MB.
  if (env.VERITY_DEBUG_YOUNG_GENERATION === '1')
    process.once('exit', () => {
      const space = process.getBuiltinModule('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      process.stderr.write(`verity-debug young-generation ${space ? space.space_size / 1048576 : '?'}\n`);
    });
  // Started before the CLI bundle is read and compiled, so that its start-up overlaps the CLI's
  // own (without a build it finds nothing to start, and the read below says what to do).
  const early = await earlyStart(process.argv.slice(2), cacheDir);
  // For tests: whether `verify media` used the decode started early (src/engine/media/early-media.ts).
  if (env.VERITY_DEBUG_EARLY_MEDIA === '1' && early.media) process.once('exit', () => process.stderr.write(`verity-debug early-media ${early.media.state}${early.media.incrementalMarkingStopped ? ' no-incremental-marking' : ''}\n`));
  // For tests: how the early PDF thread's reading went (extraction-thread.ts ThreadStats).
  if (env.VERITY_DEBUG_EARLY_PDF_THREAD === '1' && early.pdfThread) {
    const stats = early.pdfThread.stats;
    process.once('exit', () => process.stderr.write(`verity-debug early-pdf-thread ${JSON.stringify(stats)}\n`));
  }
  // For tests: how many pdf.js threads this process started (src/engine/document/extraction-thread.ts).
  if (env.VERITY_DEBUG_PDF_THREADS === '1') process.once('exit', () => process.stderr.write(`verity-debug pdf-threads-started ${globalThis[Symbol.for('verity.pdfThreadsStarted')] ?? 0}\n`));
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    early.pdfThread?.discard();
    early.analysisWorker?.discard();
    process.stderr.write('verity is not built yet: run `npm run build` first\n');
    process.exit(1);
  }
  const st = statSync(file);
  const cacheFile = join(cacheDir, `cli-${st.size}-${Math.trunc(st.mtimeMs)}-${process.version}.v8cache`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const compile = () => new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const script = young ? young(compile) : compile();
  // The bundle is compiled (from its cache, under V8's default flags): the PDF run's later
  // optimisation may start once the extraction thread has loaded pdf.js too (pdf-tiering.ts).
  early.arriveAtTieringGate?.();
  if (cachedData && !script.cachedDataRejected) touchCache(cacheFile);
  if (!cachedData || script.cachedDataRejected) {
    // Written at exit, so the functions this run compiled are in the cache too; not after Ctrl-C
    // (exit 130), where writing it could hold the exit up for seconds on a busy machine.
    process.once('exit', (code) => {
      if (code === 130) return;
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
        // Under V8's default flags, which the next run reads it under (the PDF run's scope, if any:
        // src/engine/document/pdf-tiering.ts).
        const scope = globalThis[Symbol.for('verity.v8DefaultFlagsScope')];
        writeFileSync(tmp, scope ? scope(() => script.createCachedData()) : script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, cacheFile);
        pruneCliCaches(cacheDir, cacheFile);
        pruneFlagFolders(cacheDir, undefined);
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
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
  await mod.exports.main(process.argv, early);
}

const GROWTH_FLAG = '--semi-space-growth-factor';
/** V8's default growth factor of the young generation (Node 20's V8 11.3 to Node 24's 13.6). */
const DEFAULT_GROWTH = 2;
/** serve's semi-spaces once it answers many small requests, in MB (its young generation is twice this). */
const SERVE_SEMI_SPACE_MB = 8;
/** Where serve finds the function that grows its young generation (src/cli/young-generation.ts). */
const GROW_HOOK = Symbol.for('verity.growYoungGeneration');

/**
 * `verity serve` holds V8's young generation at its starting size, two semi-spaces of 1 MB, until it
 * answers many small requests; it is then grown once to two of SERVE_SEMI_SPACE_MB (issue 31).
 * By default V8 doubles them, up to 16 MB each, as objects survive its collections, which a server
 * that runs for hours always reaches; every page of the 32 MB then stays resident (~30 MB of serve's
 * peak in a 1 GB remote batch, while the next server batch uploaded). V8 reads its maximum
 * (`--max-semi-space-size`) once, when the process starts, so it cannot be set from here
 * (measured: no effect); the growth factor is read at each growth, so a factor of 1 holds the size.
 * Why two sizes: an upload streams through 1 MB semi-spaces at no cost, but claims at thousands a
 * second need 8 MB (at 1 MB and at 4 MB the objects of requests in flight outlived two collections
 * and went to the old generation: 1.4–1.5× the CPU per request; at 8 MB as without a bound);
 * measured in docs/server.md. The growth: a few young collections with objects that survive them
 * (~10 ms, once). Node 20 to 24 (checked: both have the flag).
 *
 * V8 accepts a code cache only under the flags it was made with: the scope returned (also
 * registered for code-cache.ts and the CLI cache's write at exit, as pdf-tiering.ts does) puts the
 * default back while a cache is read or written, so serve reads and writes the caches every
 * other command does. Built-in modules first loaded after this are compiled without Node's own
 * caches (a few ms once, at start). Returns undefined where the flag is not known to exist.
 */
function keepYoungGenerationSmall(
  setFlags = (f) => process.getBuiltinModule('node:v8').setFlagsFromString(f),
  nodeVersion = process.versions.node,
  semiSpaceMb = SERVE_SEMI_SPACE_MB,
) {
  const major = Number(nodeVersion.split('.')[0]);
  if (!(major >= 20 && major <= 24)) return undefined;
  setFlags(`${GROWTH_FLAG}=1`);
  let inside = 0;
  const scope = (f) => {
    if (inside++ === 0) setFlags(`${GROWTH_FLAG}=${DEFAULT_GROWTH}`);
    try {
      return f();
    } finally {
      if (--inside === 0) setFlags(`${GROWTH_FLAG}=1`);
    }
  };
  let grown = false;
  // V8's `gc`, fetched once: the extra full collections and the one-time growth both use it.
  const gc = gcFunction(setFlags);
  const stopCollecting = collectOldGarbage(gc);
  globalThis[GROW_HOOK] = () => {
    if (grown) return;
    grown = true;
    stopCollecting();
    setFlags(`${GROWTH_FLAG}=${DEFAULT_GROWTH}`);
    try {
      growYoungGeneration(semiSpaceMb, gc);
    } finally {
      setFlags(`${GROWTH_FLAG}=1`);
    }
  };
  globalThis[Symbol.for('verity.v8DefaultFlagsScope')] = scope;
  return scope;
}

/**
 * Young collections, each with ~0.6 MB of objects alive through it, until the young generation is
 * two semi-spaces of `semiSpaceMb` (V8 grows it once the bytes that survived since its last growth
 * pass its size): 3–6 collections for 8 MB. `gc`: gcFunction's (nothing is done without it).
 */
function growYoungGeneration(semiSpaceMb, gc) {
  const v8 = process.getBuiltinModule('node:v8');
  const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? Infinity;
  if (!gc) return;
  for (let i = 0; i < 32 && young() < 2 * semiSpaceMb * 1048576; i++) {
    const alive = Array.from({ length: 4000 }, (_, j) => ({ j, s: `${'y'.repeat(100)}${j}` }));
    gc({ type: 'minor' });
    alive.length = 0;
  }
}

/** V8's `gc`, taken with --expose-gc set only while it is fetched (as cli/engine-worker.ts does); undefined if it cannot be. */
function gcFunction(setFlags) {
  try {
    setFlags('--expose-gc');
    const gc = process.getBuiltinModule('node:vm').runInNewContext('gc');
    return typeof gc === 'function' ? gc : undefined;
  } catch {
    return undefined;
  } finally {
    setFlags('--no-expose-gc');
  }
}

/** Bytes the old generation may grow past what the last full collection left before serve collects (collectOldGarbage). */
const OLD_GARBAGE_BYTES = 16 * 1048576;

/**
 * While serve's young generation is held small: a full collection once the old generation has
 * grown OLD_GARBAGE_BYTES past what the last one left, looked at every second. Through 1 MB
 * semi-spaces, the network chunks of an upload waiting for the spool's disk outlive two young
 * collections and go to the old generation, with their bytes outside the heap; V8 left 30–50 MB of
 * them there before its own full collection (measured in a 1 GB remote batch). A collection of
 * serve's ~30 MB heap costs a few ms every several seconds of upload. Once the young generation
 * is grown for claims, V8's own timing is kept (claims were measured so). Returns the stop.
 */
function collectOldGarbage(gc) {
  const v8 = process.getBuiltinModule('node:v8');
  const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;
  if (!gc) return () => undefined;
  let left = old();
  const timer = setInterval(() => {
    if (old() - left < OLD_GARBAGE_BYTES) return;
    gc();
    left = old();
  }, 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Marks the cache as in use (its mtime), at most once an hour: pruning keeps the newest, and a
 * cache is written only once, so without this the build in daily use would look oldest.
 */
function touchCache(cacheFile) {
  try {
    if (Date.now() - statSync(cacheFile).mtimeMs > 3_600_000) utimesSync(cacheFile, new Date(), new Date());
  } catch {
    // a read-only cache folder: pruning may then drop it, which costs one slower start
  }
}

/** CLI code caches kept in the cache folder: this build's and two more (another install, the build before). */
const KEEP_CLI_CACHES = 3;

/**
 * Each build (and each Node version) writes a new cache file of ~0.7 MB; without pruning, the
 * cache folder grew by one per upgrade or rebuild forever. The newest few stay, so two installs
 * that share the folder do not delete each other's cache on every run.
 */
function pruneCliCaches(cacheDir, keep) {
  try {
    const old = readdirSync(cacheDir)
      .filter((f) => /^cli-\d+-\d+-v[\d.]+\.v8cache$/.test(f) && join(cacheDir, f) !== keep)
      .map((f) => {
        const path = join(cacheDir, f);
        return { path, mtime: statSync(path).mtimeMs };
      })
      .sort((a, b) => b.mtime - a.mtime);
    for (const { path } of old.slice(KEEP_CLI_CACHES - 1)) unlinkSync(path);
  } catch {
    // another process pruned them first, or the folder cannot be listed: nothing to do
  }
}

/**
 * Folders of code caches made under changed V8 flags: by earlier builds, which set the PDF run's
 * flag before anything was compiled and so kept that run's caches apart (those caches now live in
 * the one folder: src/engine/document/pdf-tiering.ts), and by the analysis host's threads, whose
 * process runs flags of its own (src/cli/analysis-host.ts HOST_CODE_CACHE_FOLDER).
 */
const FLAG_FOLDER = /^(interrupt-budget-\d+|no-turbofan|max-semi-space-size-\d+)$/;
/** A flag folder unused this long (no cache in it written or marked in use) is removed whole. */
const FLAG_FOLDER_UNUSED_MS = 30 * 24 * 3_600_000;

/**
 * A folder of caches made under other V8 flags outlives the flag (another Node version, a build
 * with other flags): when a CLI cache is written, such folders that are not in use by this process
 * and whose newest file is over a month old are removed with their caches. Recent ones stay, so two
 * Node versions that share the cache folder do not delete each other's caches.
 */
function pruneFlagFolders(cacheDir, inUse, now = Date.now()) {
  try {
    for (const f of readdirSync(cacheDir)) {
      const dir = join(cacheDir, f);
      if (!FLAG_FOLDER.test(f) || dir === inUse || !statSync(dir).isDirectory()) continue;
      const newest = Math.max(statSync(dir).mtimeMs, ...readdirSync(dir).map((x) => statSync(join(dir, x)).mtimeMs));
      if (now - newest > FLAG_FOLDER_UNUSED_MS) rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    // another process pruned it first, or the folder cannot be listed: nothing to do
  }
}

/**
 * Documents larger than this (bytes) are analysed in the analysis worker (src/cli/runtime.ts
 * sends inline data over 1,400,000 base64 characters there); smaller ones on the CLI's thread.
 */
const INLINE_MAX_BYTES = 1_050_000;

/**
 * Options of `verity` and of `verify document` that take a value (src/cli/program.ts and
 * src/cli/tree/verify.ts; test/unit/cli/early-start-options.test.ts checks this list against
 * them): their values are not the input file (`verify document --report out.pdf in.pdf`).
 */
const VALUE_OPTIONS = ['--remote', '--key', '--key-file', '--profile', '--source', '--content', '--mime-type', '--fail-on', '--min-trust', '--report'];

/** Options of `verity` and of `verify media` that take a value (checked likewise). */
const MEDIA_VALUE_OPTIONS = ['--remote', '--key', '--key-file', '--profile', '--fail-on', '--min-trust', '--report', '--url', '--file', '--heatmap'];

/** The positional arguments among `args` (option values skipped; everything after `--`). */
function positionals(args, valueOptions = VALUE_OPTIONS) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return out.concat(args.slice(i + 1));
    if (valueOptions.includes(a)) i++;
    else if (!a.startsWith('-') || a === '-') out.push(a);
  }
  return out;
}

/** Whether the config file (src/config/paths.ts) sets a `base_url` in any profile: a cheap, cautious guess. */
function configNamesService() {
  const env = process.env;
  const dir = env.VERITY_HOME || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'verity');
  try {
    return readFileSync(join(dir, 'config.json'), 'utf8').includes('"base_url"');
  } catch {
    return false;
  }
}

/** Whether the config file sets `document.pdf_reader` to `pdfjs` (read as configNamesService reads it). */
function configAsksForPdfJs() {
  const env = process.env;
  const dir = env.VERITY_HOME || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'verity');
  try {
    return /"pdf_reader"\s*:\s*"pdfjs"/.test(readFileSync(join(dir, 'config.json'), 'utf8'));
  } catch {
    return false;
  }
}

/**
 * `verify media FILE` (or `--file FILE`) of a local image: its pixel decode is started now
 * (src/engine/media/early-media.ts), so that libvips decodes while the CLI loads, reads the file
 * and its metadata. The engine uses it only for the same bytes; otherwise it is dropped when the
 * command ends. Not started for a `--test` (sandbox) run, which analyses no pixels, nor where the
 * config names a service (`base_url`: the run may be remote; `--local` says it is not).
 */
async function earlyMedia(allArgs, args, cacheDir) {
  if (allArgs.includes('--test') || args.some((a) => a === '--url' || a.startsWith('--url='))) return {};
  if (!allArgs.includes('--local') && configNamesService()) return {};
  const at = args.indexOf('--file');
  const file = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('--file='))?.slice('--file='.length) ?? positionals(args, MEDIA_VALUE_OPTIONS)[0];
  if (!file || file === '-' || /^https?:\/\//i.test(file)) return {};
  try {
    const { startEarlyMediaDecode, mediaHashWanted } = require('../dist/early-media.cjs');
    // Whether the engine will hash the image (only for a known-media look-up): without the hash a
    // photo larger than the analysed region is decoded only in that region.
    return { media: await startEarlyMediaDecode(resolve(file), cacheDir, mediaHashWanted(allArgs, process.env)) };
  } catch {
    return {};
  }
}

/**
 * Node's built-in modules a PDF's `verify document` run loads after its bundle is compiled: the
 * file's digest and the result's id (crypto), the config and store reads (fs/promises, with the
 * readline modules it loads, and node:fs's stream classes, which an ES-module import of node:fs
 * reads), timings (perf_hooks), the structure's streams measured (zlib), V8's flags and heap
 * figures (v8), the output (process, tty). Node reads each from its own code cache, which V8
 * accepts only under the flags it was made with: once the tiering gate opens
 * (src/engine/document/pdf-tiering.ts) they were compiled from source instead, 17–36 modules and
 * ~6–7 ms of CPU a run (the gate usually opens as this thread arrives, the early thread having
 * arrived first). So they are loaded just before this thread arrives, under V8's defaults: the
 * same modules, read from Node's cache. test/e2e/pdf-thread-late-modules.test.ts checks that no
 * built-in module of either thread is compiled from source in such a run; a module missing here
 * shows there.
 */
const PDF_RUN_BUILTINS = ['node:crypto', 'node:fs/promises', 'node:perf_hooks', 'node:zlib', 'node:v8', 'node:process', 'node:tty'];

function loadPdfRunBuiltins() {
  for (const name of PDF_RUN_BUILTINS) process.getBuiltinModule(name);
  // internal/fs/streams, behind a lazy getter.
  void process.getBuiltinModule('node:fs').ReadStream;
}

/**
 * `verify document FILE` of a local file: what its analysis will start is started now, before
 * the CLI bundle is compiled and has read the file (~0.1 s later), so that its start-up overlaps
 * the CLI's own: pdf.js's extraction thread (src/engine/document/extraction-thread.ts) for a PDF
 * analysed on this thread (which also opens the file ahead of its job), the analysis worker
 * (src/cli/engine-worker-boot.ts) for a document analysed there. A guess from the arguments:
 * what the command does not use (another input, an error) is stopped when it ends, and a remote
 * or sandbox run stops it as soon as the CLI knows (src/cli/runtime.ts).
 */
async function earlyStart(args, cacheDir) {
  const at = args.indexOf('verify');
  const remote = args.some((a) => a === '--remote' || a.startsWith('--remote='));
  if (at >= 0 && args[at + 1] === 'media' && !remote && !process.env.VERITY_BASE_URL) return earlyMedia(args, args.slice(at + 2), cacheDir);
  if (at < 0 || args[at + 1] !== 'document' || remote || args.includes('--content') || process.env.VERITY_BASE_URL) return {};
  for (const arg of positionals(args.slice(at + 2)).slice(0, 3)) {
    let head = '';
    let size = 0;
    try {
      // Only a regular file is opened: opening a named pipe blocks until a writer comes (the CLI
      // itself refuses anything but a regular file), and opening a device can have side effects.
      if (!statSync(arg).isFile()) continue;
      const fd = openSync(arg, 'r');
      try {
        const st = fstatSync(fd);
        if (!st.isFile()) continue;
        size = st.size;
        const b = Buffer.alloc(1024);
        head = b.toString('latin1', 0, readSync(fd, b, 0, 1024, 0));
      } finally {
        closeSync(fd);
      }
    } catch {
      continue;
    }
    try {
      if (size > INLINE_MAX_BYTES) {
        const { startEarlyAnalysisWorker } = await import('../dist/cli/engine-worker-boot.js');
        return { analysisWorker: await startEarlyAnalysisWorker(join(__dirname, '..', 'dist', 'engine-worker.cjs'), cacheDir) };
      }
      // As the engine types it (document/input.ts): a PDF header within the first 1024 bytes.
      if (!head.includes('%PDF-')) continue;
      // One CommonJS file (as for media): no ES module loader reading and linking its modules
      // (and node:fs's ESM facade) before the thread is asked for.
      const { extractionThreadAvailable, startEarlyPdfThread, pdfRunTiering, arriveAtTieringGate, useDefaultFlagsForCodeCaches } = require('../dist/early-pdf.cjs');
      if (!extractionThreadAvailable()) return {};
      // Later optimisation for this run, shared with the thread: V8's flags change only once both
      // threads have started (src/engine/document/pdf-tiering.ts).
      const tiering = pdfRunTiering();
      try {
        // The thread may read this file with pdf.js while the CLI loads and the engine measures
        // it; the engine's verdict and the bytes it reads still decide (extraction-thread-main.ts).
        // It tries the simple-PDF reader first unless the config asks for pdf.js (a cautious
        // guess: the job says it again, src/engine/document/pdf/simple-reading.ts).
        const file = { path: resolve(arg), maxBytes: INLINE_MAX_BYTES, simpleReader: !configAsksForPdfJs() };
        const pdfThread = startEarlyPdfThread(cacheDir, file, tiering);
        if (!pdfThread || !tiering) return { pdfThread };
        useDefaultFlagsForCodeCaches(tiering);
        return {
          pdfThread,
          arriveAtTieringGate: () => {
            loadPdfRunBuiltins();
            arriveAtTieringGate(tiering);
          },
        };
      } catch {
        return {};
      }
    } catch {
      return {};
    }
  }
  return {};
}

module.exports = { runBundle, SERVE_SEMI_SPACE_MB, keepYoungGenerationSmall, OLD_GARBAGE_BYTES, pruneFlagFolders, VALUE_OPTIONS, MEDIA_VALUE_OPTIONS, positionals };
