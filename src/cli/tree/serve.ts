import { Command, Option } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the verification service over HTTP: /v1/verify/*, /v1/openapi.json, /healthz')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
    .option('--db <path>', 'SQLite database of accounts, keys and usage (default: the embedded store)')
    .option('--allow-private-webhooks', 'development only: let webhooks target http, loopback and private addresses (logged at start-up)')
    .addOption(
      new Option('--log-level <level>', 'request log level (JSON lines on stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    )
    .addHelpText(
      'after',
      `
Prints one line "Listening on http://HOST:PORT" on stderr when ready; SIGTERM or Ctrl-C stops it
gracefully (in-flight requests finish, the store is flushed). Test keys run the sandbox engine,
live keys the real one. Create keys with \`verity admin keys create\` on the same --db.
One serve per database: a second one on the same --db refuses to start (lock file <db>.serve.lock).
Webhook targets must be public https URLs (checked at registration and on every delivery);
--allow-private-webhooks lifts that for local development with \`verity listen\`.

Examples:
  $ verity admin keys create --name ci --env test --plan pro
  $ verity serve --port 8080
  $ verity serve --host 0.0.0.0 --port 0 --db /var/lib/verity/verity.db --log-level warn
  $ verity verify claim "Water boils at 100 °C" --remote http://127.0.0.1:8080 --key vty_test_…`,
    )
    .action(lazyAction(ctx, () => import('../commands/serve.js')));
}
