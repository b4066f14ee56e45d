/** Help that is complete (issue 14 item 4): every command, every path, every example. */
import { cpSync, existsSync } from 'node:fs';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { cleanHomes, fakeContext, runCli, sampleKey, tempHome } from './fake-context.js';

afterAll(cleanHomes);

/** Every command path of the tree, groups included (not the help command itself). */
function commandPaths(): Array<{ path: string[]; cmd: Command }> {
  const out: Array<{ path: string[]; cmd: Command }> = [];
  const walk = (c: Command, path: string[]): void => {
    for (const s of c.createHelp().visibleCommands(c)) {
      if (s.name() === 'help' && c.parent === null) continue;
      out.push({ path: [...path, s.name()], cmd: s });
      walk(s, [...path, s.name()]);
    }
  };
  walk(buildProgram(fakeContext().ctx), []);
  return out;
}

const paths = commandPaths();

/** `$ verity …` lines of a help text. */
const examplesOf = (help: string): string[] => [...help.matchAll(/^\s+\$ (verity .*)$/gm)].map((m) => m[1]!.replace(/\s+#.*$/, '').trim());

/** Splits a command line the way a POSIX shell would for these simple lines (quotes, no expansion). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

describe('help for every command', () => {
  it.each(paths.map((p) => [p.path.join(' '), p.path] as const))('verity %s --help: examples, global flags, no internal documents', async (_, path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n\s+\$ .*verity /);
    expect(r.stdout).toContain('Global Options:');
    expect(r.stdout).toMatch(/--json\s/);
    expect(r.stdout).not.toMatch(/\bSPEC\b|DESIGN\.md/);
  });

  it('`verity help PATH` shows that command\'s help; unknown topics are errors (exit 2)', async () => {
    const direct = await runCli(['verify', 'claim', '--help']);
    const viaHelp = await runCli(['help', 'verify', 'claim']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(direct.stdout);
    expect((await runCli(['help', 'keys', 'ls'])).stdout).toBe((await runCli(['keys', 'list', '--help'])).stdout);
    const unknown = await runCli(['help', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no command "verity nosuch"');
    expect((await runCli(['help', 'verify', 'nosuch'])).code).toBe(2);
  });

  it('required options are marked', async () => {
    const r = await runCli(['media', 'index', 'add', '--help']);
    expect(r.stdout).toMatch(/--source <name>\s+\(required\)/);
    expect((await runCli(['verify', 'claim', '--help'])).stdout).not.toContain('(required)');
  });

  it('aliases are uniform: every list is also ls, every remove also rm; destructive commands take --yes', () => {
    for (const { cmd, path } of paths) {
      if (cmd.name() === 'list') expect(cmd.aliases(), path.join(' ')).toContain('ls');
      if (cmd.name() === 'remove') expect(cmd.aliases(), path.join(' ')).toContain('rm');
      if (['remove', 'revoke'].includes(cmd.name())) expect(cmd.options.map((o) => o.long), path.join(' ')).toContain('--yes');
    }
  });

  it('destructive commands refuse to act in a script without --yes', async () => {
    const r = await runCli(['admin', 'keys', 'revoke', 'ci']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('add --yes');
  });
});

describe('every example that can run offline runs', () => {
  it('runs them (exit 0, or 3 where the example sets a gate)', async () => {
    const examples = new Set<string>();
    for (const { path } of [{ path: [] as string[] }, ...paths]) for (const e of examplesOf((await runCli([...path, '--help'])).stdout)) examples.add(e);
    const ran: string[] = [];
    const skipped: string[] = [];
    const failed: string[] = [];
    // A home holding what the examples name (stored keys, settings, a server key), copied fresh
    // for each example so that one example's change is not the next one's starting point.
    const seeded = tempHome();
    for (const [name, fill] of [['ci', 'C'], ['old-ci', 'O'], ['staging', 'S']] as const)
      expect((await runCli(['keys', 'add', name, '--key', sampleKey('test', fill)], { home: seeded })).code).toBe(0);
    for (const [k, v] of <Array<[string, string]>>[['contact', 'ops@example.com'], ['llm.base_url', 'http://127.0.0.1:9/v1'], ['sources.google_fact_check.api_key', 'AIzaEXAMPLE'], ['profiles.staging.base_url', 'http://127.0.0.1:9']])
      expect((await runCli(['config', 'set', k, v], { home: seeded })).code).toBe(0);
    // On pro, the plan the examples give the default account (a different --plan is refused: plans are per account).
    expect((await runCli(['admin', 'keys', 'create', '--name', 'ci-2025', '--env', 'test', '--plan', 'pro'], { home: seeded })).code).toBe(0);
    for (const line of examples) {
      const w = words(line).slice(1);
      const offline =
        !/[|<>;&]|\$\(/.test(line) &&
        !w.some((x) => ['--remote', '--live', 'serve', 'listen', 'trigger', '--watch'].includes(x)) &&
        !(w[0] === 'keys' && w[1] === 'add') &&
        // Destructive without --yes: asks a person first.
        !(['remove', 'rm', 'revoke'].some((c) => w.includes(c)) && !w.includes('--yes')) &&
        // A verification without --test is live: it needs the network.
        !(w[0] === 'verify' && !w.includes('--test')) &&
        !(w[0] === 'webhooks' && w[1] === 'add') &&
        // A model download reaches the model hub or a mirror: never from a test.
        !(w[0] === 'models' && w[1] === 'pull') &&
        // A PostgreSQL server named in an example is the reader's (its name would be looked up).
        !w.some((x) => /^postgres(ql)?:\/\//.test(x)) && !/VERITY_DATABASE_URL=/.test(line) &&
        // Placeholders (ids, files) that only exist on the reader's machine.
        !w.some((x) => /^(we|wh|vty)_/.test(x)) &&
        w.every((x) => x.startsWith('-') || !/\.(jpe?g|png|pdf|docx|csv|jsonl?|txt|html)$/i.test(x) || existsSync(x));
      if (!offline) {
        skipped.push(line);
        continue;
      }
      const home = tempHome();
      cpSync(seeded, home, { recursive: true });
      const r = await runCli(w, { home });
      if (![0, 3].includes(r.code)) failed.push(`${line}  → exit ${r.code}: ${r.stderr.trim()}`);
      ran.push(line);
    }
    expect(failed).toEqual([]);
    // Enough of them run for the test to mean something (sandbox verifications, local commands).
    console.log(`examples run: ${ran.length}, left out: ${skipped.length}`);
    expect(ran.length).toBeGreaterThanOrEqual(15);
  });
});
