import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newHome, verity } from './run-cli.js';

const key = (env: 'live' | 'test', c: string) => `vty_${env}_${'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy'}${c}${c}`;

describe('keys through the built CLI', () => {
  it('keys add from stdin stores the key in a 0600 file; keys list never shows it whole', async () => {
    const home = newHome();
    const k = key('test', 'Q');
    expect(k).toMatch(/^vty_test_[0-9A-Za-z]{32}$/);
    const add = await verity(['keys', 'add', 'ci'], { home, input: `${k}\n` });
    expect(add.code).toBe(0);
    const file = join(home, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).keys.ci.value).toBe(k);
    for (const args of [['keys', 'list'], ['keys', 'list', '--json'], ['config', 'list'], ['config', 'get', 'keys.ci.value', '--show-secrets']]) {
      const r = await verity(args, { home });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout + r.stderr, args.join(' ')).not.toContain(k);
    }
    const list = JSON.parse((await verity(['keys', 'list', '--json'], { home })).stdout).data;
    expect(list).toEqual([expect.objectContaining({ name: 'ci', environment: 'test', key: `vty_test_…${k.slice(-4)}`, active: true })]);
    expect(add.stdout + add.stderr).not.toContain(k);
  });

  it('a stored test key selects the sandbox, and its use is recorded', async () => {
    const home = newHome();
    const k = key('test', 'R');
    writeFileSync(join(home, 'k.txt'), k);
    expect((await verity(['keys', 'add', 'sbx', '--key-file', join(home, 'k.txt')], { home })).code).toBe(0);
    const r = await verity(['verify', 'claim', 'The sky is blue', '--json'], { home });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).warnings?.[0]).toMatch(/sandbox/);
    const list = JSON.parse((await verity(['keys', 'list', '--json'], { home })).stdout).data;
    expect(list[0].last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('--key - reads the key from stdin for one command, never printing it', async () => {
    const k = key('test', 'S');
    const r = await verity(['verify', 'business', 'Acme Ltd', '--key', '-', '--json'], { input: k });
    // stdin carries the key, so the sandbox (test key) answers.
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(k);
    const bad = await verity(['verify', 'claim', 'x', '--key', '-', '--json'], { input: 'vty_live_definitely-not-valid' });
    expect(bad.code).toBe(2);
    expect(bad.stdout + bad.stderr).not.toContain('definitely-not-valid');
  });
});
