/** Destructive commands ask on a terminal and need `--yes` in scripts: one rule for all of them. */
import { VerityError } from '../api/errors.js';
import { EXIT, ExitError } from './errors.js';
import type { CliRuntime } from './runtime.js';

/** Asks on a terminal; without one, a destructive step needs `--yes` (a script must say so). */
export async function confirmed(rt: CliRuntime, message: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  if (!rt.ctx.isInteractive())
    throw new VerityError('VALIDATION_FAILED', 'Not on a terminal, so there is nobody to confirm: add --yes', {
      details: [{ field: 'yes', issue: 'required when not on a terminal' }],
    });
  const { confirm } = await import('@inquirer/prompts');
  try {
    return await confirm({ message, default: false }, { input: rt.ctx.stdin, output: rt.ctx.stderr, signal: rt.ctx.interrupted });
  } catch (err) {
    if (err instanceof Error && /ExitPromptError|AbortPromptError/.test(err.name)) throw new ExitError(EXIT.interrupted);
    throw err;
  }
}
