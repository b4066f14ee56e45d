/**
 * Where the CLI gets webhook secrets: `--secret` values (repeatable; `-` reads stdin),
 * `--secret-file` paths, or VERITY_WEBHOOK_SECRET; and the local listener's own secret, kept in
 * the data folder (mode 0600) so `verity listen` and `verity webhooks trigger` agree without it
 * ever being typed or printed (except on request with `--print-secret`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VerityError } from '../api/errors.js';
import { generateSecretValue } from '../domain/webhook-secret.js';

export const listenSecretFile = (dataDir: string): string => join(dataDir, 'listen-secret');

export function readSecretFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new VerityError('VALIDATION_FAILED', `Cannot read the secret file ${path}`, {
      details: [{ field: 'secret-file', issue: 'file not found or not readable' }],
    });
  }
  // A trailing newline from `echo … > file` is never part of the secret.
  const s = text.replace(/\r?\n$/, '');
  if (!s) throw new VerityError('VALIDATION_FAILED', `The secret file ${path} is empty`, { details: [{ field: 'secret-file', issue: 'empty' }] });
  return s;
}

/** The local listener's secret, created on first use. */
export function listenSecret(dataDir: string): { secret: string; created: boolean } {
  const file = listenSecretFile(dataDir);
  try {
    const s = readFileSync(file, 'utf8').trim();
    if (s) return { secret: s, created: false };
  } catch {
    // first use
  }
  const secret = generateSecretValue();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return { secret, created: true };
}
