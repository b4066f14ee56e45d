/** `verity __complete SOURCE [WORD]` (hidden): one completion candidate per line, for the shell scripts. */
import type { Command } from 'commander';
import { completionValues } from '../completion/values.js';
import type { CliRuntime } from '../runtime.js';

export default async function complete(rt: CliRuntime, cmd: Command): Promise<void> {
  const [source, current = ''] = cmd.args as [string, string | undefined];
  let values: string[] = [];
  try {
    values = await completionValues(rt, source, current);
  } catch {
    // A broken config or store must not print errors into the user's command line.
  }
  if (values.length) rt.out.print(values.join('\n'));
}
