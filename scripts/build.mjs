// Build: compile src/ to dist/ with tsc. Emits even when another module has a type error
// (`npm run typecheck` is the gate), so one broken file never blocks running the CLI.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
// tsc exits 2 when it reported type errors but still wrote the output (1: nothing written).
// The build succeeded then; `npm run typecheck` is where type errors fail the run.
if (r.status === 2) console.error('build: dist/ written despite the type errors above (npm run typecheck reports them)');
process.exit(r.status === 2 ? 0 : (r.status ?? 1));
