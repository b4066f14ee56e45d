import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { idArgument, withRegistry } from './webhooks-common.js';

export default async function webhooksDeliveries(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = idArgument(cmd.args[0], 'we_', 'webhook');
  const { limit } = cmd.opts<{ limit: string }>();
  if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000)
    throw new VerityError('VALIDATION_FAILED', `--limit must be 1 to 1000, got "${limit}"`, { details: [{ field: 'limit', issue: '1 to 1000' }] });
  const log = await withRegistry(rt, (reg) => reg.deliveries(id, Number(limit)));
  rt.out.result(log, (x, out) => {
    const s = out.style;
    const lines = x.data.map((a) => {
      const outcome = a.outcome === 'delivered' ? s.green(a.outcome) : a.outcome === 'lost' ? s.yellow(a.outcome) : s.red(a.outcome);
      const status = a.status_code === null ? '---' : String(a.status_code);
      const ms = a.latency_ms === null ? '' : `${a.latency_ms} ms`;
      return `${a.attempted_at}  ${a.event_id}  ${a.event_type}  #${a.attempt}  ${outcome}  ${status}  ${ms}${a.error ? `  ${s.dim(a.error)}` : ''}`;
    });
    for (const d of x.outstanding) lines.push(`${s.dim('queued')}  ${d.event_id}  ${d.event_type}  after ${d.attempts} attempt(s); next ${d.next_attempt_at}`);
    return lines.length ? lines.join('\n') : 'No delivery attempts yet';
  });
}
