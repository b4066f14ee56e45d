#!/usr/bin/env node
// Entry point: keep this file tiny. `--version` and the top-level help (`--help`, `-h`, `help`,
// no arguments) are answered without loading the CLI at all: the help is the text the CLI itself
// printed at build time (dist/help.txt, scripts/build.mjs), shown only when it is still the text
// the CLI would print (same bundle, an 80-column or non-terminal output). Everything else runs the
// bundled CLI (dist/verity.cjs) through a V8 code cache, because Node 20 has no module compile
// cache (module.enableCompileCache arrived in Node 22.1).
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** The build's help text when it is what the CLI would print now; undefined otherwise. */
function prebuiltHelp(args) {
  const asked = args.length === 0 || (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help'));
  // commander wraps help at the terminal's width (80 when not a terminal); the file is 80 wide.
  if (!asked || ((process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80) !== 80) return undefined;
  try {
    const text = readFileSync(new URL('../dist/help.txt', import.meta.url), 'utf8');
    const nl = text.indexOf('\n');
    // First line: the size of the bundle that printed it; another bundle may print other help.
    const size = statSync(new URL('../dist/verity.cjs', import.meta.url)).size;
    return text.slice(0, nl) === `bundle ${size}` ? text.slice(nl + 1) : undefined;
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const help = prebuiltHelp(args);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else if (help !== undefined) {
  process.stdout.write(help);
} else {
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
