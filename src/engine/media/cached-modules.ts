/**
 * The media engine's third-party JavaScript through V8 code caches (../code-cache.ts): Node 20
 * compiles every module from source in every process, and a one-shot `verify media` paid that for
 * sharp and exifr each time.
 *
 * - sharp: its JavaScript is ~70 small modules (its own, semver's, detect-libc, @img/colour) that
 *   Node also resolves and reads one by one (~45 ms per process). The build (scripts/build.mjs)
 *   bundles them into dist/sharp-<version>.cjs, whose requires of native binaries and platform
 *   packages still resolve from the installed sharp. Used only when the installed sharp is that
 *   version; otherwise, and under the TypeScript sources (tests), sharp loads from node_modules.
 * - exifr: one UMD file, run from node_modules itself through the cache (~5 ms less per process).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pruneCodeCaches, runCommonJsWithCodeCache, type CachedCommonJs } from '../code-cache.js';

type Sharp = (typeof import('sharp'))['default'];
type Exifr = (typeof import('exifr'))['default'];

/** The folder of the build's bundles (dist/), from this module's place in dist/engine/media/. */
const DIST = new URL('../../', import.meta.url);

/** The modules loaded through a cache, saved after the first analysis (so the functions it ran are in them). */
const loaded = new Map<string, CachedCommonJs<unknown>>();

/**
 * sharp as loaded by the first caller, process-wide: early-media.ts (its own copy of this module,
 * loaded before the CLI bundle) and the CLI bundle's copy share one load of sharp's bundle.
 */
const SHARED_SHARP = Symbol.for('verity.media.sharp');
const shared = globalThis as { [SHARED_SHARP]?: CachedCommonJs<Sharp> };

/** sharp from the build's bundle of the installed sharp version; undefined when there is none. */
export function loadBundledSharp(codeCacheDir: string | undefined): Sharp | undefined {
  const earlier = shared[SHARED_SHARP];
  if (earlier) {
    // This copy saves the cache after its analysis if the first loader did not (save() runs once).
    loaded.set('sharp', earlier);
    return earlier.exports;
  }
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
  const cached = runCommonJsWithCodeCache<Sharp>(file, codeCacheDir, 'sharp');
  shared[SHARED_SHARP] = cached;
  loaded.set('sharp', cached);
  return cached.exports;
}

/** exifr from its installed file through the cache in `codeCacheDir`; undefined without a folder. */
export function loadCachedExifr(codeCacheDir: string | undefined): Exifr | undefined {
  if (!codeCacheDir) return undefined;
  try {
    const cached = runCommonJsWithCodeCache<Exifr>(createRequire(import.meta.url).resolve('exifr'), codeCacheDir, 'exifr');
    loaded.set('exifr', cached);
    return cached.exports;
  } catch {
    return undefined; // not installed or unreadable: `require` gives its own error
  }
}

/** Writes each cache this process had none of (or V8 rejected); then the newest few of each module stay. */
export function saveMediaModuleCaches(): void {
  for (const [name, cache] of loaded) {
    loaded.delete(name);
    // Those of earlier builds (or another Node version) beyond the newest few are dropped.
    if (cache.save() && cache.cacheFile) pruneCodeCaches(cache.cacheFile, name);
  }
}
