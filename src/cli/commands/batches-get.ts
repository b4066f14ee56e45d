import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { batchClient, batchIdArgument, renderBatch } from './batches-common.js';

export default async function batchesGet(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = batchIdArgument(cmd.args[0]);
  rt.out.result(await (await batchClient(rt)).get(id), renderBatch);
}
