/**
 * Which server store a command uses: `--db postgres://…` (or `postgresql://…`), else
 * VERITY_DATABASE_URL when set, else the SQLite file (`--db PATH` or the embedded store). The
 * PostgreSQL driver is imported only on the PostgreSQL path.
 */
import { VerityError } from '../api/errors.js';
import type { ServerStore } from './ports/index.js';

/** The SQLite store and its outbox on an open local database (`serve` on a file, embedded webhooks). */
export { sqliteOutbox, sqliteServerStore } from './sqlite/index.js';
export { acquireServeLock } from './sqlite/serve-lock.js';

export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

const PG_URL = /^postgres(ql)?:\/\//i;

export function databaseTarget(dbFlag: string | undefined, env: NodeJS.ProcessEnv, defaultPath: string): DatabaseTarget {
  if (dbFlag !== undefined && PG_URL.test(dbFlag)) return { kind: 'postgres', url: dbFlag };
  if (dbFlag !== undefined) return { kind: 'sqlite', path: dbFlag };
  const fromEnv = env.VERITY_DATABASE_URL;
  if (fromEnv) {
    if (!PG_URL.test(fromEnv))
      throw new VerityError('VALIDATION_FAILED', 'VERITY_DATABASE_URL must be a postgres:// URL', {
        details: [{ field: 'VERITY_DATABASE_URL', issue: 'postgres://user:password@host:5432/database' }],
      });
    return { kind: 'postgres', url: fromEnv };
  }
  return { kind: 'sqlite', path: defaultPath };
}

export function parsePoolSize(value: string | undefined): number {
  if (value === undefined) return 10;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000)
    throw new VerityError('VALIDATION_FAILED', `--pool must be 1 to 1000 connections, got "${value}"`, { details: [{ field: 'pool', issue: '1 to 1000' }] });
  return n;
}

/** The hidden `--webhook-lease-ms` (tests): a delivery claim's lease, 100 ms to 1 h; undefined = the default. */
export function parseLeaseMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 100 || n > 3_600_000)
    throw new VerityError('VALIDATION_FAILED', `--webhook-lease-ms must be 100 to 3600000, got "${value}"`, {
      details: [{ field: 'webhook-lease-ms', issue: '100 to 3600000' }],
    });
  return n;
}

/**
 * `--db-answer-timeout-ms` (serve, worker): how long a query may wait with no byte from PostgreSQL
 * before its connection is destroyed and the request answered 503 (a network cut); 100 ms to 10 min.
 */
export function parseAnswerTimeoutMs(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 100 || n > 600_000)
    throw new VerityError('VALIDATION_FAILED', `--db-answer-timeout-ms must be 100 to 600000, got "${value}"`, {
      details: [{ field: 'db-answer-timeout-ms', issue: '100 to 600000' }],
    });
  return n;
}

/** A PostgreSQL store, migrated unless `migrate: false`. */
export async function openPostgres(url: string, o: { poolSize?: number; migrate?: boolean; listen?: boolean; onBackgroundError?: (err: unknown) => void; answerTimeoutMs?: number } = {}): Promise<ServerStore> {
  const { openPostgresStore } = await import('./postgres/index.js');
  return openPostgresStore({ url, ...o });
}
