import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';

/** `verity admin migrate --db …`: applies the server store's migrations and says which. */
export default async function adminMigrate(rt: CliRuntime, cmd: Command): Promise<void> {
  const [{ databaseTarget }, { migrateTarget }] = await Promise.all([import('../../store/open.js'), import('../../store/migrate.js')]);
  const { where, applied } = await migrateTarget(databaseTarget(cmd.opts<{ db?: string }>().db, rt.ctx.env, rt.ctx.paths.storeFile));
  if (rt.out.machine) return rt.out.json({ database: where, applied });
  rt.out.success(applied.length ? `Applied ${applied.length} migration step(s) to ${where}: ${applied.join(', ')}` : `${where} is up to date`);
}
