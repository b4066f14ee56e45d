/**
 * Every package `src/` imports is one package.json declares as a dependency: a package that only
 * arrives inside another (pdfjs-dist inside pdf-parse, once) breaks every install the day that
 * other package changes (issue 32).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* tsFiles(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** `pdfjs-dist/legacy/build/pdf.min.mjs` → `pdfjs-dist`; `@scope/x/y` → `@scope/x`. */
const packageOf = (spec: string): string => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');

function importedPackages(): Map<string, string> {
  const found = new Map<string, string>();
  const builtins = new Set(builtinModules);
  const re = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|^\s*import\s+)['"]([^'"./][^'"]*)['"]/gm;
  for (const file of tsFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(re)) {
      const spec = m[1]!;
      // A package name (npm's rules), not prose that happens to follow "from '".
      if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]+)?$/.test(spec)) continue;
      if (spec.startsWith('node:') || builtins.has(packageOf(spec))) continue;
      found.set(packageOf(spec), file.slice(root.length));
    }
  }
  return found;
}

describe('declared dependencies', () => {
  it('every package src/ imports is a runtime dependency in package.json', () => {
    const imported = importedPackages();
    expect(imported.has('pdfjs-dist')).toBe(true); // the scan sees subpath imports
    const missing = [...imported].filter(([name]) => !(name in pkg.dependencies)).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('pdfjs-dist is pinned exactly (the build patches its code), and pdf-parse is gone', () => {
    expect(pkg.dependencies['pdfjs-dist']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies['pdf-parse']).toBeUndefined();
    expect(pkg.devDependencies['pdf-parse']).toBeUndefined();
  });

  it('every package the build bundles into dist/ is pinned exactly (what ships is what was tested)', () => {
    const build = readFileSync(join(root, 'scripts', 'build.mjs'), 'utf8');
    const names = (re: RegExp): string[] => [...(re.exec(build)?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]!);
    const external = names(/const external = \[([\s\S]*?)\];/);
    const workerBundles = names(/const WORKER_BUNDLES = \[([^\]]*)\]/);
    expect(external.length).toBeGreaterThan(10);
    const bundled = [...Object.keys(pkg.dependencies).filter((d) => !external.includes(d)), ...workerBundles, 'pdfjs-dist'];
    expect(bundled).toContain('zod');
    const loose = bundled.filter((d) => !/^\d+\.\d+\.\d+$/.test(pkg.dependencies[d] ?? '')).map((d) => `${d}@${pkg.dependencies[d]}`);
    expect(loose).toEqual([]);
  });
});
