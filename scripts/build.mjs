// Build, in two outputs:
//  1. tsc compiles src/ to dist/ (modules for benchmarks, scripts and library use). It emits even
//     when a module has a type error; `npm run typecheck` is the gate for those.
//  2. esbuild bundles the CLI into one CommonJS file, dist/verity.cjs, that bin/verity.js runs with
//     a V8 code cache. Node 20 has no module compile cache, and loading ~150 small ES modules (95 of
//     them zod's) cost 4-7x bare `node` at start-up; one cached script costs under 3x.
//     Packages with native code, WebAssembly or worker files stay external and load lazily.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
// tsc exits 2 when it reported type errors but still wrote the output (1: nothing written).
if (r.status === 2) console.error('build: dist/ written despite the type errors above (npm run typecheck reports them)');
else if (r.status !== 0) process.exit(r.status ?? 1);

const srcDir = fileURLToPath(new URL('../src', import.meta.url));
const external = [
  'better-sqlite3', 'sharp', '@contentauth/c2pa-wasm', 'pdfjs-dist', 'fastify', 'pino', 'saxes', 'dingbat-to-unicode',
  'jszip', 'exifr', 'file-type', 'undici', 'conf', 'ora', '@inquirer/prompts', 'csv-parse', 'fast-xml-parser', 'pdf-lib',
  'onnxruntime-node', '@huggingface/tokenizers',
  // The PostgreSQL driver: loaded only by `serve` / `worker` / `admin` with a postgres:// --db.
  'postgres',
  // Large and needed by few commands (document signatures; claim stemming, stop words and
  // registrable domains; the webhook address guard): bundled, they tripled the bundle that every
  // start reads (0.9 → 2.5 MB). External, they load from node_modules when first imported.
  'pkijs', 'asn1js', 'xml-crypto', '@xmldom/xmldom', '@orama/stemmers', '@orama/stopwords', 'tldts', 'ipaddr.js',
];
/** Packages bundled into the analysis worker only (see below). */
const WORKER_BUNDLES = ['saxes', 'dingbat-to-unicode', 'jszip', 'exifr', 'file-type'];
const bundles = [
  // The CLI.
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/verity.cjs' },
  // The embedded media/document analysis worker (src/cli/engine-worker.ts): one file to parse
  // instead of the engine's ~200 ES modules, which cost a worker ~0.4 s per verification.
  // Unlike the CLI it bundles the pure-JavaScript packages of the document and image analysis it
  // always loads (the DOCX package, its XML parser, EXIF, file typing): started through a V8 code
  // cache, the worker then compiles none of them from source (~60–80 ms of a large DOCX's critical
  // path); in the CLI they would grow the bundle every command reads.
  { entryPoints: ['src/cli/engine-worker.ts'], outfile: 'dist/engine-worker.cjs', external: external.filter((p) => !WORKER_BUNDLES.includes(p)) },
  // The PDF extraction thread (src/engine/document/extraction-thread-main.ts): as one CommonJS
  // file the thread starts without Node's ES module loader reading and linking its modules one by
  // one (its start-up is on a PDF's critical path).
  { entryPoints: ['src/engine/document/extraction-thread-main.ts'], outfile: 'dist/extraction-thread.cjs' },
  // The simple-PDF reader for that thread (src/engine/document/pdf/simple-bundle.ts), loaded
  // through a V8 code cache before the thread reads a simple PDF ahead.
  { entryPoints: ['src/engine/document/pdf/simple-pdf-entry.ts'], outfile: 'dist/simple-pdf.cjs' },
  // `verify media`'s early decode (src/engine/media/early-media.ts), which bin/run-bundle.js loads
  // before the CLI: one small CommonJS file (~2 ms less than the same modules through Node's ES
  // module loader, on the path to the decode's start).
  { entryPoints: ['src/engine/media/early-media.ts'], outfile: 'dist/early-media.cjs' },
  // `verify document`'s early PDF thread (src/engine/document/extraction-thread.ts), likewise: the
  // thread is asked for sooner, and everything after it on a small PDF's critical path with it.
  { entryPoints: ['src/engine/document/extraction-thread.ts'], outfile: 'dist/early-pdf.cjs' },
];
for (const entry of bundles) await build({
  ...entry,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: entry.external ?? external,
  // Less source to read and hash on every start; identifiers stay, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: {
    js:
      // A bundled module that locates files next to itself (worker entries, createRequire) sees the
      // URL of its own tsc output in dist/, which exists beside the bundle.
      "const __verity_module_url = (rel) => require('node:url').pathToFileURL(require('node:path').join(__dirname, rel)).href;\n" +
      // bin/verity.js provides the loader for lazy imports; see the rewrite below.
      'const __verity_import = globalThis.__verity_import ?? ((specifier) => import(specifier));',
  },
  plugins: [
    {
      name: 'module-urls',
      setup(b) {
        b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (a) => {
          const text = await readFile(a.path, 'utf8');
          if (!text.includes('import.meta.url')) return undefined;
          const rel = relative(srcDir, a.path).replace(/\\/g, '/').replace(/\.ts$/, '.js');
          return { contents: text.replaceAll('import.meta.url', `__verity_module_url(${JSON.stringify(rel)})`), loader: 'ts' };
        });
      },
    },
    {
      // commander requires node:child_process at load, for executable subcommands, which verity
      // does not use: child_process brings dgram, the DNS resolver and their internals, 1–5 ms of
      // every start on this machine. Here it is required on first use instead; the build fails if
      // commander's code no longer has that shape.
      name: 'commander-lazy-child-process',
      setup(b) {
        b.onLoad({ filter: /[\\/]node_modules[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (a) => {
          const text = await readFile(a.path, 'utf8');
          const eager = "const childProcess = require('node:child_process');";
          if (text.split(eager).length !== 2 || (text.match(/childProcess\b/g) ?? []).length !== (text.match(/childProcess\.spawn\(/g) ?? []).length + 1)
            throw new Error(`commander's require of node:child_process is not where the build expects it (${a.path}): update the commander-lazy-child-process plugin in scripts/build.mjs`);
          return { contents: text.replace(eager, "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };"), loader: 'js' };
        });
      },
    },
    {
      // zod re-exports all ~50 locale modules as `z.locales`; verity uses only the default English
      // messages, which zod imports separately, so the namespace is left empty in the bundle.
      name: 'omit-zod-locales',
      setup(b) {
        b.onResolve({ filter: /locales\/index\.js$/ }, (a) => (a.importer.includes('/zod/') ? { path: 'zod-locales', namespace: 'omit' } : undefined));
        b.onLoad({ filter: /.*/, namespace: 'omit' }, () => ({ contents: 'export {}', loader: 'js' }));
      },
    },
  ],
});

// `verity/webhooks` (src/webhooks-verify, package.json "exports"): the apps' verifier as its own
// entry — ES module, CommonJS and types — built from that one file. It is dependency-free by
// design: the build fails if anything but node:crypto would be bundled or required.
{
  const entry = 'src/webhooks-verify/index.ts';
  for (const [format, outfile] of [['esm', 'dist/webhooks.mjs'], ['cjs', 'dist/webhooks.cjs']]) {
    const r = await build({ entryPoints: [entry], outfile, bundle: true, format, platform: 'node', target: 'node20.19', legalComments: 'none', logLevel: 'warning', metafile: true });
    const inputs = Object.keys(r.metafile.inputs);
    const imports = Object.values(r.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    if (inputs.length !== 1 || imports.some((p) => p !== 'node:crypto')) {
      console.error(`build: ${outfile} must be built from ${entry} alone and import only node:crypto; it has ${[...inputs, ...imports].join(', ')}`);
      process.exit(1);
    }
  }
  const { mkdtempSync, copyFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const out = mkdtempSync(`${tmpdir()}/verity-dts-`);
  const d = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '--ignoreConfig', entry, '--declaration', '--emitDeclarationOnly', '--outDir', out,
    '--target', 'es2023', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--skipLibCheck', '--strict'], { stdio: 'inherit' });
  if (d.status !== 0) process.exit(d.status ?? 1);
  // The same declarations for both conditions (TypeScript reads .d.mts for import, .d.cts for require).
  copyFileSync(`${out}/index.d.ts`, 'dist/webhooks.d.mts');
  copyFileSync(`${out}/index.d.ts`, 'dist/webhooks.d.cts');
  rmSync(out, { recursive: true, force: true });
}

// Functions restored from a V8 code cache lose vm's dynamic-import hook
// (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so the lazy `import("pkg")` calls that esbuild leaves
// for external packages go through a loader that bin/verity.js defines as an ordinary ES module.
for (const { outfile } of bundles) {
  const bundle = readFileSync(outfile, 'utf8');
  const rewritten = bundle.replace(/\bimport\(("(?:node:[a-z_/]+|@?[a-z0-9][a-z0-9._/-]*)")\)/g, '__verity_import($1)');
  writeFileSync(outfile, rewritten);
}

// Four changes to the bundled pdf.js (dist/pdfjs.cjs, which verity uses for text and metadata only);
// the build fails if pdf.js's code no longer has the expected shape (a pdfjs-dist upgrade) rather
// than bundling it unpatched:
// - its FlateStream tries node:zlib before its own JavaScript decoder: one call at the start of
//   FlateStream.readBlock (src/engine/document/pdf/native-flate.ts says when zlib's output is used
//   and why it is the same);
// - its API half, loading in Node, gets DOMMatrix from @napi-rs/canvas's pure-JavaScript
//   geometry module and ImageData/Path2D on first use, instead of requiring the package (and its
//   native binding) at once (src/engine/document/pdf/canvas-for-text.ts);
// - its DecodeStream.ensureBuffer refuses to grow a decoder's output past the decompression caps
//   (src/engine/document/pdf/decode-cap.ts: streams the structure reader could not measure);
// - its Catalog.getPageDict marks its prefetch of the top-level page-tree kids as handled (a failed
//   fetch nobody awaits is otherwise an unhandled rejection, which ends the extraction thread).
const pdfjsPatches = {
  name: 'pdfjs-patches',
  setup(b) {
    const helper = (file) => JSON.stringify(fileURLToPath(new URL(`../src/engine/document/pdf/${file}`, import.meta.url)));
    const fail = (path, what) => {
      throw new Error(`pdf.js's ${what} is not where the build expects it (${path}): update the patch in scripts/build.mjs`);
    };
    b.onLoad({ filter: /pdfjs-dist[\\/]legacy[\\/]build[\\/]pdf\.worker\.min\.mjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const head = 'readBlock(){let e,t,r;const a=this.str;try{t=this.getBits(3)}';
      const at = source.indexOf(head);
      if (at < 0 || source.indexOf(head, at + 1) >= 0 || source.lastIndexOf('class FlateStream extends DecodeStream{', at) < 0 || !source.includes('class Stream extends BaseStream{'))
        fail(args.path, 'FlateStream.readBlock');
      let patched = `${source.slice(0, at)}readBlock(){if(this.__verityNative===void 0&&(this.__verityNative=__verity_inflateWholeStream(this,Stream)))return;${source.slice(at + 'readBlock(){'.length)}`;
      // DecodeStream.ensureBuffer: `ensureBuffer(e){const t=this.buffer;if(e<=t.byteLength)return t;…`
      const grow = [...patched.matchAll(/ensureBuffer\((\w+)\)\{const (\w+)=this\.buffer;if\(\1<=\2\.byteLength\)return \2;/g)];
      if (grow.length !== 1 || patched.lastIndexOf('class DecodeStream extends BaseStream{', grow[0].index) < 0) fail(args.path, 'DecodeStream.ensureBuffer');
      const [whole, requested] = grow[0];
      patched = `${patched.slice(0, grow[0].index)}${whole}__verity_checkDecodeSize(this,${requested});${patched.slice(grow[0].index + whole.length)}`;
      // Catalog.getPageDict prefetches every kid of the top-level /Pages node into pageDictCache:
      // `a===this.toplevelPagesDict&&r instanceof Ref&&!o.has(r)&&o.put(r,n.fetchAsync(r))`. A
      // kid the walk never reaches (a /Count smaller than its /Kids, or the page sought found
      // first) is never awaited, so a failed fetch (a bad cross-reference offset) was an unhandled
      // rejection: on the extraction thread Node's default ends the thread, and the reading of a
      // file whose first page reads fine failed, or not, depending on timing (docs/document.md
      // "Hostile input"). The prefetch is marked handled; a walk that reaches the kid still
      // awaits the cached promise and sees its failure as before.
      const prefetch = [...patched.matchAll(/(\w+)===this\.toplevelPagesDict&&(\w+) instanceof Ref&&!(\w+)\.has\(\2\)&&\3\.put\(\2,(\w+)\.fetchAsync\(\2\)\)/g)];
      const getPageDict = prefetch.length === 1 ? patched.lastIndexOf('async getPageDict(', prefetch[0].index) : -1;
      if (getPageDict < 0 || patched.indexOf('async getAllPageDicts(', getPageDict) < prefetch[0].index || !/=this\.pageDictCache[;,]/.test(patched.slice(getPageDict, prefetch[0].index)))
        fail(args.path, "Catalog.getPageDict's prefetch of the top-level kids");
      {
        const [whole, , kid, cache, xref] = prefetch[0];
        const handled = whole.replace(`${cache}.put(${kid},${xref}.fetchAsync(${kid}))`, `${cache}.put(${kid},__verity_handled(${xref}.fetchAsync(${kid})))`);
        patched = `${patched.slice(0, prefetch[0].index)}${handled}${patched.slice(prefetch[0].index + whole.length)}`;
      }
      return {
        contents:
          `import { inflateWholeStream as __verity_inflateWholeStream } from ${helper('native-flate.ts')};\nimport { checkDecodeSize as __verity_checkDecodeSize } from ${helper('decode-cap.ts')};\n` +
          `const __verity_handled = (p) => (p.catch(() => undefined), p);\n${patched}`,
        loader: 'js',
      };
    });
    b.onLoad({ filter: /pdfjs-dist[\\/]legacy[\\/]build[\\/]pdf\.min\.mjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      // The polyfill block: `try{t=e("@napi-rs/canvas")}catch(t){warn(`Cannot load "@napi-rs/canvas" …`
      const load = /try\{(\w+)=(\w+)\("@napi-rs\/canvas"\)\}catch\(\w+\)\{warn\(`Cannot load "@napi-rs\/canvas" package/g;
      const found = [...source.matchAll(load)];
      if (found.length !== 1 || !source.includes('globalThis.DOMMatrix||(')) fail(args.path, 'load-time require of @napi-rs/canvas');
      const [whole, target, req] = found[0];
      const patched = source.replace(whole, whole.replace(`${target}=${req}("@napi-rs/canvas")`, `${target}=__verity_canvasForText(${req})`));
      return { contents: `import { canvasForText as __verity_canvasForText } from ${helper('canvas-for-text.ts')};\n${patched}`, loader: 'js' };
    });
  },
};

// pdf.js (two ES modules, 1.5 MB) as one CommonJS file, which the PDF extraction thread compiles
// through a V8 code cache (src/engine/document/pdf/pdfjs-bundle.ts): Node 20 compiles ES modules
// from source in every process. `import.meta.url` (pdf.js resolves @napi-rs/canvas from it) is the
// installed pdf.js module's URL, found at run time.
await build({
  stdin: {
    contents: "export * as api from 'pdfjs-dist/legacy/build/pdf.min.mjs';\nexport * as worker from 'pdfjs-dist/legacy/build/pdf.worker.min.mjs';\n",
    resolveDir: fileURLToPath(new URL('..', import.meta.url)),
    loader: 'js',
  },
  outfile: 'dist/pdfjs.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: ['@napi-rs/canvas'],
  define: { 'import.meta.url': '__pdfjs_module_url' },
  banner: { js: "'use strict';\nconst __pdfjs_module_url = require('node:url').pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.min.mjs')).href;" },
  plugins: [pdfjsPatches],
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
});

/**
 * Four requires in sharp's JavaScript run at load for what only some calls use: @img/colour (a
 * colour parser, ~3–6 ms of set-up in every `verify media`) for a background or tint option,
 * child_process (with dgram and the DNS resolver) for the build-time and macOS probes of
 * libvips.cjs and for detect-libc's fallback command (it reads the C library from the file system
 * first), and node:crypto (~2 ms to load in a fresh process, on the path to `verify media`'s early
 * decode) for libvips.cjs's build-time integrity check. In the bundle each is required on first
 * use instead (esbuild's wrapped modules initialise at their first require). The build fails if
 * the code no longer has that shape.
 */
function sharpLoadsOnUse(path, text) {
  const lazy = {
    'colour.cjs': [["const color = require('@img/colour');", "const color = (...a) => require('@img/colour')(...a);", /\bcolor\b/g, 4]],
    'libvips.cjs': [
      ["const { spawnSync } = require('node:child_process');", "const spawnSync = (...a) => require('node:child_process').spawnSync(...a);", /\bspawnSync\(/g, 5],
      ["const { createHash } = require('node:crypto');", "const createHash = (...a) => require('node:crypto').createHash(...a);", /\bcreateHash\b/g, 2],
    ],
    'detect-libc.js': [["const childProcess = require('child_process');", "const childProcess = { exec: (...a) => require('child_process').exec(...a), execSync: (...a) => require('child_process').execSync(...a) };", /\bchildProcess\b/g, 3]],
  }[path.split(/[\\/]/).pop()];
  for (const [eager, onUse, uses, count] of lazy ?? []) {
    // The eager require once, and the name's uses as counted in sharp 0.35.5 (comments included):
    // a new use, perhaps not a call, fails the build.
    if (text.split(eager).length !== 2 || (text.match(uses) ?? []).length !== count)
      throw new Error(`sharp's ${eager} is not where the build expects it (${path}): update sharpLoadsOnUse in scripts/build.mjs`);
    text = text.replace(eager, onUse);
  }
  return text;
}

// sharp's JavaScript (its ~14 modules, semver's ~50, detect-libc, @img/colour) as one CommonJS
// file that the media engine runs through a V8 code cache (src/engine/media/cached-modules.ts):
// loading them from node_modules cost ~45 ms of module resolution and compiling per process.
// sharp's own docs ask bundlers to leave sharp external because of its native files; here they
// stay outside: every require of a native binary, of a platform package or of sharp's
// package.json goes through a require rooted at the installed sharp (`__sharp_require`), so it
// loads what `require('sharp')` would. The file is named for the sharp version it was built from
// (dist/sharp-0.35.5.cjs): the loader uses it only when that is the installed version.
{
  const sharpVersion = JSON.parse(readFileSync(new URL('../node_modules/sharp/package.json', import.meta.url), 'utf8')).version;
  await build({
    stdin: {
      contents: "module.exports = require('sharp');",
      resolveDir: fileURLToPath(new URL('..', import.meta.url)),
      loader: 'js',
    },
    outfile: `dist/sharp-${sharpVersion}.cjs`,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: "'use strict';\nconst __sharp_require = require('node:module').createRequire(require.resolve('sharp'));" },
    plugins: [
      {
        name: 'sharp-native-outside',
        setup(b) {
          b.onLoad({ filter: /[\\/]node_modules[\\/]sharp[\\/]dist[\\/][^\\/]+\.cjs$/ }, async (a) => {
            const text = await readFile(a.path, 'utf8');
            const native = /\brequire\((`(?:\.\.\/src\/build\/|@img\/sharp-)[^`]*`|"(?:@img\/sharp-|\.\.\/package\.json)[^"]*"|'(?:@img\/sharp-|\.\.\/package\.json)[^']*')\)/g;
            return { contents: sharpLoadsOnUse(a.path, text).replace(native, '__sharp_require($1)'), loader: 'js' };
          });
          b.onLoad({ filter: /[\\/]node_modules[\\/]detect-libc[\\/]lib[\\/]detect-libc\.js$/ }, async (a) => ({ contents: sharpLoadsOnUse(a.path, await readFile(a.path, 'utf8')), loader: 'js' }));
        },
      },
    ],
  });
  const out = readFileSync(`dist/sharp-${sharpVersion}.cjs`, 'utf8');
  // A require esbuild resolved into the bundle instead of leaving outside would load the wrong file.
  if (/(?<![\w$])require\(["'`](?:@img\/sharp-|\.\.\/)/.test(out) || !out.includes('__sharp_require(')) {
    console.error('build: the sharp bundle has requires of native or package files that do not go through __sharp_require');
    process.exit(1);
  }
}

// The top-level help, printed once by the CLI just built (stdout not a terminal: 80 columns), for
// bin/verity.js to show without loading the bundle. The first line names the bundle's size so a
// later, different bundle is never answered with this text.
{
  const { mkdtempSync, statSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const home = mkdtempSync(`${tmpdir()}/verity-build-`);
  const h = spawnSync(process.execPath, ['bin/verity.js', '--help'], { encoding: 'utf8', env: { ...process.env, VERITY_HOME: home } });
  rmSync(home, { recursive: true, force: true });
  if (h.status !== 0 || !h.stdout.startsWith('Usage: verity')) {
    console.error(`build: the CLI's --help failed (exit ${h.status}): ${h.stderr}`);
    process.exit(1);
  }
  writeFileSync('dist/help.txt', `bundle ${statSync('dist/verity.cjs').size}\n${h.stdout}`);
}
