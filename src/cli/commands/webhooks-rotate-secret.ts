import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { idArgument, renderWebhook, secretOption, withRegistry } from './webhooks-common.js';

export default async function webhooksRotateSecret(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = idArgument(cmd.args[0], 'we_', 'webhook');
  const secret = await secretOption(rt, cmd.opts<{ secret?: string; secretFile?: string }>());
  const w = await withRegistry(rt, (reg) => reg.rotate(id, secret));
  rt.out.result(w, (x) => {
    let text = renderWebhook(x);
    if (x.secret && secret === undefined) text += `\n  new signing secret (shown once, store it now): ${x.secret}`;
    return text;
  });
  if (!rt.out.machine)
    rt.out.info(
      w.previous_secret_expires_at
        ? `every attempt is signed with both secrets until ${w.previous_secret_expires_at}, then with the new one only; switch receivers to the new secret before then`
        : 'every attempt from now on is signed with the new secret; let receivers accept both until retries of older events are done',
    );
}
