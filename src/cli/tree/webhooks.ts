import { Command, Option } from 'commander';
import { EVENT_TYPES } from '../../api/enums.js';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerWebhooks(program: Command, ctx: CliContext): void {
  const wh = program
    .command('webhooks')
    .description('register webhooks and inspect, test, replay and deliver their events (remote service, or local in embedded mode)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks add https://example.com/hooks --events verification.completed
  $ verity webhooks ls`,
    );

  wh.command('add')
    .description('register an endpoint; the secret is generated and shown once unless you give one')
    .argument('<url>', 'https URL (http only for loopback hosts, e.g. verity listen)')
    .requiredOption('--events <types>', `comma-separated: ${EVENT_TYPES.join(', ')}`)
    .option('--secret <value|->', 'signing secret (≥ 32 characters; whsec_ + base64 of 24–64 bytes for --signature-scheme standard); - reads it from stdin')
    .option('--secret-file <path>', 'read the signing secret from a file')
    .addOption(
      new Option('--signature-scheme <scheme>', 'how deliveries are signed: verity (X-Service-Signature) or standard (Standard Webhooks: webhook-id/-timestamp/-signature)')
        .choices(['verity', 'standard'])
        .default('verity'),
    )
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks add https://example.com/hooks --events verification.completed,credit.threshold
  $ verity webhooks add https://example.com/hooks --events verification.completed --signature-scheme standard
  $ verity webhooks add http://127.0.0.1:4242/ --events verification.completed --secret-file ~/.verity-listen-secret
  $ verity --remote https://verity.example.com webhooks add https://example.com/h --events verification.failed --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-add.js')));

  wh.command('list')
    .description('list registered webhooks (secrets shown only as a hint)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks list
  $ verity webhooks ls --json | jq -r '.data[].id'`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-list.js')));

  wh.command('remove')
    .description('remove a webhook; its undelivered events are cancelled, its attempt log kept')
    .argument('<webhook-id>', 'we_…')
    .option('-y, --yes', 'do not ask for confirmation on a terminal (needed in scripts)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks remove we_0123456789abcdef
  $ verity webhooks rm we_0123456789abcdef --yes`,
    )
    .action(
      lazyAction(ctx, () => import('../commands/webhooks-remove.js'), {
        confirm: (cmd) => `Remove the webhook ${String(cmd.args[0])}? Its undelivered events are cancelled.`,
      }),
    );

  wh.command('test')
    .description('send a signed test event to a webhook now and show the attempt')
    .argument('<webhook-id>', 'we_…')
    .addOption(new Option('--type <event-type>', 'event type of the sample (default: its first subscribed type)').choices([...EVENT_TYPES]))
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks test we_0123456789abcdef
  $ verity webhooks test we_0123456789abcdef --type credit.threshold --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-test.js')));

  wh.command('deliveries')
    .description("a webhook's attempt log: time, event, attempt, outcome, status, latency, error")
    .argument('<webhook-id>', 'we_…')
    .option('--limit <n>', 'attempts to show, newest first', '50')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks deliveries we_0123456789abcdef
  $ verity webhooks deliveries we_0123456789abcdef --limit 5 --json | jq '.data[].outcome'`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-deliveries.js')));

  wh.command('replay')
    .description('send an event again (same id and body) with a fresh series of attempts')
    .argument('<event-id>', 'wh_…')
    .option('--webhook <webhook-id>', 'only to this webhook (default: every current subscriber)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks replay wh_0123456789abcdef
  $ verity webhooks replay wh_0123456789abcdef --webhook we_0123456789abcdef`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-replay.js')));

  wh.command('rotate-secret')
    .description('replace a webhook secret (generated and shown once, or given); receivers accept both during the change')
    .argument('<webhook-id>', 'we_…')
    .option('--secret <value|->', 'the new secret (≥ 32 characters); - reads it from stdin')
    .option('--secret-file <path>', 'read the new secret from a file')
    .addHelpText(
      'after',
      `
Then run the receiver with both secrets until the old one is gone:
  $ verity listen --secret-file new.txt --secret-file old.txt
A --signature-scheme standard webhook is signed with both secrets for 24 h (two v1 signatures).

Examples:
  $ verity webhooks rotate-secret we_0123456789abcdef
  $ verity webhooks rotate-secret we_0123456789abcdef --secret-file new.txt`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-rotate-secret.js')));

  wh.command('deliver')
    .description('embedded mode: send every due delivery (first attempts and retries) now')
    .option('--watch', 'keep running and send retries as they fall due (Ctrl-C to stop)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity webhooks deliver
  $ verity webhooks deliver --watch`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-deliver.js')));

  wh.command('trigger')
    .description('send one signed sample event of any type, to verity listen by default, for testing receivers')
    .argument('<event-type>', EVENT_TYPES.join(' | '))
    .option('--to <url>', 'receiver URL', 'http://127.0.0.1:4242/')
    .option('--secret <value>', 'signing secret (default: the local listener secret)', collect)
    .option('--secret-file <path>', 'read the signing secret from a file')
    .addOption(new Option('--signature-scheme <scheme>', 'sign as verity (X-Service-Signature) or standard (Standard Webhooks)').choices(['verity', 'standard']).default('verity'))
    .addHelpText(
      'after',
      `
Examples:
  $ verity listen &                       # prints its own secret hint; shares it with trigger
  $ verity webhooks trigger verification.completed
  $ verity webhooks trigger credit.threshold --to http://localhost:3000/webhooks --secret-file secret.txt`,
    )
    .action(lazyAction(ctx, () => import('../commands/webhooks-trigger.js')));
}
