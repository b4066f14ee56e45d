import type { Command } from 'commander';
import type { EventType } from '../../api/webhooks.js';
import { EXIT, ExitError } from '../errors.js';
import type { CliRuntime } from '../runtime.js';
import { idArgument, renderTest, withRegistry } from './webhooks-common.js';

export default async function webhooksTest(rt: CliRuntime, cmd: Command): Promise<void> {
  const id = idArgument(cmd.args[0], 'we_', 'webhook');
  const { type } = cmd.opts<{ type?: EventType }>();
  const r = await withRegistry(rt, (reg) => reg.test(id, type));
  rt.out.result(r, renderTest);
  // The test asked whether the receiver takes deliveries: a refusal or no answer is a failure of
  // the command (exit 6, as `webhooks trigger`), with the result still printed for the details.
  const a = r.attempt;
  if (a && !a.ok) {
    rt.out.info(`the receiver did not accept the test event${a.status_code ? ` (HTTP ${a.status_code})` : ''}; it stays queued for retries (\`verity webhooks deliveries ${id}\`)`);
    throw new ExitError(EXIT.unavailable);
  }
}
