/**
 * `verity serve` holds V8's young generation at its starting size until it answers many small
 * requests, then grows it once (bin/run-bundle.js keepYoungGenerationSmall, src/cli/young-generation.ts;
 * issue 31). In real Node processes: the young generation stays at 2 MB under a stream of
 * short-lived objects (32 MB without), is 2 × SERVE_SEMI_SPACE_MB once grown and stays there; a code
 * cache made or read inside the scope it returns is one a process with V8's default flags accepts
 * (so serve and every other command share their caches). The flags it sets, in order, with a
 * recording setter; when the request rate makes serve grow it, with a fake server and clock.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without types
import { keepYoungGenerationSmall, SERVE_SEMI_SPACE_MB } from '../../../bin/run-bundle.js';
import { EventEmitter } from 'node:events';
import { growOnRequestRate, REQUESTS_TO_GROW } from '../../../src/cli/young-generation.js';
import { YOUNG_SLACK_MB } from '../../helpers/young-generation.js';

const RUN_BUNDLE = pathToFileURL(join(__dirname, '../../../bin/run-bundle.js')).href;
const dir = mkdtempSync(join(tmpdir(), 'verity-young-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs an ES module's text in a fresh Node process; its stdout. */
function node(code: string): string {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  expect(r.stderr).toBe('');
  return r.stdout.trim();
}

// Short-lived strings with a few thousand alive at a time: enough survivors for V8 to grow it.
const CHURN = `
const v8 = await import('node:v8');
const keep = [];
for (let i = 0; i < 3e5; i++) { keep.push('x'.repeat(200) + i); if (keep.length > 20000) keep.splice(0, 10000); }
const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;`;

const SOURCE = 'function twice(x) { return 2 * x } twice(21);';

// Exact on Node 20; Node 24 may read a few MB over under load (test/helpers/young-generation.ts).
const HELD_MAX_MB = 2 + YOUNG_SLACK_MB;
const grownOk = (mb: number): boolean => mb >= 2 * SERVE_SEMI_SPACE_MB && mb <= 2 * SERVE_SEMI_SPACE_MB + YOUNG_SLACK_MB;

describe('serve young generation', () => {
  it('does not grow past its starting 2 MB (V8 grows it to 32 MB without); once grown for requests, stays at twice SERVE_SEMI_SPACE_MB', () => {
    expect(Number(node(`${CHURN} console.log(young);`))).toBeGreaterThanOrEqual(16);
    expect(Number(node(`const { keepYoungGenerationSmall } = await import(${JSON.stringify(RUN_BUNDLE)}); keepYoungGenerationSmall(); ${CHURN} console.log(young);`))).toBeLessThanOrEqual(HELD_MAX_MB);
    const grown = node(`const { keepYoungGenerationSmall } = await import(${JSON.stringify(RUN_BUNDLE)}); keepYoungGenerationSmall();
      globalThis[Symbol.for('verity.growYoungGeneration')]();
      const v8m = await import('node:v8'); const before = v8m.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
      ${CHURN} console.log(before, young);`);
    const [before, after] = grown.split(' ').map(Number);
    expect([before, after].every((mb) => mb !== undefined && grownOk(mb)), grown).toBe(true);
  });

  it('makes and reads code caches under V8 default flags, which a default process accepts', () => {
    const file = join(dir, 'cache.bin');
    const made = node(`
      const { keepYoungGenerationSmall } = await import(${JSON.stringify(RUN_BUNDLE)});
      const vm = await import('node:vm'); const fs = await import('node:fs');
      const scope = keepYoungGenerationSmall();
      fs.writeFileSync(${JSON.stringify(file)}, scope(() => new vm.Script(${JSON.stringify(SOURCE)}).createCachedData()));
      // Outside the scope the flags differ: a cache made there is one a default process rejects.
      fs.writeFileSync(${JSON.stringify(`${file}.outside`)}, new vm.Script(${JSON.stringify(SOURCE)} + ' ').createCachedData());
      const read = scope(() => new vm.Script(${JSON.stringify(SOURCE)}, { cachedData: fs.readFileSync(${JSON.stringify(file)}) }));
      console.log(globalThis[Symbol.for('verity.v8DefaultFlagsScope')] === scope, read.cachedDataRejected);`);
    expect(made).toBe('true false');
    const read = (f: string, src: string): string =>
      node(`const vm = await import('node:vm'); const fs = await import('node:fs');
        console.log(new vm.Script(${JSON.stringify(src)}, { cachedData: fs.readFileSync(${JSON.stringify(f)}) }).cachedDataRejected);`);
    expect(read(file, SOURCE)).toBe('false');
    expect(read(`${file}.outside`, `${SOURCE} `)).toBe('true');
  });

  it('sets the growth factor to 1, puts the default back inside the scope (nested too), and skips unknown Node versions', () => {
    const flags: string[] = [];
    const scope = (keepYoungGenerationSmall as (set: (f: string) => void, v: string) => (<T>(f: () => T) => T) | undefined)((f) => flags.push(f), '20.20.2')!;
    // (--expose-gc only while `gc` is fetched, for the old generation's collections.)
    expect(flags).toEqual(['--semi-space-growth-factor=1', '--expose-gc', '--no-expose-gc']);
    flags.length = 0;
    expect(scope(() => scope(() => 7))).toBe(7);
    expect(flags).toEqual(['--semi-space-growth-factor=2', '--semi-space-growth-factor=1']);
    expect(() => scope(() => { throw new Error('boom'); })).toThrow('boom');
    expect(flags.at(-1)).toBe('--semi-space-growth-factor=1');
    const none: string[] = [];
    expect((keepYoungGenerationSmall as (set: (f: string) => void, v: string) => unknown)((f) => none.push(f), '18.19.0')).toBeUndefined();
    expect(none).toEqual([]);
  });

  it('serve grows it once, at the REQUESTS_TO_GROW-th request within one second, and then stops counting', () => {
    const server = new EventEmitter();
    let t = 0;
    let grown = 0;
    growOnRequestRate(server, () => t, () => grown++);
    // A steady REQUESTS_TO_GROW - 1 a second (a batch's upload and results stream are far fewer): never.
    for (let s = 0; s < 5; s++, t += 1000) for (let i = 0; i < REQUESTS_TO_GROW - 1; i++) server.emit('request');
    expect(grown).toBe(0);
    for (let i = 0; i < REQUESTS_TO_GROW; i++) server.emit('request');
    expect(grown).toBe(1);
    expect(server.listenerCount('request')).toBe(0);
    // Without the hook (not serve, or a Node without the flag) it does not listen at all.
    const other = new EventEmitter();
    growOnRequestRate(other, () => 0, null);
    expect(other.listenerCount('request')).toBe(0);
  });
});
