/**
 * The embedded store: one SQLite file (better-sqlite3), WAL mode, migrations in code.
 *
 * Each component (keys, webhooks, corpus, companies, media index, …) owns its tables and calls
 * `migrate(db, component, steps)` with its own ordered list of SQL steps; the versions applied are
 * recorded per component in `schema_migrations`, so components evolve independently.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { createPrivateFile } from './private-file.js';

export type Database = BetterSqlite3.Database;

export interface Store {
  readonly db: Database;
  readonly path: string;
  close(): void;
}

let sqlite: { Sqlite: typeof BetterSqlite3; options: BetterSqlite3.Options } | undefined;
/**
 * better-sqlite3 through `require` (its CommonJS entry: `import()` sends it through Node's ES-module
 * loader and lexer first), with its native addon named by path, which spares the `bindings`
 * package's search of a dozen candidate folders (about 12 ms of CPU per process together). Where
 * the addon is not at its usual place, better-sqlite3 searches as before.
 */
function loadSqlite(): NonNullable<typeof sqlite> {
  if (!sqlite) {
    const req = createRequire(import.meta.url);
    const Sqlite = req('better-sqlite3') as typeof BetterSqlite3;
    let options: BetterSqlite3.Options = {};
    try {
      options = { nativeBinding: req.resolve('better-sqlite3/build/Release/better_sqlite3.node') };
    } catch {
      // a build elsewhere (Debug, another layout): let better-sqlite3 find it
    }
    sqlite = { Sqlite, options };
  }
  return sqlite;
}

/** Opens (creating if needed) the SQLite file. better-sqlite3 is loaded here, not at start-up. */
export async function openStore(path: string): Promise<Store> {
  const { Sqlite, options } = loadSqlite();
  let db: Database;
  try {
    // Created 0600 here, not by SQLite (0644 less the umask): it may hold webhook secrets.
    createPrivateFile(path);
    db = new Sqlite(path, options);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL'); // durable across application crashes in WAL mode
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        component TEXT NOT NULL, version INTEGER NOT NULL, applied_at TEXT NOT NULL,
        PRIMARY KEY (component, version))`);
    } catch (err) {
      db.close();
      throw err;
    }
  } catch (err) {
    // SQLite's errors do not say which file; the CLI names cause and path (src/cli/errors.ts).
    const e = err as { path?: string };
    if (e && typeof e === 'object' && !e.path) e.path = path;
    throw err;
  }
  let closed = false;
  return {
    db,
    path,
    close() {
      if (closed) return;
      closed = true;
      try {
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  };
}

/**
 * Applies the not-yet-applied steps of one component, each in its own transaction. The
 * transaction takes the write lock before it reads (BEGIN IMMEDIATE, waiting out another writer
 * through the busy timeout) and looks again: another process opening the same file (two `serve`
 * processes started together on one home) may have applied the step since the first look.
 * Before, both applied it — the second failed on the migrations table's key — or, in WAL mode, the
 * second's deferred transaction, which had read before the other's commit, could not become a
 * writer: SQLite answers that with SQLITE_BUSY at once, without the busy timeout.
 */
export function migrate(db: Database, component: string, steps: readonly string[]): void {
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations WHERE component = ?').all(component) as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE component = ? AND version = ?');
  steps.forEach((sql, i) => {
    const version = i + 1;
    if (applied.has(version)) return;
    db.transaction(() => {
      if (isApplied.get(component, version)) return;
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (component, version, applied_at) VALUES (?, ?, ?)').run(
        component,
        version,
        new Date().toISOString(),
      );
    }).immediate();
  });
}
