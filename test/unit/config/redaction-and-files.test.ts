import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { resolvePaths } from '../../../src/config/paths.js';
import { keyEnvironment, KEY_PATTERN, redactKey, redactSecret } from '../../../src/config/schema.js';
import { updateConfig } from '../../../src/config/write.js';
import { cleanHomes, sampleKey, tempHome } from '../cli/fake-context.js';

afterAll(cleanHomes);

describe('key format and redaction', () => {
  it('keys are vty_live_/vty_test_ plus 32 base62; the prefix decides the environment', () => {
    expect(keyEnvironment(sampleKey('live'))).toBe('live');
    expect(keyEnvironment(sampleKey('test'))).toBe('test');
    for (const bad of ['vty_prod_' + 'a'.repeat(32), 'vty_live_' + 'a'.repeat(31), 'vty_live_' + 'a'.repeat(33), 'vty_live_' + 'a'.repeat(31) + '-', 'sk_live_' + 'a'.repeat(32)])
      expect(KEY_PATTERN.test(bad), bad).toBe(false);
  });

  it('redactKey keeps only the prefix and the last four characters', () => {
    const key = sampleKey('live', 'X');
    const shown = redactKey(key);
    expect(shown).toBe(`vty_live_…${key.slice(-4)}`);
    expect(shown).not.toContain(key.slice(9, 28));
  });

  it('redactSecret masks all but a few characters, and fully masks short secrets', () => {
    expect(redactSecret('AIzaSyD-0123456789abcdef')).toBe('AIza…ef');
    expect(redactSecret('short')).toBe('••••');
    expect(redactSecret(sampleKey('test', 'Y'))).toBe(`vty_test_…${sampleKey('test', 'Y').slice(-4)}`);
  });
});

describe('config files', () => {
  it('VERITY_HOME overrides the XDG folders; XDG variables are honoured', () => {
    expect(resolvePaths({ VERITY_HOME: '/h', XDG_CONFIG_HOME: '/x' }).configFile).toBe('/h/config.json');
    const p = resolvePaths({ XDG_CONFIG_HOME: '/xc', XDG_DATA_HOME: '/xd', XDG_CACHE_HOME: '/xk' });
    expect(p).toMatchObject({ configFile: '/xc/verity/config.json', dataDir: '/xd/verity', cacheDir: '/xk/verity' });
  });

  it('updateConfig writes 0600 atomically, re-tightens a loosened file, and validates with the schema', async () => {
    const h = tempHome();
    const file = join(h, 'nested', 'config.json');
    await updateConfig(file, (c) => {
      c.contact = 'ops@example.com';
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig(file).contact).toBe('ops@example.com');
    chmodSync(file, 0o644);
    await updateConfig(file, (c) => {
      c.llm = { model: 'm' };
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await expect(
      updateConfig(file, (c) => {
        c.keys.bad = { value: 'vty_live_nope', environment: 'live', added_at: 'x', last_used_at: null };
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profile: 'default', profiles: {}, keys: {}, contact: 'ops@example.com', llm: { model: 'm' } });
  });

  it('loadConfig names the bad field of a hand-edited file, and defaults a missing one', () => {
    const h = tempHome();
    const file = join(h, 'config.json');
    expect(loadConfig(file)).toEqual({ profile: 'default', profiles: {}, keys: {} });
    writeFileSync(file, JSON.stringify({ profiles: { x: { base_url: 'https://a.example.com', keyy: 'k' } } }));
    expect(() => loadConfig(file)).toThrow(/profiles\.x/);
  });
});
