import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VerityError } from '../../../src/api/errors.js';
import { CliRuntime, type GlobalOptions } from '../../../src/cli/runtime.js';
import { updateConfig } from '../../../src/config/write.js';
import { cleanHomes, fakeContext, sampleKey, tempHome, type FakeOptions } from '../cli/fake-context.js';

afterAll(cleanHomes);

const PROFILE_TEST = sampleKey('test', 'P');
const PROFILE_LIVE = sampleKey('live', 'Q');
const ENV_KEY = sampleKey('live', 'E');
const FLAG_KEY = sampleKey('test', 'F');
const FILE_KEY = sampleKey('live', 'K');
const STDIN_KEY = sampleKey('test', 'S');

/** A home with two stored keys, profile "default" using the live one and "staging" a service. */
async function home(): Promise<string> {
  const h = tempHome();
  await updateConfig(join(h, 'config.json'), (c) => {
    c.keys.prod = { value: PROFILE_LIVE, environment: 'live', added_at: '2026-01-01T00:00:00Z', last_used_at: null };
    c.keys.sbx = { value: PROFILE_TEST, environment: 'test', added_at: '2026-01-01T00:00:00Z', last_used_at: null };
    c.profiles.default = { key: 'prod' };
    c.profiles.staging = { key: 'sbx', base_url: 'https://staging.example.com' };
  });
  writeFileSync(join(h, 'key.txt'), `${FILE_KEY}\n`);
  return h;
}

const runtime = (h: string, opts: GlobalOptions, fake: FakeOptions = {}) => new CliRuntime(fakeContext({ home: h, ...fake }).ctx, opts);

describe('key precedence: --key-file / --key - > --key > VERITY_API_KEY > profile', () => {
  it('--key-file beats everything', async () => {
    const h = await home();
    const k = await runtime(h, { keyFile: join(h, 'key.txt'), key: FLAG_KEY }, { env: { VERITY_API_KEY: ENV_KEY } }).key();
    expect(k).toMatchObject({ value: FILE_KEY, origin: 'key-file', environment: 'live' });
  });

  it('--key - reads stdin and beats VERITY_API_KEY and the profile', async () => {
    const h = await home();
    const k = await runtime(h, { key: '-' }, { env: { VERITY_API_KEY: ENV_KEY }, stdin: `${STDIN_KEY}\n` }).key();
    expect(k).toMatchObject({ value: STDIN_KEY, origin: 'stdin', environment: 'test' });
  });

  it('--key VALUE beats VERITY_API_KEY; --key NAME picks a stored key', async () => {
    const h = await home();
    expect(await runtime(h, { key: FLAG_KEY }, { env: { VERITY_API_KEY: ENV_KEY } }).key()).toMatchObject({ value: FLAG_KEY, origin: 'flag' });
    expect(await runtime(h, { key: 'sbx' }, { env: { VERITY_API_KEY: ENV_KEY } }).key()).toMatchObject({ value: PROFILE_TEST, name: 'sbx' });
  });

  it('VERITY_API_KEY beats the profile', async () => {
    const h = await home();
    expect(await runtime(h, {}, { env: { VERITY_API_KEY: ENV_KEY } }).key()).toMatchObject({ value: ENV_KEY, origin: 'VERITY_API_KEY' });
  });

  it('the profile: --profile > VERITY_PROFILE > config `profile`', async () => {
    const h = await home();
    expect(await runtime(h, {}).key()).toMatchObject({ name: 'prod' });
    expect(await runtime(h, {}, { env: { VERITY_PROFILE: 'staging' } }).key()).toMatchObject({ name: 'sbx' });
    expect(await runtime(h, { profile: 'default' }, { env: { VERITY_PROFILE: 'staging' } }).key()).toMatchObject({ name: 'prod' });
  });

  it('--test picks a stored test key when the profile key is live', async () => {
    const h = await home();
    expect(await runtime(h, { test: true }).key()).toMatchObject({ name: 'sbx', environment: 'test' });
  });

  it('no key anywhere: undefined', async () => {
    expect(await runtime(tempHome(), {}).key()).toBeUndefined();
  });

  it('a malformed key is VALIDATION_FAILED and the message does not contain it', async () => {
    const bad = 'vty_live_short-but-secret';
    const err = await runtime(tempHome(), {}, { env: { VERITY_API_KEY: bad } })
      .key()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerityError);
    expect((err as VerityError).code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify((err as VerityError).toBody())).not.toContain(bad);
  });
});

describe('mode precedence: --remote > VERITY_BASE_URL > profile base_url > embedded; --local forces embedded', () => {
  it('follows the order', async () => {
    const h = await home();
    const env = { VERITY_BASE_URL: 'http://env.example.com' };
    expect(await runtime(h, { remote: 'http://flag.example.com', profile: 'staging' }, { env }).connection()).toMatchObject({
      mode: 'remote',
      baseUrl: 'http://flag.example.com',
    });
    expect(await runtime(h, { profile: 'staging' }, { env }).connection()).toMatchObject({ mode: 'remote', baseUrl: 'http://env.example.com' });
    expect(await runtime(h, { profile: 'staging' }).connection()).toMatchObject({ mode: 'remote', baseUrl: 'https://staging.example.com' });
    expect(await runtime(h, {}).connection()).toMatchObject({ mode: 'embedded' });
    expect(await runtime(h, { local: true, remote: 'http://flag.example.com', profile: 'staging' }, { env }).connection()).toMatchObject({
      mode: 'embedded',
    });
  });

  it('--remote without a URL: the environment\'s or the profile\'s base_url, and a clear error with neither', async () => {
    const h = await home();
    expect(await runtime(h, { remote: true, profile: 'staging' }).connection()).toMatchObject({ mode: 'remote', baseUrl: 'https://staging.example.com' });
    expect(await runtime(h, { remote: true }, { env: { VERITY_BASE_URL: 'http://env.example.com' } }).connection()).toMatchObject({
      mode: 'remote',
      baseUrl: 'http://env.example.com',
    });
    await expect(runtime(h, { remote: true }).connection()).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('--remote without a URL uses the profile\'s base_url, and profile "default" has none'),
    });
    expect(await runtime(h, { remote: true, local: true }).connection()).toMatchObject({ mode: 'embedded' });
  });

  it('embedded: --test or a test key selects the sandbox; a live key or none the real sources', async () => {
    const h = await home();
    expect(await runtime(h, { test: true }).connection()).toMatchObject({ mode: 'embedded', sandbox: true });
    expect(await runtime(h, { key: 'sbx' }).connection()).toMatchObject({ sandbox: true });
    expect(await runtime(h, {}).connection()).toMatchObject({ sandbox: false });
    expect(await runtime(tempHome(), {}).connection()).toMatchObject({ sandbox: false });
    expect(await runtime(h, { key: 'sbx', live: true }).connection()).toMatchObject({ sandbox: false });
  });

  it('refuses --test with --live, and a non-http(s) service URL', async () => {
    const h = await home();
    await expect(runtime(h, { test: true, live: true }).connection()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(runtime(h, { remote: 'ftp://x.example.com' }).connection()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
