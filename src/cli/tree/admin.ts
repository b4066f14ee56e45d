import { Command, Option } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

const db = (c: Command): Command =>
  c.option('--db <path-or-url>', "the server's database: a SQLite file or postgres://… (default: $VERITY_DATABASE_URL, else the embedded store, as `verity serve`)");

export function registerAdmin(program: Command, ctx: CliContext): void {
  const admin = program
    .command('admin')
    .description("manage the service's accounts and API keys (what a hosted dashboard would do), on the server's database")
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin keys create --name ci --env test --plan pro
  $ verity admin usage`,
    );
  const keys = admin
    .command('keys')
    .description('create, list and revoke API keys of `verity serve`')
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin keys create --name ci --env test
  $ verity admin keys ls --all`,
    );

  db(
    keys
      .command('create')
      .description('create a key; prints the full key ONCE (only its SHA-256 hash is stored)')
      .requiredOption('--name <name>', 'a unique name for the key')
      .addOption(new Option('--env <environment>', 'live (real engine) or test (sandbox)').choices(['live', 'test']).default('test'))
      .addOption(new Option('--plan <plan>', "the plan of a new account; for an existing one it must match unless --change-plan").choices(['starter', 'pro', 'business', 'enterprise']))
      .option('--change-plan', "move an existing account (every key of it) to --plan", false)
      .option('--account <name>', 'the account the key belongs to (created when new)', 'default'),
  )
    .addHelpText(
      'after',
      `
Plans belong to accounts, as a subscription does: every key of an account has its plan. A new key
for an existing account takes the account's plan; a different --plan is refused unless
--change-plan says to move the whole account.

Examples:
  $ verity admin keys create --name ci --env test --plan pro
  $ verity admin keys create --name prod-2026 --env live --account acme --plan business
  $ verity admin keys create --name acme-2 --account acme --plan enterprise --change-plan
  $ KEY=$(verity admin keys create --name bench --env test --json | jq -r .key)`,
    )
    .action(lazyAction(ctx, () => import('../commands/admin-keys-create.js')));

  db(
    keys
      .command('list')
      .alias('ls')
      .description('list keys: name, environment, prefix, account and plan, created, last used')
      .option('--all', 'include revoked keys'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin keys list
  $ verity admin keys list --all --json | jq -r '.data[] | select(.revoked_at) | .name'`,
    )
    .action(lazyAction(ctx, () => import('../commands/admin-keys-list.js')));

  db(
    keys
      .command('revoke')
      .description('revoke a key at once: its next request gets 401')
      .argument('<name-or-prefix>', 'the key name, or its prefix as shown by `admin keys list` (vty_live_AbCd)')
      .option('-y, --yes', 'do not ask for confirmation on a terminal (needed in scripts)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin keys revoke ci-2025                # asks first on a terminal
  $ verity admin keys revoke vty_live_AbCd --yes`,
    )
    .action(
      lazyAction(ctx, () => import('../commands/admin-keys-revoke.js'), {
        confirm: (cmd) => `Revoke the key "${String(cmd.args[0])}"? Requests with it fail from now on.`,
      }),
    );

  db(
    admin
      .command('migrate')
      .description("apply the server database's schema migrations (serve and worker also apply them at start)"),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin migrate --db postgres://verity@db.internal:5432/verity
  $ VERITY_DATABASE_URL=postgres://verity@db/verity verity admin migrate --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/admin-migrate.js')));

  db(
    admin
      .command('usage')
      .description("credits used per account this month (or --period YYYY-MM) against the plan's quota")
      .option('--period <yyyy-mm>', 'the month, UTC (default: this month)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity admin usage
  $ verity admin usage --period 2026-01 --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/admin-usage.js')));
}
