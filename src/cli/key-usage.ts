/**
 * When each key was last used. This is data, not configuration, so it lives in the data folder
 * (key-usage.json, keyed by a digest of the key) and a verification never rewrites the config file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 32);

const file = (dataDir: string): string => join(dataDir, 'key-usage.json');

export function readKeyUsage(dataDir: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(file(dataDir), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

export function recordKeyUse(dataDir: string, key: string, when: Date): void {
  try {
    const usage = readKeyUsage(dataDir);
    usage[keyDigest(key)] = when.toISOString();
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file(dataDir)}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(usage), { mode: 0o600 });
    renameSync(tmp, file(dataDir));
  } catch {
    // Losing a last-used timestamp is not worth failing a verification over.
  }
}
