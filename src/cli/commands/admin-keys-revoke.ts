import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { withAdminStore } from './admin-common.js';

export default async function adminKeysRevoke(rt: CliRuntime, cmd: Command): Promise<void> {
  const target = cmd.args[0] as string;
  const key = await withAdminStore(rt, cmd, (admin) => admin.revokeKey(target, rt.ctx.clock.now()));
  if (rt.out.machine) return rt.out.json(key);
  rt.out.success(`Revoked key "${key.name}" (${key.prefix}…${key.last4}); its requests now get 401`);
}
