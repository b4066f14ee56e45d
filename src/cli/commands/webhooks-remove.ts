import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { idArgument, withRegistry } from './webhooks-common.js';

export default async function webhooksRemove(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = idArgument(cmd.args[0], 'we_', 'webhook');
  const r = await withRegistry(rt, (reg) => reg.remove(id));
  rt.out.result(r, (x) => `removed ${x.id}`);
}
