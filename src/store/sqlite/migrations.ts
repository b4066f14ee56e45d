/**
 * Every component of serve's SQLite schema, applied in the order `verity serve` applies them at
 * start (server, webhooks, batches — as on PostgreSQL), for `verity admin migrate`. The steps
 * themselves live beside the tables they create (accounts.ts, webhooks.ts, batches.ts).
 */
import type { Database } from '../local/database.js';
import { migrateServer } from './accounts.js';
import { migrateBatches } from './batches.js';
import { ensureWebhookSchema } from './webhooks.js';

/** Applies what is missing; returns the steps applied now (`component@version`), oldest first. */
export function migrateSqliteServer(db: Database): string[] {
  const before = new Set(db.prepare("SELECT component || '@' || version FROM schema_migrations").pluck().all() as string[]);
  migrateServer(db);
  ensureWebhookSchema(db);
  migrateBatches(db);
  return (
    db
      .prepare(
        `SELECT component || '@' || version FROM schema_migrations WHERE component IN ('server', 'webhooks', 'event_stream', 'batches')
         ORDER BY CASE component WHEN 'server' THEN 0 WHEN 'webhooks' THEN 1 WHEN 'event_stream' THEN 2 ELSE 3 END, version`,
      )
      .pluck()
      .all() as string[]
  ).filter((v) => !before.has(v));
}
