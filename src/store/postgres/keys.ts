/**
 * Accounts and API keys in PostgreSQL: the per-request key look-up and the admin side (create,
 * list, revoke, usage by period). Key format, hashing and name/plan checks are domain/keys.ts.
 */
import type { Sql, TransactionSql } from 'postgres';
import { VerityError } from '../../api/errors.js';
import { randomBase62 } from '../../api/ids.js';
import { checkName, checkPlan, newKeyRecord, oneKeyToRevoke, planChangeRefused } from '../../domain/keys.js';
import type { AccountRow, AdminStore, CreatedKey, KeyRecord, KeyRow, UsageRow } from '../ports/index.js';

type Tx = Sql | TransactionSql;

/** The key of a hash, with its account's plan (one indexed look-up). */
export async function findKey(sql: Sql, hash: string): Promise<KeyRecord | undefined> {
  const [row] = await sql<KeyRecord[]>`
    SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
    FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${hash}`;
  return row;
}

export function postgresAdmin(sql: Sql): AdminStore {
  // Last used: the later of a touch (api_keys) and the request guard's stamp on the window row
  // (server@4), both ISO-8601 UTC with milliseconds, so they compare as text.
  const KEY_SELECT = sql`SELECT k.id, k.account_id, a.name AS account_name, a.plan, k.name, k.environment, k.prefix, k.last4,
    k.created_at, greatest(k.last_used_at, (SELECT to_char(to_timestamp(r.used_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      FROM rate_windows r WHERE r.key_id = k.id)) AS last_used_at,
    k.revoked_at FROM api_keys k JOIN accounts a ON a.id = k.account_id`;
  return {
    ensureAccount: (name, plan, now) => sql.begin((tx) => ensureAccount(tx, name, plan, now)) as Promise<AccountRow>,
    createKey: (o) => createKey(sql, o),
    listKeys: async (o = {}) =>
      o.includeRevoked
        ? await sql<KeyRow[]>`${KEY_SELECT} ORDER BY k.created_at, k.name`
        : await sql<KeyRow[]>`${KEY_SELECT} WHERE k.revoked_at IS NULL ORDER BY k.created_at, k.name`,
    revokeKey: (nameOrPrefix, now) =>
      sql.begin(async (tx) => {
        let matches = await tx<KeyRow[]>`${KEY_SELECT} WHERE k.name = ${nameOrPrefix} FOR UPDATE OF k`;
        if (matches.length === 0) matches = await tx<KeyRow[]>`${KEY_SELECT} WHERE k.prefix = ${nameOrPrefix} FOR UPDATE OF k`;
        const key = oneKeyToRevoke(nameOrPrefix, matches);
        if (key.revoked_at) return key;
        const at = now.toISOString();
        await tx`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${key.id}`;
        return { ...key, revoked_at: at };
      }) as Promise<KeyRow>,
    listUsage: async (period) =>
      (
        await sql<UsageRow[]>`
          SELECT a.name AS account_name, a.plan, u.period, u.environment, sum(u.credits) AS credits, sum(u.requests) AS requests
          FROM usage u JOIN accounts a ON a.id = u.account_id WHERE u.period = ${period}
          GROUP BY a.name, a.plan, u.period, u.environment HAVING sum(u.requests) > 0 ORDER BY a.name, u.environment`
      ).map((r) => ({ ...r, credits: Number(r.credits), requests: Number(r.requests) })),
  };
}

/** Finds or creates the account (locked for the transaction); with `plan`, sets its plan. */
async function ensureAccount(tx: Tx, name: string, plan: string | undefined, now: Date): Promise<AccountRow> {
  checkName('account', name);
  const wanted = plan === undefined ? undefined : checkPlan(plan);
  const row: AccountRow = { id: `acct_${randomBase62(16)}`, name, plan: wanted ?? 'starter', created_at: now.toISOString() };
  await tx`INSERT INTO accounts (id, name, plan, created_at) VALUES (${row.id}, ${name}, ${row.plan}, ${row.created_at}) ON CONFLICT (name) DO NOTHING`;
  const [existing] = await tx<AccountRow[]>`SELECT id, name, plan, created_at FROM accounts WHERE name = ${name} FOR UPDATE`;
  if (wanted && existing!.plan !== wanted) {
    await tx`UPDATE accounts SET plan = ${wanted} WHERE id = ${existing!.id}`;
    return { ...existing!, plan: wanted };
  }
  return existing!;
}

/** A new key (and its account when new), its rate window row from the start; the one time the full key exists. */
async function createKey(sql: Sql, o: Parameters<AdminStore['createKey']>[0]): Promise<CreatedKey> {
  checkName('key', o.name);
  return sql.begin(async (tx) => {
    const [dup] = await tx`SELECT 1 FROM api_keys WHERE name = ${o.name}`;
    if (dup)
      throw new VerityError('VALIDATION_FAILED', `A key named "${o.name}" already exists`, {
        details: [{ field: 'name', issue: 'must be unique (revoked keys keep their name)' }],
      });
    if (o.plan !== undefined && !o.changePlan) {
      const wanted = checkPlan(o.plan);
      const [existing] = await tx<{ id: string; plan: string }[]>`SELECT id, plan FROM accounts WHERE name = ${o.account} FOR UPDATE`;
      if (existing && existing.plan !== wanted) {
        const [count] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM api_keys WHERE account_id = ${existing.id} AND revoked_at IS NULL`;
        throw planChangeRefused(o.account, existing.plan, wanted, count?.n ?? 0);
      }
    }
    const account = await ensureAccount(tx, o.account, o.plan, o.now);
    const { key, row: stored } = newKeyRecord(o, account.id);
    const { key_hash: keyHash, ...row } = stored;
    await tx`INSERT INTO api_keys (id, account_id, name, environment, prefix, last4, key_hash, created_at)
      VALUES (${row.id}, ${row.account_id}, ${row.name}, ${row.environment}, ${row.prefix}, ${row.last4}, ${keyHash}, ${row.created_at})`;
    // Its rate window row from the start: the request guard's statement only updates.
    await tx`INSERT INTO rate_windows (key_id) VALUES (${row.id}) ON CONFLICT (key_id) DO NOTHING`;
    return { ...row, account_name: account.name, plan: account.plan, last_used_at: null, revoked_at: null, key };
  }) as Promise<CreatedKey>;
}
