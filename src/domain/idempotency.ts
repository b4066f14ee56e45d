/**
 * The rules of Idempotency-Key (SPEC 5): the key's form, the request fingerprint a replay must
 * match, how long a completed answer is kept, and the error for a key reused on another request.
 * Both stores apply them; the server's hook (server/idempotency.ts) decides replay or conflict.
 */
import { createHash } from 'node:crypto';
import { VerityError } from '../api/errors.js';

/** A completed request's answer is replayed for a day, then purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

const KEY = /^[\x21-\x7e]{1,255}$/;

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (!KEY.test(key))
    throw new VerityError('VALIDATION_FAILED', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters', {
      details: [{ field: 'Idempotency-Key', issue: '1 to 255 visible ASCII characters' }],
    });
}

export const idempotencyMismatch = (): VerityError =>
  new VerityError('VALIDATION_FAILED', 'This Idempotency-Key was already used with a different request', {
    details: [{ field: 'Idempotency-Key', issue: 'reused with a different method, path or body; use a new key' }],
  });
