import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { batchClient, renderBatch } from './batches-common.js';

export default async function batchesList(rt: CliRuntime, cmd: Command): Promise<void> {
  const { limit } = cmd.opts<{ limit: string }>();
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
    throw new VerityError('VALIDATION_FAILED', `--limit must be 1 to 100, got "${limit}"`, { details: [{ field: 'limit', issue: '1 to 100' }] });
  const page = await (await batchClient(rt)).list({ limit: Number(limit) });
  rt.out.result({ data: page.data }, (x, out) => (x.data.length ? x.data.map((b) => renderBatch(b, out)).join('\n') : 'No batches yet'));
}
