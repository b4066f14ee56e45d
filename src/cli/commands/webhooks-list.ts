import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { renderWebhook, withRegistry } from './webhooks-common.js';

export default async function webhooksList(rt: CliRuntime, _cmd: Command): Promise<void> {
  const list = await withRegistry(rt, (r) => r.list());
  rt.out.result({ data: list }, (x) => (x.data.length ? x.data.map(renderWebhook).join('\n') : 'No webhooks registered (add one with `verity webhooks add URL --events …`)'));
}
