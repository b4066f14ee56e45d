import { Argument, type Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

// Kept here (not imported from ../completion) so `verity --help` loads no generator code.
const SHELLS = ['bash', 'zsh', 'fish'];

export function registerCompletion(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(verity completion bash)                      # this shell only
  $ verity completion bash > ~/.local/share/bash-completion/completions/verity
  $ verity completion zsh > "\${fpath[1]}/_verity"
  $ verity completion fish > ~/.config/fish/completions/verity.fish`,
    )
    .action(lazyAction(ctx, () => import('../completion/command.js')));
  // What the scripts call for values that depend on the user's data (key names, webhook ids…).
  program
    .command('__complete', { hidden: true })
    .argument('<source>')
    .argument('[word]')
    .action(lazyAction(ctx, () => import('../commands/complete.js')));
}
