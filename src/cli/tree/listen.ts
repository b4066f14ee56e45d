import type { Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export function registerListen(program: Command, ctx: CliContext): void {
  program
    .command('listen')
    .description('receive webhook events on loopback: check signatures, print each event, optionally forward to your app')
    .option('--port <n>', 'port on 127.0.0.1 (0 = any free port)', '4242')
    .option('--secret <value>', 'secret to check signatures with; repeat during a rotation (env VERITY_WEBHOOK_SECRET)', collect)
    .option('--secret-file <path>', 'read a secret from a file; repeatable', collect)
    .option('--events <types>', 'only handle these event types (comma-separated); others are acknowledged and skipped')
    .option('--forward-to <url|type=url>', 'forward raw bytes and headers to your app; repeatable, type=url routes one type', collect)
    .option('--log <file>', 'append every event and refusal to FILE as NDJSON')
    .option('--max-age <minutes>', 'refuse events created longer ago than this, as replays (default: retry horizon + 15 min = 446)')
    .option('--tls-cert <path>', 'serve HTTPS with this PEM certificate (with --tls-key)')
    .option('--tls-key <path>', 'PEM private key for --tls-cert')
    .option('--print-secret', 'print the local listener secret and exit')
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

Examples:
  $ verity listen
  $ verity webhooks add http://127.0.0.1:4242/ --events verification.completed --secret "$(verity listen --print-secret)"
  $ verity listen --secret-file new.txt --secret-file old.txt --forward-to http://localhost:3000/webhooks
  $ verity listen --forward-to http://localhost:3000/all --forward-to batch.completed=http://localhost:4000/batches
  $ verity listen --ndjson --events verification.completed | jq .verdict`,
    )
    .action(lazyAction(ctx, () => import('../commands/listen.js')));
}
