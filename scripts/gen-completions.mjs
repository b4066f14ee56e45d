// Writes completions/verity.{bash,zsh,fish} from the BUILT command tree (run `npm run build`
// first, or `npm run completions`). `--check` writes nothing and exits 1 when a file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';

const { buildProgram } = await import('../dist/cli/program.js');
const { completionScript, SHELLS } = await import('../dist/cli/completion/index.js');
const { resolvePaths } = await import('../dist/config/paths.js');

// A context that touches nothing: the tree is only walked, never run.
const sink = new PassThrough();
const ctx = {
  stdin: new PassThrough(),
  stdout: sink,
  stderr: sink,
  env: {},
  cwd: process.cwd(),
  clock: { now: () => new Date(0) },
  paths: resolvePaths({ VERITY_HOME: '/nonexistent' }),
  isInteractive: () => false,
  interrupted: new AbortController().signal,
};

const check = process.argv.includes('--check');
let stale = 0;
for (const shell of SHELLS) {
  const file = new URL(`../completions/verity.${shell}`, import.meta.url);
  const text = completionScript(buildProgram(ctx), shell);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {}
  if (current === text) {
    console.log(`completions/verity.${shell}: up to date`);
  } else if (check) {
    console.log(`completions/verity.${shell}: STALE (run npm run completions)`);
    stale++;
  } else {
    writeFileSync(file, text);
    console.log(`completions/verity.${shell}: written`);
  }
}
process.exit(stale ? 1 : 0);
