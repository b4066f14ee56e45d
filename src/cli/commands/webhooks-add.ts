import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { splitList } from './verify-common.js';
import { renderWebhook, secretOption, withRegistry } from './webhooks-common.js';

export default async function webhooksAdd(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ events: string; secret?: string; secretFile?: string; signatureScheme?: 'verity' | 'standard' }>();
  const secret = await secretOption(rt, o);
  const config = {
    url: cmd.args[0],
    events: splitList(o.events) ?? [],
    ...(secret === undefined ? {} : { secret }),
    // Sent only when not the default, so a server without the option still takes the request.
    ...(o.signatureScheme && o.signatureScheme !== 'verity' ? { signature_scheme: o.signatureScheme } : {}),
  };
  const w = await withRegistry(rt, (r) => r.add(config));
  rt.out.result(w, (x) => {
    let text = renderWebhook(x);
    // A generated secret exists only in this answer: it is the one time it is shown.
    if (x.secret && secret === undefined) text += `\n  signing secret (shown once, store it now): ${x.secret}`;
    return text;
  });
  if (!rt.out.machine) rt.out.success(`webhook ${w.id} registered`);
}
