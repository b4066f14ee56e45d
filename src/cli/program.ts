/** The commander root: global flags, help conventions, and the areas of src/cli/tree. */
import { Command, Help, Option } from 'commander';
import { lazyAction } from './action.js';
import type { CliContext } from './context.js';
import { VERSION } from '../version.js';
import { areas } from './tree/index.js';
import { reflowText } from '../output/wrap.js';

export function buildProgram(ctx: CliContext): Command {
  // Help on a terminal is wrapped between words at its width (the examples and notes we write
  // are longer than 80 columns in places); piped, it keeps whole lines.
  const forTerminal = (s: string): string => (ctx.stdout.isTTY && ctx.stdout.columns ? reflowText(s, ctx.stdout.columns) : s);
  const program = new Command('verity')
    .description('Verify claims, companies, images/videos and documents: a trust score with an evidence chain.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--json', 'print one JSON document (the result, or the error body) on stdout')
    .option('--remote [url]', 'use the verity service at URL instead of the embedded engine (env VERITY_BASE_URL; no URL: the profile\'s base_url)')
    .option('--local', 'force the embedded engine even when a profile or VERITY_BASE_URL names a service')
    .option('--key <name|key|->', 'API key: a stored key name, "-" to read it from stdin, or the key itself')
    .option('--key-file <path>', 'read the API key from a file')
    .option('--test', 'sandbox: simulated, deterministic data and no network (or a test key in remote mode)')
    .option('--live', 'real sources (or a live key in remote mode)')
    .option('--profile <name>', 'config profile to use (env VERITY_PROFILE)')
    .option('-q, --quiet', 'print only the result; no progress or notes')
    .option('-v, --verbose', 'more detail on stderr')
    .option('--no-color', 'no colour (also NO_COLOR, TERM=dumb, or when not a terminal)')
    .addOption(new Option('--ndjson', 'one JSON object per line (streams)').hideHelp())
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(forTerminal(s)),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify claim "The Eiffel Tower is in Paris" --test
  $ verity verify claim - --json < claim.txt | jq .verdict
  $ verity verify business "Acme Widgets Ltd" --jurisdiction gb --officers
  $ verity verify media photo.jpg --fail-on manipulated,suspicious
  $ verity keys add ci --key-file ./key.txt

Exit codes: 0 ok · 1 error · 2 usage/invalid input · 3 gate failed (--fail-on
            or --min-trust) · 4 authentication/plan · 5 rate limit/quota
            6 upstream unavailable · 130 interrupted`,
    );
  for (const register of areas) register(program, ctx);
  // `verity help verify claim` walks the whole path (commander's own help command takes one word).
  program.helpCommand(false);
  program
    .command('help')
    .description('show the help of a command: verity help verify claim')
    .argument('[command...]', 'the command path')
    .addHelpText(
      'after',
      `
Examples:
  $ verity help verify claim
  $ verity help keys`,
    )
    .action(lazyAction(ctx, () => import('./commands/help.js')));
  // Settings every command shares, applied after the tree is built (subcommands inherit only
  // what was set before they were created).
  const walk = (c: Command): void => {
    c.exitOverride();
    c.configureOutput({ writeOut: (s) => ctx.stdout.write(forTerminal(s)), writeErr: (s) => ctx.stderr.write(s) });
    c.configureHelp(HELP);
    // Uniform aliases: every list is also `ls`, every remove also `rm`.
    const alias = ({ list: 'ls', remove: 'rm' } as Record<string, string>)[c.name()];
    if (alias && !c.aliases().includes(alias)) c.alias(alias);
    c.commands.forEach(walk);
  };
  walk(program);
  return program;
}

/** Help layout: global flags in every command's help, required options marked. */
const HELP: Partial<Help> = {
  showGlobalOptions: true,
  optionDescription(option: Option): string {
    const text = Help.prototype.optionDescription.call(this, option);
    return option.mandatory ? `(required) ${text}` : text;
  },
};
