import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordKeyUse } from '../../../src/cli/key-usage.js';
import { cleanHomes, fakeContext, runCli, sampleKey, tempHome } from './fake-context.js';

afterAll(cleanHomes);

const configOf = (home: string) => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));

describe('keys add', () => {
  it('reads a piped key from stdin, stores it 0600 and makes the first key active', async () => {
    const key = sampleKey('test');
    const r = await runCli(['keys', 'add', 'ci'], { stdin: `${key}\n` });
    expect(r.code).toBe(0);
    const file = join(r.home, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(r.home).mode & 0o777).toBe(0o700);
    const cfg = configOf(r.home);
    expect(cfg.keys.ci).toMatchObject({ value: key, environment: 'test', last_used_at: null });
    expect(cfg.profiles.default.key).toBe('ci');
    expect(r.stdout + r.stderr).not.toContain(key);
    expect(r.stderr).toContain('vty_test_…');
  });

  it('names the key after its environment when no name is given, and reads --key -', async () => {
    const key = sampleKey('live');
    const r = await runCli(['keys', 'add', '--key', '-'], { stdin: key });
    expect(r.code).toBe(0);
    expect(configOf(r.home).keys.live.environment).toBe('live');
  });

  it('reads --key-file, and a second key does not replace the active one unless --use', async () => {
    const home = tempHome();
    await runCli(['keys', 'add', 'first'], { home, stdin: sampleKey('test', 'B') });
    const keyFile = join(home, 'key.txt');
    writeFileSync(keyFile, `${sampleKey('live', 'C')}\n`);
    expect((await runCli(['keys', 'add', 'second', '--key-file', keyFile], { home })).code).toBe(0);
    expect(configOf(home).profiles.default.key).toBe('first');
    writeFileSync(keyFile, sampleKey('live', 'D'));
    expect((await runCli(['keys', 'add', 'third', '--key-file', keyFile, '--use'], { home })).code).toBe(0);
    expect(configOf(home).profiles.default.key).toBe('third');
  });

  it('refuses a malformed key without echoing it (exit 2)', async () => {
    const secretish = 'vty_live_tooShortButSecret';
    const r = await runCli(['keys', 'add', 'x', '--json'], { stdin: secretish });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('VALIDATION_FAILED');
    expect(r.stdout + r.stderr).not.toContain(secretish);
  });

  it('refuses a duplicate name without --force, and the same key under a second name', async () => {
    const home = tempHome();
    const key = sampleKey('test', 'E');
    expect((await runCli(['keys', 'add', 'a'], { home, stdin: key })).code).toBe(0);
    const dupName = await runCli(['keys', 'add', 'a'], { home, stdin: sampleKey('test', 'F') });
    expect(dupName.code).toBe(2);
    expect(dupName.stderr).toContain('--force');
    const dupKey = await runCli(['keys', 'add', 'b'], { home, stdin: key });
    expect(dupKey.code).toBe(2);
    expect(dupKey.stderr).toContain('already stored as "a"');
    expect((await runCli(['keys', 'add', 'a', '--force'], { home, stdin: sampleKey('test', 'F') })).code).toBe(0);
    expect(configOf(home).keys.a.value).toBe(sampleKey('test', 'F'));
  });

  it('will not read a key from a terminal stdin without a prompt', async () => {
    const r = await runCli(['keys', 'add', 'x'], { stdinTTY: true, interactive: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--key -|--key-file/);
  });

  it('rejects names that look like keys', async () => {
    const r = await runCli(['keys', 'add', 'vty_live_x'], { stdin: sampleKey('live') });
    expect(r.code).toBe(2);
  });
});

describe('keys list / use / remove', () => {
  it('lists name, environment, redacted key, last used and the active one; --json has no secrets', async () => {
    const home = tempHome();
    const k1 = sampleKey('test', 'G');
    const k2 = sampleKey('live', 'H');
    await runCli(['keys', 'add', 'sandbox'], { home, stdin: k1 });
    await runCli(['keys', 'add', 'prod'], { home, stdin: k2 });
    const fake = fakeContext({ home });
    recordKeyUse(fake.ctx.paths.dataDir, k1, new Date('2026-03-01T11:00:00Z'));
    const human = await runCli(['keys', 'list'], fake);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\*\s+sandbox\s+test\s+vty_test_…[0-9A-Za-z]{4}\s+2026-\d\d-\d\d\s+1 h ago/);
    expect(human.stdout).toMatch(/prod\s+live\s+vty_live_…/);
    expect(human.stdout).toContain('never');
    const json = await runCli(['keys', 'list', '--json'], { home });
    // Every --json list is { data: [...] } (docs/cli.md).
    const rows = JSON.parse(json.stdout).data;
    expect(rows).toEqual([
      expect.objectContaining({ name: 'prod', environment: 'live', active: false, last_used_at: null }),
      expect.objectContaining({ name: 'sandbox', environment: 'test', active: true, last_used_at: '2026-03-01T11:00:00.000Z' }),
    ]);
    for (const out of [human.stdout, human.stderr, json.stdout]) {
      expect(out).not.toContain(k1);
      expect(out).not.toContain(k2);
      expect(out).not.toContain(k1.slice(9, 30));
    }
  });

  it('use switches the profile key; an unknown name is NOT_FOUND (exit 1)', async () => {
    const home = tempHome();
    await runCli(['keys', 'add', 'a'], { home, stdin: sampleKey('test', 'I') });
    await runCli(['keys', 'add', 'b'], { home, stdin: sampleKey('live', 'J') });
    expect((await runCli(['keys', 'use', 'b'], { home })).code).toBe(0);
    expect(configOf(home).profiles.default.key).toBe('b');
    expect((await runCli(['keys', 'use', 'a', '--profile', 'staging'], { home })).code).toBe(0);
    expect(configOf(home).profiles.staging.key).toBe('a');
    const missing = await runCli(['keys', 'use', 'zzz', '--json'], { home });
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe('NOT_FOUND');
  });

  it('remove needs --yes off a terminal, then clears profiles that used the key', async () => {
    const home = tempHome();
    await runCli(['keys', 'add', 'a'], { home, stdin: sampleKey('test', 'K') });
    expect((await runCli(['keys', 'remove', 'a'], { home })).code).toBe(2);
    expect(configOf(home).keys.a).toBeDefined();
    const r = await runCli(['keys', 'rm', 'a', '--yes', '--json'], { home });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ removed: 'a', profiles_without_key: ['default'] });
    const cfg = configOf(home);
    expect(cfg.keys).toEqual({});
    expect(cfg.profiles.default.key).toBeUndefined();
  });
});
