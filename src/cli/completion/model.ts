/**
 * The command tree as completion data: walked from the live commander program, so completions
 * follow every command, option and choice that is registered, with nothing listed by hand.
 */
import type { Argument, Command, Option } from 'commander';

/** What a value (of an option or of the first positional argument) completes to. */
export type ValueKind =
  | { kind: 'none' }
  | { kind: 'any' }
  | { kind: 'file' }
  | { kind: 'choice'; choices: string[] }
  /** Asked of `verity __complete SOURCE WORD` when completing (values.ts). */
  | { kind: 'dynamic'; source: string };

export interface CompletionOption {
  long?: string;
  short?: string;
  description: string;
  value: ValueKind;
  /** A program-level option, accepted after any subcommand too. */
  global: boolean;
}

export interface CompletionCommand {
  /** Canonical names from the root, e.g. ["verify", "claim"]; [] for the root. */
  path: string[];
  /** Name first, then aliases. */
  names: string[];
  description: string;
  /** This command's own options plus the program's global ones (commander accepts them anywhere). */
  options: CompletionOption[];
  commands: CompletionCommand[];
  /** The first positional argument. */
  argument: ValueKind;
}

// Names that mean "a path on disk": complete files for them.
const FILE_WORDS = /(^|[-_])(file|path|input)$/;

/**
 * Values from the user's data or the command's kind (values.ts), by flag or argument name: the
 * tree says what a value is (`--key NAME`, `<webhook-id>`), this says where its values come from.
 */
function dynamicFor(path: string[], name: string): ValueKind | undefined {
  const at = path.join(' ');
  if (name === '--key') return { kind: 'dynamic', source: 'keys' };
  if (name === '--profile') return { kind: 'dynamic', source: 'profiles' };
  if (name === '--webhook' || name === 'webhook-id') return { kind: 'dynamic', source: 'webhooks' };
  if (name === '--fail-on' && path[0] === 'verify') return { kind: 'dynamic', source: `fail-on:${path[1]}` };
  if (name === '--sources' && (at === 'verify claim' || at === 'verify business')) return { kind: 'dynamic', source: `sources:${path[1]}` };
  if (name === 'name' && (at === 'keys use' || at === 'keys remove')) return { kind: 'dynamic', source: 'keys' };
  if (name === 'key' && ['config get', 'config set', 'config unset'].includes(at)) return { kind: 'dynamic', source: 'config-keys' };
  return undefined;
}

function optionValue(o: Option, path: string[]): ValueKind {
  if (!o.required && !o.optional) return { kind: 'none' };
  const dynamic = o.long ? dynamicFor(path, o.long) : undefined;
  if (dynamic) return dynamic;
  if (o.argChoices?.length) return { kind: 'choice', choices: [...o.argChoices] };
  const valueName = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? '';
  if (FILE_WORDS.test(o.long?.replace(/^--/, '') ?? '') || FILE_WORDS.test(valueName)) return { kind: 'file' };
  return { kind: 'any' };
}

function argumentValue(a: Argument | undefined, path: string[]): ValueKind {
  if (!a) return { kind: 'none' };
  const dynamic = dynamicFor(path, a.name());
  if (dynamic) return dynamic;
  if (a.argChoices?.length) return { kind: 'choice', choices: [...a.argChoices] };
  return FILE_WORDS.test(a.name()) ? { kind: 'file' } : { kind: 'any' };
}

const firstLine = (s: string): string => s.split('\n')[0]!.trim();

function toOption(o: Option, global: boolean, path: string[]): CompletionOption {
  return {
    global,
    ...(o.long ? { long: o.long } : {}),
    ...(o.short ? { short: o.short } : {}),
    description: firstLine(o.description),
    value: optionValue(o, path),
  };
}

export function completionTree(program: Command): CompletionCommand {
  const help = program.createHelp();
  const global = help
    .visibleOptions(program)
    .filter((o) => o.long !== '--version' && o.long !== '--help')
    .map((o) => toOption(o, true, []));
  const walk = (cmd: Command, path: string[]): CompletionCommand => {
    const h = cmd.createHelp();
    const own = h.visibleOptions(cmd).map((o) => toOption(o, cmd === program && o.long !== '--version' && o.long !== '--help', path));
    const options = cmd === program ? own : [...own, ...global];
    return {
      path,
      names: [cmd.name(), ...cmd.aliases()],
      description: firstLine(cmd.description()),
      options,
      commands: h.visibleCommands(cmd).map((c) => walk(c, [...path, c.name()])),
      argument: argumentValue(cmd.registeredArguments[0], path),
    };
  };
  return walk(program, []);
}

export function allCommands(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

/** Every option flag that takes a value, anywhere: the word after it is a value, not a command. */
export function valuedFlags(root: CompletionCommand): string[] {
  const set = new Set<string>();
  for (const c of allCommands(root))
    for (const o of c.options)
      if (o.value.kind !== 'none') for (const f of [o.long, o.short]) if (f) set.add(f);
  return [...set].sort();
}

export const flagsOf = (o: CompletionOption): string[] => [o.long, o.short].filter((f): f is string => Boolean(f));

// ---- pieces bash and zsh share: both walk the typed words with the same state machine.

/** One word for the shell data: @none, @any, @file, @dyn:SOURCE, or the choices joined by commas. */
export const valueSpec = (v: ValueKind): string => (v.kind === 'choice' ? v.choices.join(',') : v.kind === 'dynamic' ? `@dyn:${v.source}` : `@${v.kind}`);

/** POSIX single-quoting (bash and zsh). */
export const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `<fn>_next` (command path + word → the deeper path) and `<fn>_data` (per path: subs, opts, vals,
 * arg), given each path's data lines in the shell's own syntax.
 */
export function dispatchFunctions(fn: string, cmds: CompletionCommand[], data: string[]): string {
  const transitions = cmds.flatMap((c) =>
    c.commands.map((sub) => `    ${sub.names.map((n) => shQuote(`${c.path.join(' ')}|${n}`)).join('|')}) REPLY=${shQuote(sub.path.join(' '))} ;;`),
  );
  return `${fn}_next() {
  REPLY=
  case "$1|$2" in
${transitions.join('\n')}
  esac
}

${fn}_data() {
  case "$1" in
${data.join('\n')}
  esac
}`;
}
