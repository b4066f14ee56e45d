// Build: compile src/ to dist/ with tsc. Emits even when another module has a type error
// (`npm run typecheck` is the gate), so one broken file never blocks running the CLI.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
