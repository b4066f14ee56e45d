/**
 * Accounts and API keys in the server's SQLite store (SPEC 5). A key is stored only as its
 * SHA-256 hash plus a short display prefix and its last four characters; the full value exists
 * once, in the return value of `createKey`, for the admin to hand over.
 */
import { VerityError } from '../../api/errors.js';
import { checkName, checkPlan, newKeyRecord, oneKeyToRevoke, planChangeRefused } from '../../domain/keys.js';
import { randomBase62 } from '../../api/ids.js';
import { migrate, type Database } from '../local/database.js';
import type { KeyEnvironment } from '../../domain/keys.js';
// The row shapes belong to the store interface (both stores return them); re-exported for callers.
import type { AccountRow, CreatedKey, KeyRow, UsageRow } from '../ports/index.js';
export type { AccountRow, CreatedKey, KeyRow, UsageRow };

/** The server component's schema, oldest step first (never edit a step once released). */
export const SERVER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     plan TEXT NOT NULL CHECK (plan IN ('starter','pro','business','enterprise')),
     created_at TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id),
     name TEXT NOT NULL UNIQUE,
     environment TEXT NOT NULL CHECK (environment IN ('live','test')),
     prefix TEXT NOT NULL,
     last4 TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     last_used_at TEXT,
     revoked_at TEXT
   );
   CREATE INDEX api_keys_prefix ON api_keys(prefix);
   CREATE TABLE usage (
     account_id TEXT NOT NULL REFERENCES accounts(id),
     period TEXT NOT NULL,
     environment TEXT NOT NULL CHECK (environment IN ('live','test')),
     credits INTEGER NOT NULL DEFAULT 0,
     requests INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (account_id, period, environment)
   );
   CREATE TABLE idempotency (
     account_id TEXT NOT NULL,
     key TEXT NOT NULL,
     request_hash TEXT NOT NULL,
     status INTEGER NOT NULL,
     body TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (account_id, key)
   );
   CREATE INDEX idempotency_created ON idempotency(created_at);`,
];

export function migrateServer(db: Database): void {
  migrate(db, 'server', SERVER_MIGRATIONS);
}

/** Finds or creates the account; with `plan`, sets its plan (an upgrade or downgrade). */
export function ensureAccount(db: Database, name: string, plan: string | undefined, now: Date): AccountRow {
  checkName('account', name);
  const wanted = plan === undefined ? undefined : checkPlan(plan);
  const existing = db.prepare('SELECT * FROM accounts WHERE name = ?').get(name) as AccountRow | undefined;
  if (existing) {
    if (wanted && wanted !== existing.plan) {
      db.prepare('UPDATE accounts SET plan = ? WHERE id = ?').run(wanted, existing.id);
      return { ...existing, plan: wanted };
    }
    return existing;
  }
  const row: AccountRow = { id: `acct_${randomBase62(16)}`, name, plan: wanted ?? 'starter', created_at: now.toISOString() };
  db.prepare('INSERT INTO accounts (id, name, plan, created_at) VALUES (@id, @name, @plan, @created_at)').run(row);
  return row;
}

export function listAccounts(db: Database): AccountRow[] {
  return db.prepare('SELECT * FROM accounts ORDER BY created_at, name').all() as AccountRow[];
}

const KEY_SELECT = `SELECT k.id, k.account_id, a.name AS account_name, a.plan, k.name, k.environment, k.prefix, k.last4,
  k.created_at, k.last_used_at, k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

export type CreateKeyOptions = { name: string; environment: KeyEnvironment; account: string; plan?: string; now: Date; changePlan?: boolean };

export function createKey(db: Database, o: CreateKeyOptions): CreatedKey {
  checkName('key', o.name);
  return db.transaction((): CreatedKey => {
    if (db.prepare('SELECT 1 FROM api_keys WHERE name = ?').get(o.name))
      throw new VerityError('VALIDATION_FAILED', `A key named "${o.name}" already exists`, {
        details: [{ field: 'name', issue: 'must be unique (revoked keys keep their name)' }],
      });
    if (o.plan !== undefined && !o.changePlan) {
      const wanted = checkPlan(o.plan);
      const existing = db.prepare('SELECT id, plan FROM accounts WHERE name = ?').get(o.account) as { id: string; plan: string } | undefined;
      if (existing && existing.plan !== wanted) {
        const { n } = db.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL').get(existing.id) as { n: number };
        throw planChangeRefused(o.account, existing.plan, wanted, n);
      }
    }
    const account = ensureAccount(db, o.account, o.plan, o.now);
    const { key, row } = newKeyRecord(o, account.id);
    db.prepare(
      `INSERT INTO api_keys (id, account_id, name, environment, prefix, last4, key_hash, created_at)
       VALUES (@id, @account_id, @name, @environment, @prefix, @last4, @key_hash, @created_at)`,
    ).run(row);
    const { key_hash: _hash, ...shown } = row;
    return { ...shown, account_name: account.name, plan: account.plan, last_used_at: null, revoked_at: null, key };
  })();
}

export function listKeys(db: Database, o: { includeRevoked?: boolean } = {}): KeyRow[] {
  const where = o.includeRevoked ? '' : ' WHERE k.revoked_at IS NULL';
  return db.prepare(`${KEY_SELECT}${where} ORDER BY k.created_at, k.name`).all() as KeyRow[];
}

/** Revokes by exact name or display prefix; an ambiguous prefix is refused rather than guessed. */
export function revokeKey(db: Database, nameOrPrefix: string, now: Date): KeyRow {
  return db.transaction((): KeyRow => {
    let matches = db.prepare(`${KEY_SELECT} WHERE k.name = ?`).all(nameOrPrefix) as KeyRow[];
    if (matches.length === 0) matches = db.prepare(`${KEY_SELECT} WHERE k.prefix = ?`).all(nameOrPrefix) as KeyRow[];
    const key = oneKeyToRevoke(nameOrPrefix, matches);
    if (key.revoked_at) return key;
    const at = now.toISOString();
    db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(at, key.id);
    return { ...key, revoked_at: at };
  })();
}

export function listUsage(db: Database, period: string): UsageRow[] {
  return db
    .prepare(
      `SELECT a.name AS account_name, a.plan, u.period, u.environment, u.credits, u.requests
       FROM usage u JOIN accounts a ON a.id = u.account_id WHERE u.period = ? ORDER BY a.name, u.environment`,
    )
    .all(period) as UsageRow[];
}
