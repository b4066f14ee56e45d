#!/usr/bin/env node
// Entry point: keep this file tiny. `--version` and the top-level help (`--help`, `-h`, `help`,
// no arguments) are answered without loading the CLI at all: the help is the text the CLI itself
// printed at build time (dist/help.txt, scripts/build.mjs), shown only when it is still the text
// the CLI would print (same bundle, an 80-column or non-terminal output). Everything else runs the
// bundled CLI through bin/run-bundle.js (required only then: these answers load nothing else).
// Built-in modules through process.getBuiltinModule, never an ESM `import` (which builds node:fs's
// ESM facade, reading every export and so loading the stream modules behind fs.ReadStream; a
// CommonJS `require` of a built-in builds no facade either).
// CommonJS (bin/package.json), though the package is ES modules: an ES-module entry makes Node
// start its ES module loader before the first line runs, and importing bin/run-bundle.js through
// it cost ~3.3 ms more; together 0.934–0.986× the wall of the commands measured (issue 31, docs/cli.md).
const { readFileSync, statSync } = process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');

/** The build's help text when it is what the CLI would print now; undefined otherwise. */
function prebuiltHelp(args) {
  const asked = args.length === 0 || (args.length === 1 && (args[0] === '--help' || args[0] === '-h' || args[0] === 'help'));
  // commander wraps help at the terminal's width (80 when not a terminal); the file is 80 wide.
  if (!asked || ((process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80) !== 80) return undefined;
  try {
    const text = readFileSync(join(__dirname, '..', 'dist', 'help.txt'), 'utf8');
    const nl = text.indexOf('\n');
    // First line: the size of the bundle that printed it; another bundle may print other help.
    const size = statSync(join(__dirname, '..', 'dist', 'verity.cjs')).size;
    return text.slice(0, nl) === `bundle ${size}` ? text.slice(nl + 1) : undefined;
  } catch {
    return undefined;
  }
}

const args = process.argv.slice(2);
const help = prebuiltHelp(args);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else if (help !== undefined) {
  process.stdout.write(help);
} else {
  // The CLI itself (bin/run-bundle.js): loaded only here, so the answers above import nothing else.
  // A failure here is a bug: it ends the process (exit 1, with its stack) as an uncaught
  // exception, as an ES module's top-level await did. Left as an unhandled rejection it would reach
  // serve's or worker's safety net (src/cli/process-safety-net.ts), which logs a rejection and
  // keeps running: the process could then end with exit 0.
  require('./run-bundle.js').runBundle().catch((err) => process.nextTick(() => {
    throw err;
  }));
}
