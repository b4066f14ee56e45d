/**
 * sharp from one CommonJS file with a V8 code cache (../code-cache.ts). sharp's JavaScript is ~70
 * small modules (its own, semver's, detect-libc, @img/colour) that Node resolves, reads and
 * compiles in every process: ~45 ms of a one-shot `verify media`. The build (scripts/build.mjs)
 * bundles them into dist/sharp-<version>.cjs, whose requires of native binaries and platform
 * packages still resolve from the installed sharp. Used only when the installed sharp is that
 * version; otherwise, and under the TypeScript sources (tests), sharp loads from node_modules.
 */
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommonJsWithCodeCache, type CachedCommonJs } from '../code-cache.js';

type Sharp = (typeof import('sharp'))['default'];

/** The folder of the build's bundles (dist/), from this module's place in dist/engine/media/. */
const DIST = new URL('../../', import.meta.url);

/** The loaded bundle, whose cache is saved after the first analysis (so the functions it ran are in it). */
let loaded: CachedCommonJs<Sharp> | undefined;

/** sharp from the build's bundle of the installed sharp version; undefined when there is none. */
export function loadBundledSharp(codeCacheDir: string | undefined): Sharp | undefined {
  if (DIST.protocol !== 'file:') return undefined;
  const dist = fileURLToPath(DIST);
  let version: string;
  try {
    const entry = createRequire(DIST).resolve('sharp');
    version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined; // no sharp installed: loading it the ordinary way gives sharp's own error
  }
  const file = join(dist, `sharp-${version}.cjs`);
  if (!existsSync(file)) return undefined;
  loaded = runCommonJsWithCodeCache<Sharp>(file, codeCacheDir, 'sharp');
  return loaded.exports;
}

/** Writes the code cache when this process had none (or V8 rejected it); then only that cache of sharp stays. */
export function saveBundledSharpCache(): void {
  const cache = loaded;
  loaded = undefined;
  if (!cache?.save() || !cache.cacheFile) return;
  // Those of earlier builds (or another Node version) are dropped.
  const dir = dirname(cache.cacheFile);
  try {
    for (const f of readdirSync(dir))
      if (/^sharp-\d+-\d+-v[\d.]+-\w+\.v8cache$/.test(f) && f !== basename(cache.cacheFile)) unlinkSync(join(dir, f));
  } catch {
    // another process pruned them first
  }
}
