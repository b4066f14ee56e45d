/** `verity completion SHELL`: the script for each shell, generated from the commander tree. */
import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionTree } from './model.js';
import { zshScript } from './zsh.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(program: Command, shell: Shell): string {
  const tree = completionTree(program);
  const bin = program.name();
  switch (shell) {
    case 'bash':
      return bashScript(tree, bin);
    case 'zsh':
      return zshScript(tree, bin);
    case 'fish':
      return fishScript(tree, bin);
  }
}
