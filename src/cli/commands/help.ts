/** `verity help [command path]`: the help of any command, e.g. `verity help verify claim`. */
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';

export default async function help(_rt: CliRuntime, cmd: Command): Promise<void> {
  const path = cmd.args as string[];
  let target: Command = cmd.parent!;
  for (const [i, word] of path.entries()) {
    const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const known = target.commands.filter((c) => c.name() !== 'help').map((c) => c.name());
      throw new VerityError('VALIDATION_FAILED', `There is no command "verity ${path.slice(0, i + 1).join(' ')}"`, {
        details: [{ field: 'command', issue: `${target === cmd.parent ? 'commands' : `commands of "verity ${path.slice(0, i).join(' ')}"`}: ${known.join(', ')}` }],
      });
    }
    target = next;
  }
  target.outputHelp();
}
