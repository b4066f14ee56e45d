/**
 * Every `verity` command starts by running the CLI bundle's top level, which initialises each
 * module the entry reaches through static imports (lazily `import()`ed ones wait for first use).
 * The result, webhook, batch and request schemas cost ~5-11 ms of CPU a start to build (issue 31)
 * and no command needs them before it runs: the command tree takes its value lists and limits
 * from the zod-free api/enums.ts and api/limits.ts. This walks the same esbuild module graph the
 * build bundles (scripts/build.mjs) and fails when a static import brings one of them back.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The modules reached from `from` through static imports only (import statements, require). */
async function staticallyReached(from: string): Promise<Set<string>> {
  const r = await build({
    entryPoints: [from],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs = r.metafile.inputs;
  const seen = new Set<string>([from]);
  const queue = [from];
  for (let file = queue.pop(); file !== undefined; file = queue.pop())
    for (const i of inputs[file]?.imports ?? [])
      if ((i.kind === 'import-statement' || i.kind === 'require-call') && !i.external && !seen.has(i.path)) {
        seen.add(i.path);
        queue.push(i.path);
      }
  return seen;
}

describe('CLI start-up', () => {
  it('builds none of the result, webhook, batch or request schemas before a command runs', async () => {
    const reached = await staticallyReached('src/cli/main.ts');
    // The walk does see the start-up modules (so the check below can fail).
    expect(reached).toContain('src/api/errors.ts');
    expect(reached).toContain('src/cli/tree/verify.ts');
    expect(reached).toContain('src/cli/tree/listen.ts');
    for (const schemas of ['src/api/results.ts', 'src/api/webhooks.ts', 'src/api/batches.ts', 'src/api/requests.ts'])
      expect(reached, `${schemas} is imported statically from the CLI's start-up`).not.toContain(schemas);
  });
});
