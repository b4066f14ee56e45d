import { Command, Option } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the verification service over HTTP: /v1/verify/*, /v1/openapi.json, /healthz')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', '8080')
    .option('--db <path-or-url>', 'accounts, keys, usage and the webhook outbox: a SQLite file, or postgres://… for several processes (default: $VERITY_DATABASE_URL, else the embedded store)')
    .option('--pool <n>', 'PostgreSQL only: connections in the pool', '10')
    .option('--no-worker', 'PostgreSQL only: do not deliver webhooks in this process (run `verity worker` instead)')
    .option('--db-answer-timeout-ms <ms>', 'PostgreSQL only: a query that gets no byte back for this long fails (503) and its connection is replaced (a network cut)', '5000')
    .option('--allow-private-webhooks', 'development only: let webhooks target http, loopback and private addresses (logged at start-up)')
    .option('--analysis-workers <n>', 'worker threads for media and document analysis (default: the cores)')
    .option('--analysis-budget-ms <ms>', 'wall-clock limit of one media or document analysis; past it the worker is ended and the request answered 422, not charged', '60000')
    .option('--analysis-memory-mb <mb>', 'heap limit of one analysis worker (MB); past it the request is answered 422', '4096')
    // Hidden, for tests: a delivery claim's lease (default 30 s). A lease shorter than a delivery
    // can take (the 10 s response deadline) lets another process send it again meanwhile.
    .addOption(new Option('--webhook-lease-ms <ms>', 'delivery claim lease').hideHelp())
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
One serve per SQLite file: a second one on the same file (by any path or symbolic link) refuses to
start (lock file beside the real file, <db>.serve.lock), and a file with a hard link is not served.
On PostgreSQL (--db postgres://… or VERITY_DATABASE_URL) any number of serve and worker processes
share one database: rate limits, quotas, idempotency and the webhook outbox hold across them.
Webhook targets must be public https URLs (checked at registration and on every delivery);
--allow-private-webhooks lifts that for local development with \`verity listen\`.
Media and document analysis (live and test keys) runs in worker threads (--analysis-workers), one
file per worker, each bounded by --analysis-budget-ms, so no file can stall other requests.

Examples:
  $ verity admin keys create --name ci --env test --plan pro
  $ verity serve --port 8080
  $ verity serve --host 0.0.0.0 --port 0 --db /var/lib/verity/verity.db --log-level warn
  $ verity serve --port 8081 --db postgres://verity@db.internal:5432/verity --pool 20
  $ verity verify claim "Water boils at 100 °C" --remote http://127.0.0.1:8080 --key vty_test_…`,
    )
    .action(lazyAction(ctx, () => import('../commands/serve.js')));

  program
    .command('worker')
    .description('deliver webhooks from a PostgreSQL outbox shared with `verity serve` processes (no HTTP)')
    .option('--db <url>', 'the postgres://… database (default: $VERITY_DATABASE_URL)')
    .option('--pool <n>', 'connections in the pool', '4')
    .option('--db-answer-timeout-ms <ms>', 'a query that gets no byte back for this long fails and its connection is replaced (a network cut)', '5000')
    .option('--allow-private-webhooks', 'development only: let webhooks target http, loopback and private addresses')
    .addOption(new Option('--webhook-lease-ms <ms>', 'delivery claim lease (tests)').hideHelp())
    .addHelpText(
      'after',
      `
Claims due deliveries with FOR UPDATE SKIP LOCKED and a lease, so any number of workers (and
serve processes) share the work; the per-endpoint limits (10 events/s, 4 in flight) hold across
all of them. Prints "Worker delivering from <database>" on stderr when ready; SIGTERM or Ctrl-C
finishes the attempts in flight, gives back what it claimed, and exits.

Examples:
  $ verity worker --db postgres://verity@db.internal:5432/verity
  $ VERITY_DATABASE_URL=postgres://verity@db/verity verity worker`,
    )
    .action(lazyAction(ctx, () => import('../commands/worker.js')));
}
