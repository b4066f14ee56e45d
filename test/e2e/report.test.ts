/**
 * `--report`, `--heatmap` and `verity report` through the built CLI, embedded and against a real
 * `verity serve` on loopback (remote mode): the files are written, self-contained and show what
 * the result says. (The browser checks are in test/unit/report.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { splicedJpeg } from '../unit/media/helpers.js';
import { startServeProcess, type Served } from './serve-process.js';

const BIN = join(inject('verityRoot'), 'bin', 'verity.js');
const home = mkdtempSync(join(tmpdir(), 'verity-report-e2e-'));
const db = join(home, 'server.db');
const env = { VERITY_HOME: home, NO_COLOR: '1', VERITY_API_KEY: '', VERITY_BASE_URL: '' };
const cli = (args: string[], input?: string) => execa('node', [BIN, ...args], { env, reject: false, input, cwd: home });

/** A self-contained report: no script, no external reference besides clickable links. */
function expectSelfContained(html: string): void {
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).not.toMatch(/<script|<link |@import|url\(http|src="http/i);
  expect(html).toContain("default-src 'none'");
}

let served: Served;
let key: string;
let spliced: string;
let pasted: { x: number; y: number; width: number; height: number };

beforeAll(async () => {
  const made = await cli(['admin', 'keys', 'create', '--name', 'report-ci', '--env', 'test', '--plan', 'business', '--account', 'report-ci', '--db', db]);
  expect(made.exitCode, made.stderr).toBe(0);
  key = made.stdout.trim();
  const s = await splicedJpeg();
  pasted = s.pasted;
  spliced = join(home, 'spliced.jpg');
  writeFileSync(spliced, s.bytes);
  served = await startServeProcess(BIN, ['--db', db], env);
}, 60_000);

afterAll(async () => {
  served?.proc.kill('SIGTERM');
  await served?.proc;
  rmSync(home, { recursive: true, force: true });
});

describe('report files from the CLI', () => {
  it('embedded: verify media --report --heatmap marks the spliced region; verity report rebuilds it from the saved JSON', async () => {
    const html = join(home, 'media.html');
    const png = join(home, 'media-heat.png');
    const r = await cli(['verify', 'media', spliced, '--json', '--report', html, '--heatmap', png]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const page = readFileSync(html, 'utf8');
    expectSelfContained(page);
    expect(page).toContain('Region 1: jpeg_grid');
    expect(page).toMatch(/<img class="photo" src="data:image\/jpeg;base64,/);
    // The heat map is the image's size, transparent outside the findings, opaque on the patch.
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([768, 512]);
    const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3]!;
    expect(alpha(pasted.x + 96, pasted.y + 96)).toBeGreaterThan(100);
    expect(alpha(700, 480)).toBeLessThan(100);
    writeFileSync(join(home, 'media.json'), r.stdout);
    const again = await cli(['report', join(home, 'media.json'), '--input', spliced, '-o', join(home, 'again.html')]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(readFileSync(join(home, 'again.html'), 'utf8')).toContain('Region 1: jpeg_grid');
    expect(result.evidence.find((e: { region?: unknown }) => e.region)).toBeDefined();
    // The title names the file, not the folder it sat in on this machine.
    expect(readFileSync(join(home, 'again.html'), 'utf8')).toContain('<title>verity media report — spliced.jpg</title>');

    // Another image with the same result: refused (the result records its file's SHA-256), no report.
    const other = join(home, 'other.jpg');
    await sharp({ create: { width: 768, height: 512, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg().toFile(other);
    const wrong = await cli(['report', join(home, 'media.json'), '--input', other, '-o', join(home, 'wrong.html'), '--json']);
    expect(wrong.exitCode).toBe(2);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: 'VALIDATION_FAILED', details: [{ field: 'input' }] } });
    expect(wrong.stderr).toMatch(/other\.jpg is not the file this result describes: its SHA-256 is [0-9a-f]{12}…/);
    expect(() => readFileSync(join(home, 'wrong.html'))).toThrow();
    // A result from before the digest: checked on format and pixel size instead, with a warning.
    const { file: _file, ...older } = result;
    writeFileSync(join(home, 'older.json'), JSON.stringify(older));
    const small = join(home, 'small-other.jpg');
    await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 10, g: 120, b: 200 } } }).jpeg().toFile(small);
    const smallWrong = await cli(['report', join(home, 'older.json'), '--input', small, '-o', join(home, 'older.html')]);
    expect(smallWrong.exitCode).toBe(2);
    expect(smallWrong.stderr).toContain('it is 320×200, the result describes 768×512');
    const sameSize = await cli(['report', join(home, 'older.json'), '--input', spliced, '-o', join(home, 'older.html')]);
    expect(sameSize.exitCode, sameSize.stderr).toBe(0);
    expect(sameSize.stderr).toContain('the result records no digest of its file');
  }, 60_000);

  it('remote, live key: the server returns the picture data, so a remote report marks the region too', async () => {
    const made = await cli(['admin', 'keys', 'create', '--name', 'report-live', '--env', 'live', '--plan', 'business', '--account', 'report-live', '--db', db]);
    expect(made.exitCode, made.stderr).toBe(0);
    const html = join(home, 'remote-live-media.html');
    const r = await cli(['verify', 'media', spliced, '--json', '--remote', served.url, '--key', made.stdout.trim(), '--report', html]);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.forensics).toMatchObject({ tile: 64, cols: 12, rows: 8 });
    expect(result.evidence.some((e: { region?: unknown }) => e.region)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('Region 1: jpeg_grid');
  }, 60_000);

  it('remote: all four kinds write a report', async () => {
    const image = join(home, 'small.jpg');
    await sharp({ create: { width: 320, height: 256, channels: 3, background: { r: 90, g: 140, b: 40 } } }).jpeg().toFile(image);
    const runs: [string, string[], RegExp][] = [
      ['claim', ['verify', 'claim', 'The Eiffel Tower is in Paris'], /Evidence by stance/],
      ['business', ['verify', 'business', 'Acme Widgets Ltd', '--jurisdiction', 'gb'], /Sources side by side/],
      ['media', ['verify', 'media', image], /Image and forensic overlays/],
      ['document', ['verify', 'document', '--source', 'raw', '--content', 'Quarterly results were strong.'], /Signatures and revisions/],
    ];
    for (const [kind, args, section] of runs) {
      const out = join(home, `remote-${kind}.html`);
      const r = await cli([...args, '--remote', served.url, '--key', key, '--report', out]);
      expect(r.exitCode, `${kind}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toContain(`Report written to ${out}`);
      const page = readFileSync(out, 'utf8');
      expectSelfContained(page);
      expect(page, kind).toMatch(section);
    }
  }, 90_000);

  it('bad input: a missing folder, a non-result JSON and an error body are clear errors (exit 2) before or instead of a report', async () => {
    const nowhere = await cli(['verify', 'claim', 'x', '--test', '--report', join(home, 'no-such-dir', 'r.html')]);
    expect(nowhere.exitCode).toBe(2);
    expect(nowhere.stderr).toMatch(/does not exist/);
    writeFileSync(join(home, 'error.json'), JSON.stringify({ error: { code: 'NOT_FOUND', message: 'x' } }));
    const notResult = await cli(['report', join(home, 'error.json'), '-o', join(home, 'x.html')]);
    expect(notResult.exitCode).toBe(2);
    expect(notResult.stderr).toMatch(/not a claim, business, media or document result/);
    writeFileSync(join(home, 'broken.json'), '{"id": ');
    const broken = await cli(['report', join(home, 'broken.json'), '-o', join(home, 'x.html')]);
    expect(broken.exitCode).toBe(2);
    expect(broken.stderr).toMatch(/is not JSON/);
    expect(broken.stderr).not.toMatch(/at .*\.js:\d+/);
  }, 60_000);
});
