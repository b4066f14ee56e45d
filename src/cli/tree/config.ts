import type { Command } from 'commander';
import { lazyAction } from '../action.js';
import { SETTINGS } from '../commands/config-settings.js';
import type { CliContext } from '../context.js';

export function registerConfig(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description('read and change settings in the config file (dotted names: llm.base_url, profiles.staging.base_url, …)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity config list
  $ verity config set contact ops@example.com
  $ verity config path`,
    );

  config
    .command('get')
    .description('print one setting (secrets masked unless --show-secrets)')
    .argument('<key>', 'dotted setting name, e.g. contact or sources.google_fact_check.api_key')
    .option('--show-secrets', 'show source and LLM secrets in full (verity API keys are never shown whole)')
    .addHelpText(
      'after',
      `
An unset setting exits with 1 (NOT_FOUND), like git config.

Examples:
  $ verity config get contact
  $ verity config get profiles.staging.base_url
  $ verity config get sources --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/config-get.js')));

  const width = Math.max(...SETTINGS.map((s) => s.path.length));
  config
    .command('set')
    .description('change one setting (checked before it is written; "-" reads the value from stdin)')
    .argument('<key>', 'dotted setting name')
    .argument('<value>', 'the value, or - to read it from stdin (for secrets)')
    .addHelpText(
      'after',
      `
Settings:
${SETTINGS.map((s) => `  ${s.path.padEnd(width)}  ${s.description}${s.choices ? ` (${s.choices.join('|')})` : ''}`).join('\n')}

Examples:
  $ verity config set contact ops@example.com
  $ verity config set profiles.staging.base_url https://verity.staging.example.com
  $ verity config set profile staging
  $ verity config set sources.google_fact_check.api_key - < gfc-key.txt`,
    )
    .action(lazyAction(ctx, () => import('../commands/config-set.js')));

  config
    .command('unset')
    .description('remove one setting')
    .argument('<key>', 'dotted setting name')
    .addHelpText('after', '\nExamples:\n  $ verity config unset llm.base_url')
    .action(lazyAction(ctx, () => import('../commands/config-unset.js')));

  config
    .command('list')
    .alias('ls')
    .description('print every setting as key = value (secrets masked unless --show-secrets)')
    .option('--show-secrets', 'show source and LLM secrets in full (verity API keys are never shown whole)')
    .addHelpText('after', '\nExamples:\n  $ verity config list\n  $ verity config list --json | jq .profiles')
    .action(lazyAction(ctx, () => import('../commands/config-list.js')));

  config
    .command('path')
    .description('print where the config file is (--json: also the data and cache folders)')
    .addHelpText('after', '\nExamples:\n  $ verity config path\n  $ chmod 600 "$(verity config path)"')
    .action(lazyAction(ctx, () => import('../commands/config-path.js')));
}
