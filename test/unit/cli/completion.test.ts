import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionScript, SHELLS } from '../../../src/cli/completion/index.js';
import { completionTree } from '../../../src/cli/completion/model.js';
import { buildProgram } from '../../../src/cli/program.js';
import { cleanHomes, fakeContext, runCli, sampleKey, tempHome } from './fake-context.js';

afterAll(cleanHomes);

const program = () => buildProgram(fakeContext().ctx);
const has = (shell: string): boolean => spawnSync(shell, ['-c', 'exit 0']).status === 0;

describe('checked-in completions', () => {
  for (const shell of SHELLS)
    it(`completions/verity.${shell} equals what the current command tree generates`, () => {
      const file = new URL(`../../../completions/verity.${shell}`, import.meta.url);
      const checkedIn = readFileSync(file, 'utf8');
      // On failure: `npm run completions` regenerates the files.
      expect(checkedIn === completionScript(program(), shell), `completions/verity.${shell} is stale: run npm run completions`).toBe(true);
    });
});

describe('completion tree', () => {
  it('walks every command, alias, option and choice from commander', () => {
    const tree = completionTree(program());
    const verify = tree.commands.find((c) => c.names[0] === 'verify')!;
    const doc = verify.commands.find((c) => c.names[0] === 'document')!;
    expect(doc.path).toEqual(['verify', 'document']);
    expect(doc.options.find((o) => o.long === '--source')?.value).toEqual({ kind: 'choice', choices: ['url', 'upload', 'raw'] });
    expect(doc.options.find((o) => o.long === '--no-check-watermarks')?.value).toEqual({ kind: 'none' });
    expect(doc.options.find((o) => o.long === '--key-file')).toMatchObject({ global: true, value: { kind: 'file' } });
    expect(doc.argument).toEqual({ kind: 'file' });
    const keys = tree.commands.find((c) => c.names[0] === 'keys')!;
    expect(keys.commands.find((c) => c.names[0] === 'list')?.names).toContain('ls');
    expect(tree.commands.find((c) => c.names[0] === 'completion')?.argument).toEqual({ kind: 'choice', choices: ['bash', 'zsh', 'fish'] });
  });

  it('`verity completion SHELL` prints the same script; an unknown shell is a usage error', async () => {
    const r = await runCli(['completion', 'fish']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${completionScript(program(), 'fish')}`);
    const bad = await runCli(['completion', 'powershell']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bash, zsh, fish/);
  });
});

describe('the scripts complete in real shells', () => {
  const dir = tempHome();
  const script = (shell: string): string => {
    const f = join(dir, `verity.${shell}`);
    writeFileSync(f, completionScript(program(), shell as 'bash'));
    return f;
  };

  it('bash: subcommands, options after globals, choices, files', () => {
    const f = script('bash');
    writeFileSync(join(dir, 'photo.jpg'), '');
    const run = (...words: string[]): string[] =>
      execFileSync(
        'bash',
        ['-c', `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _verity; printf '%s\\n' "\${COMPREPLY[@]}"`, 'x', f, ...words],
        { encoding: 'utf8', cwd: dir },
      )
        .split('\n')
        .filter(Boolean);
    expect(run('verity', 'ver')).toEqual(['verify']);
    expect(run('verity', 'verify', '')).toEqual(expect.arrayContaining(['claim', 'business', 'media', 'document']));
    expect(run('verity', '--profile', 'x', 'verify', 'cl')).toEqual(['claim']);
    expect(run('verity', 'verify', 'document', '--source', '')).toEqual(['url', 'upload', 'raw']);
    expect(run('verity', 'verify', 'claim', '--max-evidence', '3', '--ma')).toEqual(['--max-evidence']);
    expect(run('verity', 'keys', 'ls', '--js')).toEqual(['--json']);
    expect(run('verity', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(run('verity', 'verify', 'media', 'pho')).toEqual(['photo.jpg']);
  });

  it.skipIf(!has('zsh'))('zsh: parses, and offers choices and subcommands', () => {
    const f = script('zsh');
    execFileSync('zsh', ['-n', f]);
    // Completion widgets need a live zle; stub the builtins and call the function directly.
    const probe = `compdef() { :; }
_describe() { local arr=\${@[-1]}; print -rl -- \${(P)arr}; }
compadd() { print -rl -- \${@[2,-1]}; }
_files() { print -r -- '<files>'; }
_message() { :; }
source "$1"; shift; words=("$@"); CURRENT=\${#words}; PREFIX=\${words[-1]}; _verity`;
    const run = (...words: string[]): string => execFileSync('zsh', ['-c', probe, 'x', f, ...words], { encoding: 'utf8' });
    expect(run('verity', 'verify', 'document', '--source', '').split('\n')).toEqual(['url', 'upload', 'raw', '']);
    expect(run('verity', '--json', 'verify', '')).toContain('claim:check a statement');
    expect(run('verity', 'verify', 'claim', '--')).toContain('--max-evidence:evidence items to return');
    expect(run('verity', 'verify', 'media', 'x')).toContain('<files>');
  });

  it.skipIf(!has('fish'))('fish: parses, and `complete -C` offers choices and subcommands', () => {
    const f = script('fish');
    execFileSync('fish', ['-n', f]);
    const run = (line: string): string[] =>
      execFileSync('fish', ['-c', `source $argv[1]; complete -C $argv[2]`, f, line], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]!);
    expect(run('verity verify document --source ')).toEqual(['raw', 'upload', 'url']);
    expect(run('verity --json verify cl')).toEqual(['claim']);
    expect(run('verity keys ')).toEqual(expect.arrayContaining(['add', 'list', 'ls', 'use', 'remove', 'rm']));
    expect(run('verity verify claim --max-e')).toEqual(['--max-evidence']);
  });
});

describe('completions that know the user\'s data (verity __complete)', () => {
  it('key names, profiles and settings from the config; --fail-on and --sources per kind, as comma lists', async () => {
    const home = tempHome();
    for (const [name, fill] of [['ci', 'C'], ['staging', 'S']] as const)
      expect((await runCli(['keys', 'add', name, '--key', sampleKey('test', fill)], { home })).code).toBe(0);
    expect((await runCli(['config', 'set', 'profiles.work.base_url', 'http://127.0.0.1:9'], { home })).code).toBe(0);
    const values = async (...a: string[]) => (await runCli(['__complete', ...a], { home })).stdout.split('\n').filter(Boolean);
    expect(await values('keys', '')).toEqual(['ci', 'staging']);
    expect(await values('keys', 'st')).toEqual(['staging']);
    expect(await values('profiles', '')).toEqual(['default', 'work']);
    expect(await values('config-keys', 'profiles.work.')).toEqual(['profiles.work.base_url', 'profiles.work.key']);
    expect(await values('config-keys', 'llm.')).toEqual(expect.arrayContaining(['llm.base_url', 'llm.model', 'llm.api_key']));
    expect(await values('fail-on:media', '')).toEqual(['authentic', 'likely_authentic', 'suspicious', 'manipulated']);
    expect(await values('fail-on:media', 'suspicious,')).toEqual(['suspicious,authentic', 'suspicious,likely_authentic', 'suspicious,manipulated']);
    expect(await values('fail-on:claim', '')).not.toContain('manipulated');
    expect(await values('sources:business', 'gleif,')).toContain('gleif,companies_house');
  });

  it('webhook ids from the embedded registry; without a store nothing is created', async () => {
    const home = tempHome();
    expect((await runCli(['__complete', 'webhooks', ''], { home })).stdout).toBe('');
    expect(existsSync(join(home, 'data', 'verity.db'))).toBe(false);
    const add = await runCli(['webhooks', 'add', 'http://127.0.0.1:4242/', '--events', 'verification.completed', '--json'], { home });
    expect(add.code, add.stderr).toBe(0);
    const id = JSON.parse(add.stdout).id as string;
    expect((await runCli(['__complete', 'webhooks', 'we_'], { home })).stdout.trim()).toBe(id);
  });

  it('the tree says where each value comes from', () => {
    const tree = completionTree(program());
    const at = (...path: string[]) => path.reduce((c, n) => c.commands.find((x) => x.names[0] === n)!, tree);
    expect(at('verify', 'media').options.find((o) => o.long === '--fail-on')?.value).toEqual({ kind: 'dynamic', source: 'fail-on:media' });
    expect(at('verify', 'claim').options.find((o) => o.long === '--sources')?.value).toEqual({ kind: 'dynamic', source: 'sources:claim' });
    expect(at('verify', 'claim').options.find((o) => o.long === '--key')?.value).toEqual({ kind: 'dynamic', source: 'keys' });
    expect(at('keys', 'use').argument).toEqual({ kind: 'dynamic', source: 'keys' });
    expect(at('webhooks', 'remove').argument).toEqual({ kind: 'dynamic', source: 'webhooks' });
    expect(at('config', 'get').argument).toEqual({ kind: 'dynamic', source: 'config-keys' });
  });

  it('bash, zsh and fish ask the command they complete (a stand-in here) for those values', () => {
    const dir = tempHome();
    // A stand-in for verity that answers __complete with what it was asked.
    const stub = join(dir, 'verity');
    writeFileSync(stub, '#!/bin/sh\necho "asked:$2:$3"\n', { mode: 0o755 });
    const bashFile = join(dir, 'c.bash');
    writeFileSync(bashFile, completionScript(program(), 'bash'));
    const bash = (...words: string[]): string[] =>
      execFileSync('bash', ['-c', `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); _verity; printf '%s\\n' "\${COMPREPLY[@]}"`, 'x', bashFile, ...words], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean);
    expect(bash(stub, 'keys', 'use', 's')).toEqual(['asked:keys:s']);
    expect(bash(stub, 'verify', 'media', 'x.jpg', '--fail-on', 'suspicious,m')).toEqual(['asked:fail-on:media:suspicious,m']);
    expect(bash(stub, '--key', '')).toEqual(['asked:keys:']);
    if (has('fish')) {
      const fishFile = join(dir, 'c.fish');
      writeFileSync(fishFile, completionScript(program(), 'fish'));
      const out = execFileSync('fish', ['-c', `function verity; echo "asked:$argv[2]:$argv[3]"; end; source $argv[1]; complete -C $argv[2]`, fishFile, 'verity webhooks rm we_'], {
        encoding: 'utf8',
      });
      expect(out.split('\n')[0]!.split('\t')[0]).toBe('asked:webhooks:we_');
    }
    if (has('zsh')) {
      const zshFile = join(dir, 'c.zsh');
      writeFileSync(zshFile, completionScript(program(), 'zsh'));
      const probe = `compdef() { :; }
_describe() { :; }
compadd() { print -rl -- \${@[2,-1]}; }
_files() { :; }
_message() { :; }
source "$1"; shift; words=("$@"); CURRENT=\${#words}; PREFIX=\${words[-1]}; _verity`;
      expect(execFileSync('zsh', ['-c', probe, 'x', zshFile, stub, 'config', 'get', 'llm.'], { encoding: 'utf8' }).trim()).toBe('asked:config-keys:llm.');
    }
  });
});

