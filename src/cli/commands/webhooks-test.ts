import type { Command } from 'commander';
import type { EventType } from '../../api/webhooks.js';
import type { CliRuntime } from '../runtime.js';
import { idArgument, renderTest, withRegistry } from './webhooks-common.js';

export default async function webhooksTest(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = idArgument(cmd.args[0], 'we_', 'webhook');
  const { type } = cmd.opts<{ type?: EventType }>();
  const r = await withRegistry(rt, (reg) => reg.test(id, type));
  rt.out.result(r, renderTest);
}
