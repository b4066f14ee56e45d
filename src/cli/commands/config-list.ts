import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { flatten, masked } from './config-mask.js';

export default async function configList(rt: CliRuntime, cmd: Command): Promise<void> {
  const { showSecrets } = cmd.opts<{ showSecrets?: boolean }>();
  const shown = masked('', rt.config(), Boolean(showSecrets));
  if (rt.out.machine) return rt.out.json(shown);
  const s = rt.out.style;
  rt.out.print(flatten(shown).map(([k, v]) => `${s.cyan(k)} = ${v}`).join('\n'));
  if (!showSecrets) rt.out.info(s.dim('secrets are masked; --show-secrets shows source and LLM keys (verity keys are never shown whole)'));
}
