#!/usr/bin/env node
// Entry point: keep this file tiny. `--version` is answered without loading the CLI at all.
import module from 'node:module';

if (typeof module.enableCompileCache === 'function') module.enableCompileCache();

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = await import('node:fs');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const { main } = await import('../dist/cli/main.js');
  await main(process.argv);
}
