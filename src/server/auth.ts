/**
 * Bearer-key authentication (SPEC 5.1–5.3). The key is hashed and its row looked up; rows are
 * cached in memory, and the cache is emptied whenever the keys may have changed, so a revocation
 * answers 401 from the very next request:
 * - another connection (`verity admin keys revoke` in another process, same SQLite file) →
 *   `PRAGMA data_version` changes, checked on every request (~2.5 µs, no table read);
 * - this connection (in-process admin calls, tests) → TEMP triggers on `api_keys` and `accounts`
 *   call a function registered on this connection only (other processes never see them).
 * Last-used times are written through the group commit, so they never cost a commit of their own.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { VerityError, type Plan } from '../api/errors.js';
import type { Clock } from '../engine/types.js';
import type { Database } from '../store/database.js';
import { hashKey } from './accounts.js';
import type { GroupCommit } from './group-commit.js';
import type { AuthInfo, KeyEnvironment } from './types.js';

export type { AuthInfo } from './types.js';

const KEY = /^vty_(live|test)_[0-9A-Za-z]{32}$/;
/** How often last_used_at is written per key: often enough for a dashboard, cheap under load. */
const TOUCH_EVERY_MS = 1_000;

interface KeyLookup {
  id: string;
  account_id: string;
  prefix: string;
  environment: KeyEnvironment;
  revoked_at: string | null;
  plan: Plan;
}

/** Beyond this many cached keys the cache starts over (bounds memory, not correctness). */
const CACHE_MAX = 10_000;

const unauthorized = (message: string): VerityError => new VerityError('UNAUTHORIZED', message);

/** Listeners per connection for writes this connection makes to keys or accounts. */
const keyWriteListeners = new WeakMap<Database, Set<() => void>>();

/** Subscribes to this connection's key/account writes; returns the unsubscribe function. */
function onKeyWrites(db: Database, listener: () => void): () => void {
  let set = keyWriteListeners.get(db);
  if (!set) {
    const listeners = new Set<() => void>();
    set = listeners;
    keyWriteListeners.set(db, set);
    db.function('verity_keys_changed', { deterministic: false }, () => {
      for (const l of listeners) l();
      return null;
    });
    // Only the columns a lookup returns: last_used_at updates must not empty the cache.
    db.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS verity_keys_upd AFTER UPDATE OF id, account_id, environment, prefix, key_hash, revoked_at
        ON main.api_keys BEGIN SELECT verity_keys_changed(); END;
      CREATE TEMP TRIGGER IF NOT EXISTS verity_keys_del AFTER DELETE ON main.api_keys BEGIN SELECT verity_keys_changed(); END;
      CREATE TEMP TRIGGER IF NOT EXISTS verity_accounts_upd AFTER UPDATE OF id, plan
        ON main.accounts BEGIN SELECT verity_keys_changed(); END;
      CREATE TEMP TRIGGER IF NOT EXISTS verity_accounts_del AFTER DELETE ON main.accounts BEGIN SELECT verity_keys_changed(); END;`);
  }
  set.add(listener);
  return () => set.delete(listener);
}

export function createAuthenticator(db: Database, clock: Clock, writes: GroupCommit) {
  const find = db.prepare(
    `SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  );
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const touched = new Map<string, number>();
  // Found rows only (revoked ones too): unknown keys are not cached, so guessing cannot fill memory.
  const cache = new Map<string, KeyLookup>();
  let seenVersion = dataVersion.get();
  const unsubscribe = onKeyWrites(db, () => cache.clear());

  function lookup(hash: string): KeyLookup | undefined {
    const version = dataVersion.get();
    if (version !== seenVersion) {
      seenVersion = version;
      cache.clear();
    }
    let row = cache.get(hash);
    if (row) return row;
    row = find.get(hash) as KeyLookup | undefined;
    if (row) {
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(hash, row);
    }
    return row;
  }

  /** The key from an Authorization header, or a 401 error saying what is wrong with it. */
  function authenticate(header: string | undefined): AuthInfo {
    if (!header) throw unauthorized('Missing API key: send `Authorization: Bearer <API_KEY>`');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized('Malformed Authorization header: expected `Bearer <API_KEY>`');
    const key = m[1]!;
    if (!KEY.test(key)) throw unauthorized('Malformed API key: expected vty_live_… or vty_test_… with 32 characters after the prefix');
    const row = lookup(hashKey(key));
    // The environment tag is part of the hashed value, so a key with its tag changed is unknown.
    if (!row) throw unauthorized('Invalid API key');
    if (row.revoked_at) throw unauthorized('This API key was revoked');
    const now = clock.now();
    const last = touched.get(row.id) ?? 0;
    if (now.getTime() - last >= TOUCH_EVERY_MS || now.getTime() < last) {
      touched.set(row.id, now.getTime());
      const at = now.toISOString();
      const id = row.id;
      writes.defer(() => touch.run(at, id));
    }
    return { accountId: row.account_id, keyId: row.id, keyPrefix: row.prefix, plan: row.plan, environment: row.environment };
  }

  /** Stops listening to the connection (the server closed; the connection may live on). */
  const close = (): void => {
    unsubscribe();
    cache.clear();
  };

  return { authenticate, close };
}

/**
 * The reusable hook for authenticated routes (use as `onRequest` so a 30 MB body is never read
 * for an unknown caller, or as `preHandler`). Sets `request.auth` or fails with 401.
 */
export async function requireAuth(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await request.server.verity.requireAuth(request, reply);
}

/** Applies the authenticated key's rate limit; use after requireAuth. */
export async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await request.server.verity.rateLimit(request, reply);
}
