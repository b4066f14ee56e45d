import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { completionScript, type Shell } from './index.js';

export default async function completion(rt: CliRuntime, cmd: Command): Promise<void> {
  let root = cmd;
  while (root.parent) root = root.parent;
  // The script is the data here: written as is, --json or not.
  rt.out.print(completionScript(root, cmd.args[0] as Shell));
}
