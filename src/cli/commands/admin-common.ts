/** What the `admin` commands share: the server's database (--db PATH or postgres://…, default the embedded store). */
import type { Command } from 'commander';
import { ago } from './keys-list.js';
import type { CliRuntime } from '../runtime.js';
import type { AdminStore } from '../../store/ports/index.js';

export { ago };

/** Opens the server's store (migrations applied), runs `fn` on its admin side, and closes it. */
export async function withAdminStore<T>(rt: CliRuntime, cmd: Command, fn: (admin: AdminStore) => Promise<T>): Promise<T> {
  const { databaseTarget, openPostgres, sqliteServerStore } = await import('../../store/open.js');
  const target = databaseTarget(cmd.opts<{ db?: string }>().db, rt.ctx.env, rt.ctx.paths.storeFile);
  if (target.kind === 'postgres') {
    const store = await openPostgres(target.url, { poolSize: 2, listen: false });
    try {
      return await fn(store.admin);
    } finally {
      await store.close();
    }
  }
  const { openStore } = await import('../../store/local/database.js');
  const file = await openStore(target.path);
  try {
    const store = sqliteServerStore(file.db);
    try {
      return await fn(store.admin);
    } finally {
      await store.close();
    }
  } finally {
    file.close();
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
