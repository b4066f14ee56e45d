import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { secretOption } from './webhooks-common.js';

export default async function webhooksTrigger(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ to: string; secret?: string[]; secretFile?: string; signatureScheme?: 'verity' | 'standard' }>();
  const [{ parseEventType }, { triggerEvent }, { listenSecret }, { userAgent }] = await Promise.all([
    import('../../webhooks/service.js'),
    import('../../webhooks/trigger.js'),
    import('../../webhooks/secrets.js'),
    import('../../engine/default-ports.js'),
  ]);
  const type = parseEventType(cmd.args[0], 'event-type');
  try {
    const u = new URL(o.to);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new VerityError('VALIDATION_FAILED', `--to must be an http(s) URL, got "${o.to}"`, { details: [{ field: 'to', issue: 'http(s) URL' }] });
  }
  const secret = (await secretOption(rt, o)) ?? rt.ctx.env.VERITY_WEBHOOK_SECRET ?? listenSecret(rt.ctx.paths.dataDir).secret;
  if (o.signatureScheme === 'standard') {
    const { standardSecretProblem } = await import('../../domain/standard-webhooks.js');
    const problem = standardSecretProblem(secret);
    if (problem) throw new VerityError('VALIDATION_FAILED', `The secret cannot sign Standard Webhooks: ${problem}`, { details: [{ field: 'secret', issue: problem }] });
  }
  const r = await triggerEvent(o.to, secret, type, userAgent(), rt.ctx.interrupted, o.signatureScheme ?? 'verity');
  if (r.status === null) throw new VerityError('UNAVAILABLE', `Could not deliver ${r.event_id} to ${r.url}: ${r.error}`);
  if (r.status < 200 || r.status > 299)
    throw new VerityError('UNAVAILABLE', `The receiver refused ${r.event_id} with HTTP ${r.status}${r.body_start ? `: ${r.body_start.slice(0, 200)}` : ''}`);
  rt.out.result(r, (x) => `${x.type} ${x.event_id} → ${x.url}: HTTP ${x.status} (${x.latency_ms} ms)${x.body_start ? `  ${x.body_start.slice(0, 120)}` : ''}`);
}
