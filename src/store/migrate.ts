/**
 * `verity admin migrate`: applies serve's schema to the database a target names, SQLite file or
 * PostgreSQL, and says which steps ran. Beside open.ts: the only other module that knows both stores.
 */
import type { DatabaseTarget } from './open.js';

export async function migrateTarget(target: DatabaseTarget): Promise<{ where: string; applied: string[] }> {
  if (target.kind === 'postgres') {
    const { openPostgresStore, redactDatabaseUrl } = await import('./postgres/index.js');
    const { migratePostgres } = await import('./postgres/migrations.js');
    const store = await openPostgresStore({ url: target.url, poolSize: 1, migrate: false, listen: false });
    try {
      return { where: redactDatabaseUrl(target.url), applied: await migratePostgres(store.sql) };
    } finally {
      await store.close();
    }
  }
  const [{ openStore }, { migrateSqliteServer }] = await Promise.all([import('./local/database.js'), import('./sqlite/migrations.js')]);
  const file = await openStore(target.path);
  try {
    return { where: target.path, applied: migrateSqliteServer(file.db) };
  } finally {
    file.close();
  }
}
