import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { redactKey } from '../../config/schema.js';
import { updateConfig } from '../../config/write.js';
import type { CliRuntime } from '../runtime.js';

export default async function keysUse(rt: CliRuntime, cmd: Command): Promise<void> {
  const name = cmd.args[0] as string;
  const profile = rt.profileName();
  let shown = '';
  await updateConfig(rt.ctx.paths.configFile, (cfg) => {
    const stored = cfg.keys[name];
    if (!stored) throw notStored(name, Object.keys(cfg.keys));
    shown = `${redactKey(stored.value)}, ${stored.environment}`;
    cfg.profiles[profile] = { ...cfg.profiles[profile], key: name };
  });
  if (rt.out.machine) return rt.out.json({ profile, key: name });
  rt.out.success(`Profile "${profile}" now uses key ${rt.out.errStyle.bold(name)} (${shown})`);
}

export function notStored(name: string, names: string[]): VerityError {
  return new VerityError('NOT_FOUND', `No stored key named "${name}"${names.length ? ` (stored: ${names.join(', ')})` : ' (no keys are stored)'}`, {
    details: [{ field: 'name', issue: 'not a stored key' }],
  });
}
