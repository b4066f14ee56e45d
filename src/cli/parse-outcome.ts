/**
 * What a rejection by the argument parser (commander) means for the caller: an exit code and,
 * when the command line asked for `--json` or `--ndjson`, the same `{ "error": … }` document every
 * other failure prints on stdout. Commander has already written its own words (and the usage
 * hint) on stderr; scripts that pipe stdout into `jq` get a document instead of empty input.
 */
import type { Command, CommanderError } from 'commander';
import { VerityError, type ErrorDetail } from '../api/errors.js';
import type { CliContext } from './context.js';
import { EXIT } from './errors.js';

/** Help and version requests end a parse with a CommanderError too; they are not failures. */
export function isParserSuccess(err: CommanderError): boolean {
  return ['commander.helpDisplayed', 'commander.version'].includes(err.code) || (err.code === 'commander.help' && err.exitCode === 0);
}

/** The words the user typed before `--` (after it, `--json` is an argument, not a flag). */
function flagsTyped(args: string[]): Set<string> {
  const end = args.indexOf('--');
  return new Set(end === -1 ? args : args.slice(0, end));
}

/** The deepest command named by the leading words of `args` (`keys`, `verify claim`, …). */
function commandNamed(program: Command, args: string[]): Command {
  let cmd = program;
  for (const word of args) {
    if (word.startsWith('-')) continue;
    const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) break;
    cmd = next;
  }
  return cmd;
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The first quoted word of commander's message: the option, argument or command it rejected. */
const quoted = (message: string): string | undefined => /'([^']+)'/.exec(message)?.[1];

/** A parser rejection as the API's VALIDATION_FAILED, with the field it concerns. */
export function usageError(err: CommanderError, program: Command, args: string[]): VerityError {
  // Commander's text: "error: unknown command 'clam'\n(Did you mean claim?)".
  const message = err.message
    .replace(/^error:\s*/, '')
    .split('\n')
    .map((s) => s.trim().replace(/^\((.*)\)$/, '$1'))
    .filter(Boolean)
    .join('; ');
  const details: ErrorDetail[] = [];
  switch (err.code) {
    case 'commander.help': {
      // A command group without its subcommand (`verity keys`): name the ones it has.
      const cmd = commandNamed(program, args);
      const subs = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      return new VerityError('VALIDATION_FAILED', `\`${commandPath(cmd)}\` needs a command: ${subs.join(', ')}`, {
        details: [{ field: 'command', issue: `one of ${subs.join(', ')}` }],
      });
    }
    case 'commander.unknownCommand':
      details.push({ field: 'command', issue: message });
      break;
    case 'commander.unknownOption':
    case 'commander.optionMissingArgument':
    case 'commander.missingMandatoryOptionValue':
    case 'commander.conflictingOption': {
      // "-o, --output <file>" → "--output": the long flag names the field.
      const flag = quoted(message) ?? 'option';
      const long = /--[\w-]+/.exec(flag)?.[0] ?? flag.split(/[ ,]/)[0]!;
      details.push({ field: long, issue: message });
      break;
    }
    case 'commander.missingArgument':
    case 'commander.excessArguments':
      details.push({ field: quoted(message) ?? 'arguments', issue: message });
      break;
    case 'commander.invalidArgument': {
      // "command-argument value 'powershell' is invalid for argument 'shell'. …": the second quote.
      const names = [...message.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
      details.push({ field: names[1] ?? names[0] ?? 'argument', issue: message });
      break;
    }
    default:
      break;
  }
  return new VerityError('VALIDATION_FAILED', message || 'the command line could not be read', details.length ? { details } : {});
}

/**
 * Settles a CommanderError: the exit code main() sets, after printing the error document on
 * stdout when `--json`/`--ndjson` was typed.
 */
export function settleParserError(err: CommanderError, program: Command, args: string[], ctx: Pick<CliContext, 'stdout'>): number {
  if (isParserSuccess(err)) return EXIT.ok;
  const typed = flagsTyped(args);
  if (typed.has('--json') || typed.has('--ndjson')) {
    const body = usageError(err, program, args).toBody();
    ctx.stdout.write(typed.has('--json') ? `${JSON.stringify(body, null, 2)}\n` : `${JSON.stringify(body)}\n`);
  }
  return EXIT.usage;
}
