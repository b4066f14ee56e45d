import type { Command } from 'commander';
import { EVENT_TYPES } from '../../api/enums.js';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerListen(program: Command, ctx: CliContext): void {
  const listen = program
    .command('listen')
    .description('receive webhook events (on loopback, or from a service\'s event stream with --remote): check signatures, print, forward to your app')
    .option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', '4242')
    .option('--secret <value>', 'secret to check signatures with; repeat during a rotation (env VERITY_WEBHOOK_SECRET); with --remote: the one forwards are signed with', collect)
    .option('--secret-file <path>', 'read a secret from a file; repeatable', collect)
    .option('--events <types>', 'only handle these event types (comma-separated); others are acknowledged and skipped')
    .option('--forward-to <url|type=url>', 'forward raw bytes and headers to your app; repeatable, type=url routes one type', collect)
    .option('--log <file>', 'append every event and refusal to FILE as NDJSON')
    .option('--max-age <minutes>', 'refuse events created longer ago than this, as replays (default: retry horizon + 15 min = 446)')
    .option('--tls-cert <path>', 'serve HTTPS with this PEM certificate (with --tls-key)')
    .option('--tls-key <path>', 'PEM private key for --tls-cert')
    .option('--print-secret', 'print the local listener secret and exit')
    .option('--resume-after <event-id>', 'with --remote: start after this event (a wh_… id from an earlier run or --log) while the service keeps it')
    .addHelpText(
      'after',
      `
Without --secret, listen uses a local listener secret (created once, kept in the data folder)
that \`verity webhooks trigger\` also uses; \`verity listen --print-secret\` prints it. For a webhook
registered with \`verity webhooks add\`, pass the signing secret that command printed.

Both signature schemes are checked, told apart by the headers: X-Service-Signature (verity), or
webhook-id/-timestamp/-signature (Standard Webhooks: pass the endpoint's whsec_ secret; a
webhook-timestamp more than 5 min from this clock is refused).

Routes: an event goes to the type=url routes of its type when there are any, else to the plain
url routes (the most specific route wins). A retry goes only to apps that have not answered 2xx.

--remote [URL] (the profile's base_url and key without a URL): no port is opened here. listen
connects out to the service's event stream (GET /v1/events/stream), receives the account's events
as they are made, checks each with the stream's session secret, forwards it to --forward-to routes
signed with the local listener secret (or --secret), so your app keeps one secret, and reports your
app's answers back: \`verity listen sessions\` shows them. A cut connection is retried with backoff
and resumes after the last event received; events the service no longer keeps are named, with the
command that sends them again.

Examples:
  $ verity listen
  $ verity webhooks add http://127.0.0.1:4242/ --events verification.completed --secret "$(verity listen --print-secret)"
  $ verity listen --secret-file new.txt --secret-file old.txt --forward-to http://localhost:3000/webhooks
  $ verity listen --forward-to http://localhost:3000/all --forward-to batch.completed=http://localhost:4000/batches
  $ verity listen --ndjson --events verification.completed | jq .verdict
  $ verity listen --remote --forward-to http://localhost:3000/webhooks
  $ verity listen --remote https://verity.example.com --events verification.completed,batch.completed
  $ verity listen --remote --resume-after wh_2Y9jiIsvSl9UWgyrqI7Dyajy --log events.ndjson
  $ verity listen sessions --remote`,
    )
    .action(lazyAction(ctx, () => import('../commands/listen.js')));

  listen
    .command('sessions')
    .description("the service's event-stream sessions (listen --remote) and what the local app answered to each event")
    .option('--limit <n>', 'results shown per session (1 to 50)', '5')
    .addHelpText(
      'after',
      `
Examples:
  $ verity listen sessions --remote
  $ verity listen sessions --remote https://verity.example.com --json | jq '.data[0].results'`,
    )
    .action(lazyAction(ctx, () => import('../commands/listen-sessions.js')));

  program
    .command('trigger')
    .description("make the service emit a sample event of a type to your account (streams and registered webhooks get it)")
    .argument('<event-type>', EVENT_TYPES.join(' | '))
    .addHelpText(
      'after',
      `
The service at --remote URL (or the profile's base_url) makes the event with the same sample data
as \`verity webhooks trigger\`, in the key's environment, through its normal outbox: \`verity listen
--remote\` and every webhook registered for that type receive it. To send a signed sample straight
to a local listener instead, use \`verity webhooks trigger\`.

Examples:
  $ verity trigger verification.completed --remote
  $ verity trigger batch.completed --remote https://verity.example.com --json`,
    )
    .action(lazyAction(ctx, () => import('../commands/trigger.js')));
}
