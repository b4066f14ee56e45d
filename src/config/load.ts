/**
 * Reading the config file is on every command's path, so it is a plain readFileSync + zod parse;
 * `conf` (atomic writes, 0600) is loaded only by the commands that change the file.
 */
import { readFileSync } from 'node:fs';
import { VerityError } from '../api/errors.js';
import { ConfigFile } from './schema.js';

export function loadConfig(file: string): ConfigFile {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ConfigFile.parse({});
    throw new VerityError('INVALID_REQUEST', `Cannot read the config file ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new VerityError('INVALID_REQUEST', `The config file ${file} is not valid JSON; fix or remove it`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new VerityError('VALIDATION_FAILED', `The config file ${file} is invalid at ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return parsed.data;
}
