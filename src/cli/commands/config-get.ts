import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';
import { masked } from './config-mask.js';
import { getAt, splitPath } from './config-settings.js';

export default async function configGet(rt: CliRuntime, cmd: Command): Promise<void> {
  const key = cmd.args[0] as string;
  const { showSecrets } = cmd.opts<{ showSecrets?: boolean }>();
  const value = getAt(rt.config(), splitPath(key));
  // Like `git config`: an unset setting is "not found" (exit 1), so scripts can test for it.
  if (value === undefined)
    throw new VerityError('NOT_FOUND', `${key} is not set`, { details: [{ field: 'key', issue: 'not set in the config file' }] });
  const shown = masked(key, value, Boolean(showSecrets));
  if (rt.out.machine) return rt.out.json(shown);
  rt.out.print(typeof shown === 'string' ? shown : JSON.stringify(shown, null, 2));
}
