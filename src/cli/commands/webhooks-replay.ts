import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { idArgument, withRegistry } from './webhooks-common.js';

export default async function webhooksReplay(rt: CliRuntime, cmd: Command): Promise<void> {
  const eventId = idArgument(cmd.args[0], 'wh_', 'event');
  const { webhook } = cmd.opts<{ webhook?: string }>();
  const webhookId = webhook === undefined ? undefined : idArgument(webhook, 'we_', 'webhook');
  const r = await withRegistry(rt, (reg) => reg.replay(eventId, webhookId));
  rt.out.result(r, (x) =>
    x.deliveries ? `${x.event_id} queued again for ${x.deliveries} webhook(s)` : `${x.event_id} is already queued; nothing to replay`,
  );
}
