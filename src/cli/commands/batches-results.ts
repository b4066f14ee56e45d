import type { Command } from 'commander';
import type { BatchResultLine } from '../../api/batches.js';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { batchClient, batchIdArgument } from './batches-common.js';

/** NDJSON lines as they arrive (stdout is data); --json collects them into one {data: [...]}. */
export default async function batchesResults(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = batchIdArgument(cmd.args[0]);
  const o = cmd.opts<{ after: string; status?: BatchResultLine['status']; follow?: boolean }>();
  if (!/^\d+$/.test(o.after))
    throw new VerityError('VALIDATION_FAILED', `--after must be a line's seq (0 or more), got "${o.after}"`, { details: [{ field: 'after', issue: 'an integer ≥ 0' }] });
  const client = await batchClient(rt);
  const collected: BatchResultLine[] = [];
  const emit = (line: BatchResultLine): void => {
    if (rt.out.opts.json) collected.push(line);
    else rt.out.ndjson(line);
  };
  const after = Number(o.after);
  if (o.follow && !o.status) await client.follow(id, emit, { after });
  else for await (const line of client.results(id, { after, status: o.status, follow: o.follow })) emit(line);
  if (rt.out.opts.json) rt.out.json({ data: collected });
}
