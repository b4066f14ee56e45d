/** One set of rules across commands (issue 14 item 5). */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanHomes, runCli, tempHome } from './fake-context.js';

afterAll(cleanHomes);

describe('a missing file is a usage error (exit 2) in every command that reads one', () => {
  const missing = (): string => join(tempHome(), 'no-such-file.csv');
  it.each([
    ['verify media', (f: string) => ['verify', 'media', f, '--test']],
    ['verify document', (f: string) => ['verify', 'document', f, '--test']],
    ['corpus add', (f: string) => ['corpus', 'add', f]],
    ['data import', (f: string) => ['data', 'import', 'companies-house', f]],
    ['media index add', (f: string) => ['media', 'index', 'add', f, '--source', 'test', '--url', 'https://example.com/a.jpg', '--seen', '2026-01-01']],
  ])('%s', async (_, args) => {
    const f = missing();
    const r = await runCli(args(f));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`No such file: ${f}`);
  });
});

describe('--fail-on takes only values the kind of result can have', () => {
  it.each([
    ['media', 'true'],
    ['claim', 'manipulated'],
    ['business', 'false'],
    ['document', 'dissolved'],
  ])('verify %s --fail-on %s is refused before anything runs', async (kind, value) => {
    const input = kind === 'claim' || kind === 'business' ? 'Acme Widgets Ltd' : join(tempHome(), 'x');
    const r = await runCli(['verify', kind, input, '--test', '--fail-on', value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`"${value}" is not a value a ${kind} result can have`);
  });

  it('the help of each verify command lists its own values', async () => {
    expect((await runCli(['verify', 'media', '--help'])).stdout).toMatch(/--fail-on <values>\s+exit 3 when the authenticity is any of[\s\S]*manipulated/);
    expect((await runCli(['verify', 'claim', '--help'])).stdout).not.toContain('manipulated');
  });
});

describe('errors name the flag the user typed', () => {
  it('--max-evidence, not max_evidence; the --json body keeps the API field', async () => {
    const r = await runCli(['verify', 'claim', 'The sky is blue', '--test', '--max-evidence', '50']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Invalid --max-evidence: must be between 1 and 20');
    expect(r.stderr).not.toContain('max_evidence');
    const j = await runCli(['verify', 'claim', 'The sky is blue', '--test', '--max-evidence', '50', '--json']);
    expect(JSON.parse(j.stdout).error.details[0].field).toBe('max_evidence');
  });

  it('the positional argument when that is how the value came', async () => {
    const r = await runCli(['verify', 'claim', '   ', '--test']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Invalid <text> \(or --claim\)/);
  });
});
