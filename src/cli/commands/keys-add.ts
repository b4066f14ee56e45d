import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { redactKey } from '../../config/schema.js';
import { updateConfig } from '../../config/write.js';
import type { CliRuntime } from '../runtime.js';
import { checkKeyName, checkKeyValue, readNewKey } from './keys-common.js';

export default async function keysAdd(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ force?: boolean; use?: boolean }>();
  const given = cmd.args[0] as string | undefined;
  if (given !== undefined) checkKeyName(given); // before reading a secret the user would retype
  const { value, origin } = await readNewKey(rt);
  const environment = checkKeyValue(value, origin);
  const name = given ?? environment;
  const profile = rt.profileName();
  let active = false;
  let replaced = false;
  await updateConfig(rt.ctx.paths.configFile, (cfg) => {
    const same = Object.entries(cfg.keys).find(([n, k]) => k.value === value && n !== name);
    if (same)
      throw new VerityError('VALIDATION_FAILED', `This key is already stored as "${same[0]}"`, {
        details: [{ field: 'key', issue: `already stored as "${same[0]}"` }],
      });
    if (cfg.keys[name]) {
      if (!o.force)
        throw new VerityError('VALIDATION_FAILED', `A key named "${name}" is already stored; add --force to replace it`, {
          details: [{ field: 'name', issue: 'already stored' }],
        });
      replaced = true;
    }
    cfg.keys[name] = { value, environment, added_at: rt.ctx.clock.now().toISOString(), last_used_at: null };
    const p = cfg.profiles[profile] ?? {};
    // The first key (or one for a profile whose key is gone) becomes active without being asked.
    if (o.use || !p.key || !cfg.keys[p.key] || p.key === name) {
      p.key = name;
      active = true;
    }
    cfg.profiles[profile] = p;
  });
  const summary = { name, environment, key: redactKey(value), profile, active, replaced };
  if (rt.out.machine) return rt.out.json(summary);
  rt.out.success(
    `${replaced ? 'Replaced' : 'Stored'} key ${rt.out.errStyle.bold(name)} (${summary.key}, ${environment}) in ${rt.ctx.paths.configFile}`,
  );
  if (active) rt.out.info(`It is the active key of profile "${profile}".`);
  else rt.out.info(`Make it the active key with: verity keys use ${name}`);
}
