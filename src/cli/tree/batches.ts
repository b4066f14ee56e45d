import { Option, type Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerBatches(program: Command, ctx: CliContext): void {
  const b = program
    .command('batches')
    .description('server batches: list, inspect, download results of, and cancel batches (needs --remote)')
    .addHelpText(
      'after',
      `
Batches are created by \`verity verify batch FILE --remote URL\` (or POST /v1/batches).

Examples:
  $ verity --remote https://verity.example.com batches list
  $ verity --remote https://verity.example.com batches results bat_5mQkT1pZr8Yw2XcV9bN3hJ4s --status failed --ndjson`,
    );

  b.command('list')
    .alias('ls')
    .description('batches of this key, newest first')
    .option('--limit <n>', 'how many (1 to 100)', '20')
    .addHelpText(
      'after',
      `
Examples:
  $ verity --remote https://verity.example.com batches list
  $ verity --remote https://verity.example.com batches list --json | jq -r '.data[] | select(.status == "partial") | .id'`,
    )
    .action(lazyAction(ctx, () => import('../commands/batches-list.js')));

  b.command('get')
    .description('one batch: status, counts, credits')
    .argument('<batch-id>', 'bat_…')
    .addHelpText(
      'after',
      `
Examples:
  $ verity --remote https://verity.example.com batches get bat_5mQkT1pZr8Yw2XcV9bN3hJ4s
  $ verity --remote https://verity.example.com batches get bat_5mQkT1pZr8Yw2XcV9bN3hJ4s --json | jq .request_counts`,
    )
    .action(lazyAction(ctx, () => import('../commands/batches-get.js')));

  b.command('results')
    .description('the finished items as NDJSON lines (custom_id, index, seq, status, result | error)')
    .argument('<batch-id>', 'bat_…')
    .option('--after <seq>', 'continue after this line (its seq): resumes a broken download', '0')
    .addOption(new Option('--status <status>', 'only items that ended so').choices(['succeeded', 'failed', 'cancelled']))
    .option('--follow', 'keep reading until the batch ends')
    .addHelpText(
      'after',
      `
Lines are written as NDJSON unless --json (one {"data": [...]} document) is given.

Examples:
  $ verity --remote https://verity.example.com batches results bat_5mQkT1pZr8Yw2XcV9bN3hJ4s > results.ndjson
  $ verity --remote https://verity.example.com batches results bat_5mQkT1pZr8Yw2XcV9bN3hJ4s --after 1200 --follow >> results.ndjson
  $ verity --remote https://verity.example.com batches results bat_5mQkT1pZr8Yw2XcV9bN3hJ4s --status failed | jq -r .custom_id`,
    )
    .action(lazyAction(ctx, () => import('../commands/batches-results.js')));

  b.command('cancel')
    .description('cancel a batch: queued items never run, running ones stop (nothing charged for them)')
    .argument('<batch-id>', 'bat_…')
    .option('-y, --yes', 'do not ask for confirmation on a terminal (needed in scripts)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity --remote https://verity.example.com batches cancel bat_5mQkT1pZr8Yw2XcV9bN3hJ4s
  $ verity --remote https://verity.example.com batches cancel bat_5mQkT1pZr8Yw2XcV9bN3hJ4s --yes --json`,
    )
    .action(
      lazyAction(ctx, () => import('../commands/batches-cancel.js'), {
        confirm: (cmd) => `Cancel the batch ${String(cmd.args[0])}? Its queued items will not run.`,
      }),
    );
}
