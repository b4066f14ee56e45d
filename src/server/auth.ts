/**
 * Bearer-key authentication (SPEC 5.1–5.3). The key is hashed and looked up on every request —
 * no cache — so a revocation made by `verity admin keys revoke` (another process, same SQLite
 * file) answers 401 from the very next request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { VerityError, type Plan } from '../api/errors.js';
import type { Clock } from '../engine/types.js';
import type { Database } from '../store/database.js';
import { hashKey } from './accounts.js';
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

const unauthorized = (message: string): VerityError => new VerityError('UNAUTHORIZED', message);

export function createAuthenticator(db: Database, clock: Clock) {
  const find = db.prepare(
    `SELECT k.id, k.account_id, k.prefix, k.environment, k.revoked_at, a.plan
     FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  );
  const touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
  const touched = new Map<string, number>();

  /** The key from an Authorization header, or a 401 error saying what is wrong with it. */
  function authenticate(header: string | undefined): AuthInfo {
    if (!header) throw unauthorized('Missing API key: send `Authorization: Bearer <API_KEY>`');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized('Malformed Authorization header: expected `Bearer <API_KEY>`');
    const key = m[1]!;
    if (!KEY.test(key)) throw unauthorized('Malformed API key: expected vty_live_… or vty_test_… with 32 characters after the prefix');
    const row = find.get(hashKey(key)) as KeyLookup | undefined;
    // The environment tag is part of the hashed value, so a key with its tag changed is unknown.
    if (!row) throw unauthorized('Invalid API key');
    if (row.revoked_at) throw unauthorized('This API key was revoked');
    const now = clock.now();
    const last = touched.get(row.id) ?? 0;
    if (now.getTime() - last >= TOUCH_EVERY_MS || now.getTime() < last) {
      touched.set(row.id, now.getTime());
      touch.run(now.toISOString(), row.id);
    }
    return { accountId: row.account_id, keyId: row.id, keyPrefix: row.prefix, plan: row.plan, environment: row.environment };
  }

  return { authenticate };
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
