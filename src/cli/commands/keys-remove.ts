import type { Command } from 'commander';
import { updateConfig } from '../../config/write.js';
import type { CliRuntime } from '../runtime.js';
import { confirmed } from './keys-common.js';
import { notStored } from './keys-use.js';

export default async function keysRemove(rt: CliRuntime, cmd: Command): Promise<void> {
  const name = cmd.args[0] as string;
  const { yes } = cmd.opts<{ yes?: boolean }>();
  const cfg = rt.config();
  if (!cfg.keys[name]) throw notStored(name, Object.keys(cfg.keys));
  if (!(await confirmed(rt, `Forget the key "${name}"? It cannot be shown again.`, yes))) {
    rt.out.info('Nothing removed.');
    return;
  }
  const cleared: string[] = [];
  await updateConfig(rt.ctx.paths.configFile, (c) => {
    if (!c.keys[name]) throw notStored(name, Object.keys(c.keys));
    delete c.keys[name];
    for (const [p, profile] of Object.entries(c.profiles))
      if (profile.key === name) {
        delete profile.key;
        cleared.push(p);
      }
  });
  if (rt.out.machine) return rt.out.json({ removed: name, profiles_without_key: cleared });
  rt.out.success(`Removed key ${rt.out.errStyle.bold(name)}`);
  if (cleared.length) rt.out.info(`Profile${cleared.length > 1 ? 's' : ''} ${cleared.map((p) => `"${p}"`).join(', ')} now ha${cleared.length > 1 ? 've' : 's'} no key: choose one with verity keys use NAME`);
  rt.out.info(
    'This only forgets the key here. If it was exposed, revoke it on the server that issued it: `verity admin keys revoke NAME-OR-PREFIX` (there, against its database).',
  );
}
