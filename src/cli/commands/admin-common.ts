/** What the `admin` commands share: the server's database (--db, default the embedded store). */
import type { Command } from 'commander';
import { ago } from './keys-list.js';
import type { CliRuntime } from '../runtime.js';
import type { Database } from '../../store/database.js';

export { ago };

/** Opens the server's store, applies the server's migrations, runs `fn`, and closes it. */
export async function withServerDb<T>(rt: CliRuntime, cmd: Command, fn: (db: Database) => T | Promise<T>): Promise<T> {
  const path = cmd.opts<{ db?: string }>().db ?? rt.ctx.paths.storeFile;
  const [{ openStore }, { migrateServer }] = await Promise.all([import('../../store/database.js'), import('../../server/accounts.js')]);
  const store = await openStore(path);
  try {
    migrateServer(store.db);
    return await fn(store.db);
  } finally {
    store.close();
  }
}

/** Plain aligned columns (header dimmed), like `verity keys list`. */
export function columns(rt: CliRuntime, rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r, i) => {
      const text = r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
      return i === 0 ? rt.out.style.dim(text) : text;
    })
    .join('\n');
}
