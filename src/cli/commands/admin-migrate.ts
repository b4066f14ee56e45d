import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';

/** `verity admin migrate --db …`: applies the server store's migrations and says which. */
export default async function adminMigrate(rt: CliRuntime, cmd: Command): Promise<void> {
  const { databaseTarget } = await import('../../store/open.js');
  const target = databaseTarget(cmd.opts<{ db?: string }>().db, rt.ctx.env, rt.ctx.paths.storeFile);
  let applied: string[];
  let where: string;
  if (target.kind === 'postgres') {
    const { openPostgresStore, redactDatabaseUrl } = await import('../../store/postgres/index.js');
    const { migratePostgres } = await import('../../store/postgres/migrations.js');
    const store = await openPostgresStore({ url: target.url, poolSize: 1, migrate: false, listen: false });
    try {
      applied = await migratePostgres(store.sql);
    } finally {
      await store.close();
    }
    where = redactDatabaseUrl(target.url);
  } else {
    const [{ openStore }, { migrateServer }, { ensureWebhookSchema }, { migrateBatches }] = await Promise.all([
      import('../../store/database.js'),
      import('../../store/sqlite/accounts.js'),
      import('../../store/sqlite/webhooks.js'),
      import('../../store/sqlite/batches.js'),
    ]);
    const file = await openStore(target.path);
    try {
      const before = new Set((file.db.prepare("SELECT component || '@' || version FROM schema_migrations").pluck().all() as string[]));
      // The components `verity serve` applies at start, in its order (as on PostgreSQL).
      migrateServer(file.db);
      ensureWebhookSchema(file.db);
      migrateBatches(file.db);
      applied = (
        file.db
          .prepare(
            `SELECT component || '@' || version FROM schema_migrations WHERE component IN ('server', 'webhooks', 'batches')
             ORDER BY CASE component WHEN 'server' THEN 0 WHEN 'webhooks' THEN 1 ELSE 2 END, version`,
          )
          .pluck()
          .all() as string[]
      ).filter((v) => !before.has(v));
    } finally {
      file.close();
    }
    where = target.path;
  }
  if (rt.out.machine) return rt.out.json({ database: where, applied });
  rt.out.success(applied.length ? `Applied ${applied.length} migration step(s) to ${where}: ${applied.join(', ')}` : `${where} is up to date`);
}
