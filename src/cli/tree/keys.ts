import type { Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerKeys(program: Command, ctx: CliContext): void {
  const keys = program
    .command('keys')
    .description('store, list, choose and remove API keys (kept in the config file, mode 0600)')
    .addHelpText(
      'after',
      `
Keys look like vty_live_… or vty_test_…; the prefix decides the environment. A test key selects
the sandbox (simulated, deterministic data). Keys are never printed whole: only prefix + last 4.

Examples:
  $ verity keys add ci --key-file ./key.txt
  $ verity keys ls
  $ verity keys rm old-ci --yes`,
    );

  keys
    .command('add')
    .description('store an API key (prompted on a terminal; otherwise from --key -, stdin or --key-file)')
    .argument('[name]', 'a name for the key (default: its environment, "live" or "test")')
    .option('--force', 'replace a stored key of the same name')
    .option('--use', 'make it the active profile\'s key (the first key stored always is)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity keys add ci                       # prompts for the key on a terminal
  $ printenv VTY_KEY | verity keys add ci    # reads it from stdin
  $ verity keys add ci --key-file ./key.txt
  $ verity keys add staging --key - --use < key.txt`,
    )
    .action(lazyAction(ctx, () => import('../commands/keys-add.js')));

  keys
    .command('list')
    .alias('ls')
    .description('list stored keys: name, environment, redacted key, last used, which one is active')
    .addHelpText(
      'after',
      `
Examples:
  $ verity keys list
  $ verity keys list --json | jq -r '.data[] | select(.active) | .name'`,
    )
    .action(lazyAction(ctx, () => import('../commands/keys-list.js')));

  keys
    .command('use')
    .description("make a stored key the active profile's key (--profile picks another profile)")
    .argument('<name>', 'name of a stored key')
    .addHelpText(
      'after',
      `
Examples:
  $ verity keys use ci
  $ verity keys use staging --profile staging`,
    )
    .action(lazyAction(ctx, () => import('../commands/keys-use.js')));

  keys
    .command('remove')
    .alias('rm')
    .description('forget a stored key (profiles that used it are left without a key)')
    .argument('<name>', 'name of a stored key')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .addHelpText(
      'after',
      `
Examples:
  $ verity keys remove old-ci --yes`,
    )
    .action(lazyAction(ctx, () => import('../commands/keys-remove.js')));
}
