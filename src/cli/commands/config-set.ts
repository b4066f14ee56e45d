import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { updateConfig } from '../../config/write.js';
import { masked } from './config-mask.js';
import { checkValue, requireSetting, setAt, splitPath } from './config-settings.js';

export default async function configSet(rt: CliRuntime, cmd: Command): Promise<void> {
  const [key, given] = cmd.args as [string, string];
  const setting = requireSetting(key, rt.profileName());
  // `-` reads the value from stdin, so a secret need not go into the shell history.
  const raw = given === '-' ? (await rt.takeStdin(key)).toString('utf8').split(/\r?\n/)[0]! : given;
  let stored = '';
  await updateConfig(rt.ctx.paths.configFile, (cfg) => {
    stored = checkValue(setting, key, raw, cfg, rt.ctx.cwd);
    setAt(cfg as unknown as Record<string, unknown>, splitPath(key), stored);
  });
  const shown = masked(key, stored, false);
  if (rt.out.machine) return rt.out.json({ key, value: shown });
  rt.out.success(`${key} = ${String(shown)}`);
}
