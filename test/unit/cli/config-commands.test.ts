import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanHomes, runCli, sampleKey, tempHome } from './fake-context.js';

afterAll(cleanHomes);

const configOf = (home: string) => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));

describe('config set / get / unset', () => {
  it('sets dotted settings, writes 0600, and reads them back', async () => {
    const home = tempHome();
    expect((await runCli(['config', 'set', 'contact', 'ops@example.com'], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'profiles.staging.base_url', 'https://stg.example.com'], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'llm.base_url', 'http://127.0.0.1:8080/v1'], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'profile', 'staging'], { home })).code).toBe(0);
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);
    const cfg = configOf(home);
    expect(cfg).toMatchObject({
      contact: 'ops@example.com',
      profile: 'staging',
      profiles: { staging: { base_url: 'https://stg.example.com' } },
      llm: { base_url: 'http://127.0.0.1:8080/v1' },
    });
    const got = await runCli(['config', 'get', 'profiles.staging.base_url'], { home });
    expect(got.stdout).toBe('https://stg.example.com\n');
    const json = await runCli(['config', 'get', 'llm', '--json'], { home });
    expect(JSON.parse(json.stdout)).toEqual({ base_url: 'http://127.0.0.1:8080/v1' });
  });

  it('validates values before writing (exit 2, file unchanged)', async () => {
    const home = tempHome();
    await runCli(['config', 'set', 'contact', 'a@b.c'], { home });
    const before = readFileSync(join(home, 'config.json'), 'utf8');
    for (const args of [
      ['profiles.staging.base_url', 'ftp://example.com'],
      ['sources.web.provider', 'bing'],
      ['profiles.x.key', 'not-stored'],
      ['no.such.setting', 'v'],
      ['keys.a.value', sampleKey('live')],
      ['profile', 'bad name!'],
    ]) {
      const r = await runCli(['config', 'set', ...args, '--json'], { home });
      expect(r.code, args.join(' ')).toBe(2);
      expect(JSON.parse(r.stdout).error.code).toBe('VALIDATION_FAILED');
    }
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe(before);
  });

  it('masks secrets on get and list unless --show-secrets; verity keys are never shown whole', async () => {
    const home = tempHome();
    const secret = 'AIzaSyD-very-secret-api-key-0123';
    const key = sampleKey('test', 'Z');
    expect((await runCli(['config', 'set', 'sources.google_fact_check.api_key', '-'], { home, stdin: `${secret}\n` })).code).toBe(0);
    await runCli(['keys', 'add', 'k'], { home, stdin: key });
    expect(configOf(home).sources.google_fact_check.api_key).toBe(secret);
    const get = await runCli(['config', 'get', 'sources.google_fact_check.api_key'], { home });
    expect(get.stdout).not.toContain(secret);
    expect(get.stdout.trim()).toBe('AIza…23');
    const shown = await runCli(['config', 'get', 'sources.google_fact_check.api_key', '--show-secrets'], { home });
    expect(shown.stdout.trim()).toBe(secret);
    for (const args of [['config', 'list'], ['config', 'list', '--json'], ['config', 'list', '--show-secrets'], ['config', 'get', 'keys', '--show-secrets', '--json']]) {
      const r = await runCli(args, { home });
      expect(r.code).toBe(0);
      expect(r.stdout, args.join(' ')).not.toContain(key);
      if (!args.includes('--show-secrets')) expect(r.stdout).not.toContain(secret);
    }
    const list = await runCli(['config', 'list'], { home });
    expect(list.stdout).toContain('keys.k.value = vty_test_…');
  });

  it('get of an unset setting is NOT_FOUND (exit 1); unset removes a setting', async () => {
    const home = tempHome();
    expect((await runCli(['config', 'get', 'contact'], { home })).code).toBe(1);
    await runCli(['config', 'set', 'contact', 'a@b.c'], { home });
    expect((await runCli(['config', 'unset', 'contact'], { home })).code).toBe(0);
    expect(configOf(home).contact).toBeUndefined();
    expect((await runCli(['config', 'unset', 'contact'], { home })).code).toBe(1);
  });

  it('resolves relative paths against the working directory', async () => {
    const home = tempHome();
    await runCli(['config', 'set', 'c2pa.trust_anchors', 'anchors.pem'], { home });
    expect(configOf(home).c2pa.trust_anchors).toBe(join(home, 'anchors.pem'));
  });

  it('reports a broken config file by name instead of overwriting it', async () => {
    const home = tempHome();
    writeFileSync(join(home, 'config.json'), '{ not json');
    const r = await runCli(['config', 'set', 'contact', 'a@b.c'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not valid JSON');
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe('{ not json');
  });
});

describe('config path', () => {
  it('prints the config file, and the folders with --json', async () => {
    const home = tempHome();
    expect((await runCli(['config', 'path'], { home })).stdout).toBe(`${join(home, 'config.json')}\n`);
    const j = JSON.parse((await runCli(['config', 'path', '--json'], { home })).stdout);
    expect(j).toEqual({
      config_file: join(home, 'config.json'),
      data_dir: join(home, 'data'),
      cache_dir: join(home, 'cache'),
      store_file: join(home, 'data', 'verity.db'),
    });
  });
});
