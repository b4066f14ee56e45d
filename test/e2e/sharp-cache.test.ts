/**
 * The built media engine loads sharp's JavaScript from the build's bundle (dist/sharp-<version>.cjs)
 * and exifr from its installed file, each through a V8 code cache (src/engine/media/cached-modules.ts),
 * with sharp's native binary still loaded from the installed package. The result must be the one sharp from node_modules gives:
 * uncached, cached, and in a copy of the build without the bundle.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const strip = (s: string): unknown => {
  const { id: _id, latency_ms: _l, ...rest } = JSON.parse(s) as Record<string, unknown>;
  return rest;
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('sharp through the build bundle, exifr from its file, both through code caches', () => {
  it('a photo: same result uncached, cached, and without the bundle; the cache is written once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-sharp-'));
    dirs.push(dir);
    const file = join(dir, 'photo.jpg');
    const jpeg = await sharp({ create: { width: 900, height: 640, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
      .jpeg({ quality: 88 })
      .toBuffer();
    writeFileSync(file, jpeg);

    const root = inject('verityRoot');
    expect(readdirSync(join(root, 'dist')).filter((f) => /^sharp-\d+\.\d+\.\d+.*\.cjs$/.test(f))).toHaveLength(1);
    const home = newHome();
    dirs.push(home);
    const first = await verity(['verify', 'media', file, '--json'], { home, cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const caches = (): string[] => readdirSync(join(home, 'cache')).filter((f) => /^(sharp|exifr)-/.test(f));
    expect(caches().map((f) => f.split('-')[0]).sort()).toEqual(['exifr', 'sharp']);
    const second = await verity(['verify', 'media', file, '--json'], { home, cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    expect(strip(second.stdout)).toEqual(strip(first.stdout));
    expect(caches()).toHaveLength(2);

    // The same build without the bundle: sharp from node_modules.
    const plain = mkdtempSync(join(tmpdir(), 'verity-e2e-plain-'));
    dirs.push(plain);
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(root, part), join(plain, part), { recursive: true });
    for (const f of readdirSync(join(plain, 'dist'))) if (/^sharp-.*\.cjs$/.test(f)) rmSync(join(plain, 'dist', f));
    symlinkSync(join(root, 'node_modules'), join(plain, 'node_modules'), 'dir');
    const home2 = newHome();
    dirs.push(home2);
    const r = await execa(process.execPath, [join(plain, 'bin', 'verity.js'), 'verify', 'media', file, '--json'], {
      env: { PATH: process.env.PATH ?? '', VERITY_HOME: home2 },
      extendEnv: false,
      reject: false,
      cwd: dir,
      timeout: 25_000,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(strip(String(r.stdout))).toEqual(strip(first.stdout));
    expect(readdirSync(join(home2, 'cache')).filter((f) => f.startsWith('sharp-'))).toHaveLength(0);
    const m = strip(first.stdout) as { metadata: { width: number; exif: { make: string } }; dimension_producers: { llm_analysis: string } };
    expect(m.metadata).toMatchObject({ width: 900, exif: { make: 'Canon' } });
    expect(m.dimension_producers.llm_analysis).toBe('pixel forensics and metadata');
  });
});
