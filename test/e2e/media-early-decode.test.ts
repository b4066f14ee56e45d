/**
 * `verify media FILE` starts the image's decode before the CLI loads (bin/run-bundle.js,
 * src/engine/media/early-media.ts): the result must be the one the ordinary path gives (stdin,
 * which starts nothing early), and the early decode must actually be what the engine used.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const DEBUG = { VERITY_DEBUG_EARLY_MEDIA: '1' };
const strip = (s: string): unknown => {
  const { id: _id, latency_ms: _l, ...rest } = JSON.parse(s) as Record<string, unknown>;
  return rest;
};
const earlyState = (stderr: string): string | undefined => /verity-debug early-media (\w+)/.exec(stderr)?.[1];
/** Whether the plane's arrival stopped V8's incremental marking (src/engine/media/plane-gc.ts). */
const markingStopped = (stderr: string): boolean => /verity-debug early-media \w+ no-incremental-marking/.test(stderr);

describe('verify media: the decode started while the CLI loads', () => {
  it('a JPEG and a PNG by path or --file: the early decode is used, and the result is the one stdin gives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-early-media-'));
    dirs.push(dir);
    const photo = sharp({ create: { width: 1200, height: 800, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
      .blur(1.2)
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } });
    const files = { 'photo.jpg': await photo.clone().jpeg({ quality: 90 }).toBuffer(), 'photo.png': await photo.clone().png().toBuffer() };
    const home = newHome();
    for (const [name, bytes] of Object.entries(files)) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const byPath = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
      expect(byPath.code, byPath.stderr).toBe(0);
      expect(earlyState(byPath.stderr)).toBe('taken');
      expect(markingStopped(byPath.stderr)).toBe(false); // 1 MP: V8's defaults
      const byFlag = await verity(['verify', 'media', '--file', name, '--json'], { home, cwd: dir, env: DEBUG });
      expect(earlyState(byFlag.stderr)).toBe('taken');
      const stdin = await verity(['verify', 'media', '-', '--json'], { home, cwd: dir, input: bytes, env: DEBUG });
      expect(stdin.code, stdin.stderr).toBe(0);
      expect(earlyState(stdin.stderr)).toBeUndefined();
      expect(strip(byPath.stdout)).toEqual(strip(stdin.stdout));
      expect(strip(byFlag.stdout)).toEqual(strip(stdin.stdout));
    }
  }, 60_000);

  it('a photo wider than 4096 pixels: without an index only the analysed region is decoded, with one the hash finds a resized copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-early-media-'));
    dirs.push(dir);
    // A small random scene enlarged: smooth shapes, as a photo's, that survive resizing in the hash.
    const small = await sharp({ create: { width: 55, height: 30, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).raw().toBuffer();
    const bytes = await sharp(small, { raw: { width: 55, height: 30, channels: 3 } })
      .resize(4400, 2400, { kernel: 'cubic' })
      .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const path = join(dir, 'wide.jpg');
    writeFileSync(path, bytes);
    const home = newHome();
    // No store: no hash; the early decode (the crop alone) is used, and the result is stdin's.
    const byPath = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
    expect(byPath.code, byPath.stderr).toBe(0);
    expect(earlyState(byPath.stderr)).toBe('taken');
    expect(markingStopped(byPath.stderr)).toBe(true); // a 4096×2400 plane: 9.8 MP
    const stdin = await verity(['verify', 'media', '-', '--json'], { home, cwd: dir, input: bytes, env: DEBUG });
    expect(stdin.code, stdin.stderr).toBe(0);
    expect(strip(byPath.stdout)).toEqual(strip(stdin.stdout));
    // An index holding a resized copy: the early decode keeps the whole plane, whose hash finds it.
    const copy = join(dir, 'copy.jpg');
    writeFileSync(copy, await sharp(bytes).resize(1100).jpeg({ quality: 80 }).toBuffer());
    const add = await verity(['media', 'index', 'add', copy, '--source', 'agency', '--url', 'https://example.org/wide', '--seen', '2025-06-01'], { home, cwd: dir });
    expect(add.code, add.stderr).toBe(0);
    const indexed = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
    expect(indexed.code, indexed.stderr).toBe(0);
    expect(earlyState(indexed.stderr)).toBe('taken');
    expect((JSON.parse(indexed.stdout) as { provenance_source: unknown }).provenance_source).toBe('agency');
    // Without provenance, nothing is looked up.
    const noProvenance = await verity(['verify', 'media', path, '--no-check-provenance', '--json'], { home, cwd: dir, env: DEBUG });
    expect(noProvenance.code, noProvenance.stderr).toBe(0);
    expect((JSON.parse(noProvenance.stdout) as { provenance: unknown[] }).provenance).toEqual([]);
  }, 60_000);

  it("a large photo run without incremental marking still reads and writes the code caches under V8's defaults", async () => {
    // V8 rejects a code cache made under other flags: a cache written after the flag changed (the
    // CLI's own, at exit) would be rejected by the next run, and written again by every run.
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-early-media-'));
    dirs.push(dir);
    const path = join(dir, 'large.jpg');
    writeFileSync(
      path,
      await sharp({ create: { width: 4000, height: 2400, channels: 3, background: { r: 90, g: 120, b: 160 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
        .withExif({ IFD0: { Make: 'Canon', Model: 'Canon EOS R5' } })
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
    const home = newHome();
    const caches = (): Record<string, number> =>
      Object.fromEntries(readdirSync(join(home, 'cache')).map((f) => [f, statSync(join(home, 'cache', f)).mtimeMs]));
    const first = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
    expect(first.code, first.stderr).toBe(0);
    expect(markingStopped(first.stderr)).toBe(true);
    const written = caches();
    expect(Object.keys(written).some((f) => f.startsWith('cli-'))).toBe(true);
    expect(Object.keys(written).some((f) => f.startsWith('sharp-'))).toBe(true);
    for (let i = 0; i < 2; i++) {
      const again = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
      expect(again.code, again.stderr).toBe(0);
      expect(markingStopped(again.stderr)).toBe(true);
      expect(strip(again.stdout)).toEqual(strip(first.stdout));
      // Every cache was accepted: none written again.
      expect(caches()).toEqual(written);
    }
  }, 60_000);

  it('nothing is started for a sandbox run, a profile that names a service (unless --local), or a file that is not an image', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-early-media-'));
    dirs.push(dir);
    const path = join(dir, 'photo.jpg');
    writeFileSync(path, await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 1, g: 2, b: 3 } } }).jpeg().toBuffer());
    const sandbox = await verity(['verify', 'media', path, '--test', '--json'], { cwd: dir, env: DEBUG });
    expect(earlyState(sandbox.stderr)).toBeUndefined();
    const home = newHome();
    const set = await verity(['config', 'set', 'profiles.default.base_url', 'http://127.0.0.1:9'], { home });
    expect(set.code, set.stderr).toBe(0);
    const remote = await verity(['verify', 'media', path, '--json'], { home, cwd: dir, env: DEBUG });
    expect(remote.code).not.toBe(0); // nothing listens there
    expect(earlyState(remote.stderr)).toBeUndefined();
    const local = await verity(['verify', 'media', path, '--local', '--json'], { home, cwd: dir, env: DEBUG });
    expect(local.code, local.stderr).toBe(0);
    expect(earlyState(local.stderr)).toBe('taken');
    writeFileSync(join(dir, 'notes.txt'), 'plain text, not an image');
    const text = await verity(['verify', 'media', join(dir, 'notes.txt'), '--json'], { cwd: dir, env: DEBUG });
    expect(text.code).not.toBe(0);
    expect(earlyState(text.stderr)).toBeUndefined();
  }, 60_000);
});
