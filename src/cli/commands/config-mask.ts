/** What `config get/list` show: secrets masked, verity API keys always redacted. */
import { redactKey, redactSecret, SECRET_SETTING } from '../../config/schema.js';

/**
 * Masks secrets in a value found at `path`. Stored verity API keys (`keys.*.value`, or any value
 * that looks like one) are always redacted; other secrets (source API keys) only without
 * --show-secrets.
 */
export function masked(path: string, value: unknown, showSecrets: boolean): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('vty_') || /^keys\.[^.]+\.value$/.test(path)) return redactKey(value);
    if (!showSecrets && SECRET_SETTING.test(path)) return redactSecret(value);
    return value;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(path ? `${path}.${k}` : k, v, showSecrets)]));
  return value;
}

/** `a.b.c = value` lines for `config list`, in file order. */
export function flatten(value: unknown, prefix = ''): Array<[string, string]> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0 && prefix) return [[prefix, '{}']];
    return entries.flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  }
  return [[prefix, typeof value === 'string' ? value : JSON.stringify(value)]];
}
