import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { withAdminStore } from './admin-common.js';

export default async function adminKeysCreate(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ name: string; env: 'live' | 'test'; plan?: string; account: string; changePlan?: boolean }>();
  const created = await withAdminStore(rt, cmd, (admin) =>
    admin.createKey({ name: o.name, environment: o.env, account: o.account, plan: o.plan, changePlan: o.changePlan === true, now: rt.ctx.clock.now() }),
  );
  if (rt.out.machine) return rt.out.json(created);
  // The key is the data (stdout, so `KEY=$(…)` works); everything else is talk (stderr).
  rt.out.print(created.key);
  rt.out.success(
    `Created ${created.environment} key "${created.name}" (${created.prefix}…${created.last4}) for account "${created.account_name}" on the ${created.plan} plan`,
  );
  rt.out.info(rt.out.errStyle.yellow('This is the only time the full key is shown: store it now (e.g. `verity keys add NAME --key -`).'));
}
