import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { ago, columns, withAdminStore } from './admin-common.js';

export default async function adminKeysList(rt: CliRuntime, cmd: Command): Promise<void> {
  const rows = await withAdminStore(rt, cmd, (admin) => admin.listKeys({ includeRevoked: Boolean(cmd.opts<{ all?: boolean }>().all) }));
  if (rt.out.machine) return rt.out.jsonList(rows);
  if (rows.length === 0) {
    rt.out.info('No keys. Create one with: verity admin keys create --name NAME --env test');
    return;
  }
  const now = rt.ctx.clock.now();
  rt.out.print(
    columns(rt, [
      ['NAME', 'ENV', 'PREFIX', 'ACCOUNT', 'PLAN', 'CREATED', 'LAST USED', 'STATUS'],
      ...rows.map((k) => [
        k.name,
        k.environment,
        `${k.prefix}…${k.last4}`,
        k.account_name,
        k.plan,
        k.created_at.slice(0, 10),
        ago(k.last_used_at, now),
        k.revoked_at ? `revoked ${k.revoked_at.slice(0, 10)}` : 'active',
      ]),
    ]),
  );
}
