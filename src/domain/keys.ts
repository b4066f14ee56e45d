/**
 * The rules of API keys and accounts that both stores apply (SPEC 5): the key format and its
 * display prefix, the one-way hash that is all a store keeps, name and plan checks, and the
 * calendar-month usage period. Pure: no database, no server.
 */
import { hash } from 'node:crypto';
import { PLANS, VerityError, type Plan } from '../api/errors.js';
import { randomBase62 } from '../api/ids.js';

export type KeyEnvironment = 'live' | 'test';

/** A new secret key: `vty_<environment>_` and 32 random base62 characters. */
export const newKeyValue = (environment: KeyEnvironment): string => `vty_${environment}_${randomBase62(32)}`;

// One-shot hash: no Hash object per request (this runs on every authenticated request).
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

/** `vty_test_` + the first four random characters: enough to tell keys apart, useless to attack. */
export const keyPrefixOf = (key: string): string => key.slice(0, 13);

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkName(what: string, name: string): void {
  if (!NAME.test(name))
    throw new VerityError('VALIDATION_FAILED', `The ${what} name "${name}" is not allowed`, {
      details: [{ field: 'name', issue: '1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' }],
    });
}

export function checkPlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan))
    throw new VerityError('VALIDATION_FAILED', `Unknown plan "${plan}"`, { details: [{ field: 'plan', issue: `one of ${PLANS.join(', ')}` }] });
  return plan as Plan;
}

/**
 * Plans belong to accounts (as a Stripe subscription does), so a key created with a different
 * --plan for an existing account would move every key of the account: refused unless the caller
 * says so (`changePlan`, the CLI's --change-plan). The error names the account, its plan and keys.
 */
export function planChangeRefused(account: string, current: string, wanted: string, keys: number): VerityError {
  const them = keys === 1 ? 'its 1 key' : `all ${keys} of its keys`;
  return new VerityError(
    'VALIDATION_FAILED',
    `Account "${account}" is on the ${current} plan with ${keys} active key${keys === 1 ? '' : 's'}; plans are per account, so --plan ${wanted} would move ${them} to ${wanted}`,
    {
      details: [{ field: 'plan', issue: `the account is on ${current}; add --change-plan to move the whole account to ${wanted}` }],
      hint: `leave --plan out to add this key on ${current}, add --change-plan to move account "${account}" to ${wanted}, or use --account NEW for a separate account`,
    },
  );
}

/** Usage periods are calendar months in UTC: `2026-03`. */
export const periodOf = (d: Date): string => {
  // Asked on every charge: the answer is kept for the month it belongs to (toISOString ≈ 1 µs).
  const t = d.getTime();
  if (t >= period.from && t < period.to) return period.name;
  const name = d.toISOString().slice(0, 7);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  // (Date.UTC reads years 0–99 as 19xx: such clocks are simply not cached.)
  if (y >= 100) period = { name, from: Date.UTC(y, m, 1), to: Date.UTC(y, m + 1, 1) };
  return name;
};
let period = { name: '', from: 0, to: 0 };

/**
 * The one key `admin keys revoke NAME|PREFIX` means, from the keys matching by exact name, else by
 * display prefix: none is NOT_FOUND; an ambiguous prefix is refused rather than guessed (both
 * stores apply this rule inside their own transaction).
 */
export function oneKeyToRevoke<K extends { name: string; prefix: string; last4: string }>(nameOrPrefix: string, matches: K[]): K {
  if (matches.length === 0) throw new VerityError('NOT_FOUND', `No key named or prefixed "${nameOrPrefix}" (see \`verity admin keys list\`)`);
  if (matches.length > 1)
    throw new VerityError('VALIDATION_FAILED', `"${nameOrPrefix}" matches ${matches.length} keys; revoke by name instead`, {
      details: matches.map((m) => ({ field: 'key', issue: `${m.name} (${m.prefix}…${m.last4})` })),
    });
  return matches[0]!;
}

/** A new key and the row a store keeps of it (the hash, never the key), for an account. */
export function newKeyRecord(o: { name: string; environment: KeyEnvironment; now: Date }, accountId: string) {
  const key = newKeyValue(o.environment);
  const row = {
    id: `key_${randomBase62(16)}`,
    account_id: accountId,
    name: o.name,
    environment: o.environment,
    prefix: keyPrefixOf(key),
    last4: key.slice(-4),
    key_hash: hashKey(key),
    created_at: o.now.toISOString(),
  };
  return { key, row };
}
