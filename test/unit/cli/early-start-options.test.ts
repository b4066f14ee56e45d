/**
 * bin/run-bundle.js guesses the input file of `verify document` from the arguments before the CLI
 * is loaded (to read it ahead): the values of options that take one must not be taken for it
 * (`verify document --report out.pdf in.pdf`). Its list of such options is checked here against
 * the commander definitions the CLI parses with.
 */
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
// @ts-expect-error: a plain JavaScript module without types
import { MEDIA_VALUE_OPTIONS, positionals, VALUE_OPTIONS } from '../../../bin/run-bundle.js';
import { cleanHomes, fakeContext } from './fake-context.js';

afterAll(cleanHomes);

/** Long names of the options of `cmd` and its parents that take a value. */
function valueOptions(cmd: Command): string[] {
  const out: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) if ((o.required || o.optional) && o.long) out.push(o.long);
  return out;
}

describe('early start: the input file among the arguments of verify document and verify media', () => {
  it('the list of options that take a value is the CLI definitions', () => {
    const program = buildProgram(fakeContext().ctx);
    const document = program.commands.find((c) => c.name() === 'verify')!.commands.find((c) => c.name() === 'document')!;
    expect([...(VALUE_OPTIONS as string[])].sort()).toEqual(valueOptions(document).sort());
  });

  it('and for verify media (whose decode starts early): its list is the CLI definitions too', () => {
    const program = buildProgram(fakeContext().ctx);
    const media = program.commands.find((c) => c.name() === 'verify')!.commands.find((c) => c.name() === 'media')!;
    expect([...(MEDIA_VALUE_OPTIONS as string[])].sort()).toEqual(valueOptions(media).sort());
    const p = positionals as (a: string[], o?: string[]) => string[];
    expect(p(['--heatmap', 'map.png', 'photo.jpg'], MEDIA_VALUE_OPTIONS as string[])).toEqual(['photo.jpg']);
  });

  it('option values are skipped, `--opt=value` and `--` are understood', () => {
    const p = positionals as (a: string[]) => string[];
    expect(p(['--report', 'out.pdf', 'in.pdf'])).toEqual(['in.pdf']);
    expect(p(['--fail-on', 'x', '--min-trust', '0.5', '--json', 'in.pdf'])).toEqual(['in.pdf']);
    expect(p(['--report=out.pdf', 'in.pdf'])).toEqual(['in.pdf']);
    expect(p(['--mime-type', 'application/pdf', '--', '--odd-name.pdf'])).toEqual(['--odd-name.pdf']);
    expect(p(['-', '--quiet'])).toEqual(['-']);
  });
});
