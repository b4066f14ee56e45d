/**
 * Bearer-key authentication (SPEC 5.1–5.3). The key is hashed and its row looked up in the store
 * (src/store/ports/index.ts). A revocation answers 401 from the very next request, whoever made
 * it: the SQLite store caches rows but empties the cache on any key change (PRAGMA data_version,
 * TEMP triggers); the PostgreSQL store reads the row on every request (one indexed look-up).
 * Last-used times go through the store's batched writes, never a commit of their own.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { VerityError } from '../api/errors.js';
import type { Clock } from '../engine/types.js';
import type { KeyRecord, ServerStore } from '../store/ports/index.js';
import { hashKey } from '../domain/keys.js';
import type { AuthInfo } from './types.js';

export type { AuthInfo } from './types.js';

const KEY = /^vty_(live|test)_[0-9A-Za-z]{32}$/;
/** How often last_used_at is written per key: often enough for a dashboard, cheap under load. */
const TOUCH_EVERY_MS = 1_000;
/** Keys whose hash is memoized at most (bounds memory). */
const CACHE_MAX = 10_000;

const unauthorized = (message: string): VerityError => new VerityError('UNAUTHORIZED', message);

export function createAuthenticator(store: ServerStore, clock: Clock) {
  const touched = new Map<string, number>();

  /** The key from an Authorization header, or a 401 error saying what is wrong with the header. */
  function keyOf(header: string | undefined): string {
    if (!header) throw unauthorized('Missing API key: send `Authorization: Bearer <API_KEY>`');
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m) throw unauthorized('Malformed Authorization header: expected `Bearer <API_KEY>`');
    const key = m[1]!;
    if (!KEY.test(key)) throw unauthorized('Malformed API key: expected vty_live_… or vty_test_… with 32 characters after the prefix');
    return key;
  }

  /** The key's hash from an Authorization header, or a 401 error saying what is wrong with it. */
  function keyHash(header: string | undefined): string {
    return hashKey(keyOf(header));
  }

  function admit(row: KeyRecord | undefined, now: Date = clock.now()): AuthInfo {
    // The environment tag is part of the hashed value, so a key with its tag changed is unknown.
    if (!row) throw unauthorized('Invalid API key');
    if (row.revoked_at) throw unauthorized('This API key was revoked');
    const ms = now.getTime();
    const last = touched.get(row.id) ?? 0;
    if (ms - last >= TOUCH_EVERY_MS || ms < last) {
      if (touched.size >= 10_000) touched.clear();
      touched.set(row.id, ms);
      store.touchKey(row.id, now);
    }
    return { accountId: row.account_id, keyId: row.id, keyPrefix: row.prefix, plan: row.plan, environment: row.environment };
  }

  /**
   * The SHA-256 of keys the store knows, by Authorization header, so a returning caller's header
   * is not parsed and its key not hashed on every request (≈ 1.5 µs). Only the hashing is
   * skipped, never the row check: the store still answers (cache or row) whether the key exists
   * and is revoked, on every request. Headers of unknown keys are not memoized (guessing cannot
   * fill the map), nor any spelling but `Bearer <key>` (so its entries stay ~60 bytes), and it
   * starts over beyond CACHE_MAX. (The keys are in this process's memory
   * anyway while their requests are read; the map is emptied when the server closes.)
   */
  const knownHashes = new Map<string, string>();

  return {
    keyHash,
    admit,
    /** In-process stores only (store.sync): no promise on the hot path. `now`: the request's clock reading. */
    authenticateSync(header: string | undefined, now: Date): AuthInfo {
      // The same header parses the same way: a memoized one skips the checks and the hash.
      const known = header === undefined ? undefined : knownHashes.get(header);
      if (known !== undefined) return admit(store.sync!.findKey(known), now);
      const key = keyOf(header);
      const hash = hashKey(key);
      const row = store.sync!.findKey(hash);
      // Only the canonical spelling is memoized: padded or re-cased variants of one valid key
      // (each up to the header size limit) must not fill the map with large strings.
      if (row && header!.length === 7 + key.length && header!.startsWith('Bearer ')) {
        if (knownHashes.size >= CACHE_MAX) knownHashes.clear();
        knownHashes.set(header!, hash);
      }
      return admit(row, now);
    },
    async authenticate(header: string | undefined): Promise<AuthInfo> {
      return admit(await store.findKey(keyHash(header)));
    },
    /** How many headers have their hash memoized (tests: the bound on what the map holds). */
    memoizedHeaders(): number {
      return knownHashes.size;
    },
    close(): void {
      touched.clear();
      knownHashes.clear();
    },
  };
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
