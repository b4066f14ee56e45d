import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { updateConfig } from '../../config/write.js';
import type { CliRuntime } from '../runtime.js';
import { requireSetting, splitPath, unsetAt } from './config-settings.js';

export default async function configUnset(rt: CliRuntime, cmd: Command): Promise<void> {
  const key = cmd.args[0] as string;
  requireSetting(key, rt.profileName());
  await updateConfig(rt.ctx.paths.configFile, (cfg) => {
    if (!unsetAt(cfg as unknown as Record<string, unknown>, splitPath(key)))
      throw new VerityError('NOT_FOUND', `${key} is not set`, { details: [{ field: 'key', issue: 'not set in the config file' }] });
  });
  if (rt.out.machine) return rt.out.json({ key, removed: true });
  rt.out.success(`${key} removed`);
}
