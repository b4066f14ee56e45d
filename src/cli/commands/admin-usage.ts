import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { PLAN_LIMITS } from '../../api/plans.js';
import type { CliRuntime } from '../runtime.js';
import { columns, withAdminStore } from './admin-common.js';

export default async function adminUsage(rt: CliRuntime, cmd: Command): Promise<void> {
  const given = cmd.opts<{ period?: string }>().period;
  if (given !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(given))
    throw new VerityError('VALIDATION_FAILED', `--period must be a month as YYYY-MM, got "${given}"`, {
      details: [{ field: 'period', issue: 'YYYY-MM' }],
    });
  const { periodOf } = await import('../../domain/keys.js');
  const period = given ?? periodOf(rt.ctx.clock.now());
  const rows = (await withAdminStore(rt, cmd, (admin) => admin.listUsage(period))).map((u) => ({
    ...u,
    // Only live usage counts against the quota (docs/server.md "Credits").
    quota: u.environment === 'live' ? PLAN_LIMITS[u.plan].monthlyCredits : null,
  }));
  if (rt.out.machine) return rt.out.jsonList(rows);
  if (rows.length === 0) {
    rt.out.info(`No usage in ${period}.`);
    return;
  }
  rt.out.print(
    columns(rt, [
      ['ACCOUNT', 'PLAN', 'ENV', 'REQUESTS', 'CREDITS', 'QUOTA', 'USED'],
      ...rows.map((u) => [
        u.account_name,
        u.plan,
        u.environment,
        String(u.requests),
        String(u.credits),
        u.quota === null ? '-' : String(u.quota),
        u.quota === null ? '-' : `${Math.floor((u.credits / u.quota) * 100)} %`,
      ]),
    ]),
  );
}
