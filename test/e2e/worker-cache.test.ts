/**
 * Inputs over ~1 MB are analysed in a worker (src/cli/runtime.ts) that loads its bundle through a
 * V8 code cache (engine-worker-boot-main.ts). The cached start must give the same result as the
 * uncached one, from any working directory (the bundle's package imports resolve from dist/).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { describe, expect, it, onTestFinished } from 'vitest';
import { newHome, verity } from './run-cli.js';

describe('the analysis worker through its code cache', () => {
  it('a 1.5 MB DOCX: same result uncached and cached, run from an unrelated folder', async () => {
    const zip = new JSZip();
    zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>');
    zip.file('word/document.xml', '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>The committee met on Tuesday and approved the budget for next year.</w:t></w:r></w:p></w:body></w:document>');
    zip.file('word/embeddings/blob.bin', randomBytes(1_500_000), { compression: 'STORE' });
    const dir = mkdtempSync(join(tmpdir(), 'verity-e2e-worker-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'big.docx');
    writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
    const home = newHome();
    const strip = (s: string): unknown => {
      const { id: _id, latency_ms: _l, ...rest } = JSON.parse(s) as Record<string, unknown>;
      return rest;
    };
    const first = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(join(home, 'cache')).some((f) => f.startsWith('engine-worker-'))).toBe(true);
    const second = await verity(['verify', 'document', file, '--json'], { home, cwd: dir });
    expect(second.code, second.stderr).toBe(0);
    expect(strip(second.stdout)).toEqual(strip(first.stdout));
    expect((strip(first.stdout) as { metadata: { page_count: number } }).metadata.page_count).toBeGreaterThan(0);
    expect(existsSync(join(home, 'cache'))).toBe(true);

    // A path of a large document starts the worker before the CLI loads (bin/run-bundle.js) and
    // posts it the job; stdin starts it afterwards with the job. Same result.
    const piped = await verity(['verify', 'document', '-', '--json'], { home, cwd: dir, input: readFileSync(file) });
    expect(piped.code, piped.stderr).toBe(0);
    expect(strip(piped.stdout)).toEqual(strip(first.stdout));

    // A worker started for a path the command then does not analyse (over the 1 MB raw-text
    // limit here) must not keep the process alive: the run ends with that error.
    const unused = await verity(['verify', 'document', file, '--source', 'raw', '--json'], { home, cwd: dir });
    expect(unused.code).toBeGreaterThan(0);
    expect(unused.stdout + unused.stderr).not.toMatch(/at .*\.(?:js|cjs):\d+/);
  });
});
