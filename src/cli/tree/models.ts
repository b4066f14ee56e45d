import { Command, Option } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

/** Local models verity can run in-process (today: the NLI stance model for claims). */
export function registerModels(program: Command, ctx: CliContext): void {
  const models = program
    .command('models')
    .description('local models verity runs in-process (the claim NLI stance model)')
    .addHelpText(
      'after',
      `
The NLI model reads each evidence passage against the claim when \`claim.stance\` is \`nli\`;
without it, claims use the built-in local stance model.

Examples:
  $ verity models pull nli && verity config set claim.stance nli
  $ verity models ls`,
    );
  models
    .command('pull')
    .description('download a model once into the data folder, checking sizes and SHA-256 digests')
    .addArgument(new Command().createArgument('<kind>', 'which model').choices(['nli']))
    .addOption(new Option('--model <id>', 'Hugging Face model id (owner/name) with an ONNX export').default('Xenova/nli-deberta-v3-xsmall'))
    .addOption(new Option('--onnx-file <path>', 'which ONNX file of the repository to use').default('onnx/model_quantized.onnx'))
    .addOption(new Option('--from <url-or-dir>', 'a mirror URL to fetch the files from, or a folder holding them'))
    .addOption(new Option('--force', 'download again even when a checked copy is present'))
    .addHelpText(
      'after',
      `
The model is stored under the data folder (models/nli/<owner>--<name>) and used when
\`claim.stance\` is \`nli\`; nothing is fetched after this. A pull replaces the folder only once
every file arrived and checked out.

Examples:
  $ verity models pull nli && verity config set claim.stance nli
  $ verity models pull nli --from https://mirror.example.org/nli-deberta-v3-xsmall
  $ verity models pull nli --from ./nli-deberta-v3-xsmall      # files copied from a folder
  $ verity models pull nli --model Xenova/nli-deberta-v3-small --onnx-file onnx/model.onnx`,
    )
    .action(lazyAction(ctx, () => import('../commands/models-pull.js')));

  models
    .command('list')
    .alias('ls')
    .description('the models in the data folder: name, size, path, and whether their files still match their digests')
    .addHelpText(
      'after',
      `
Examples:
  $ verity models list
  $ verity models list --json | jq -r '.data[] | select(.verified) | .path'`,
    )
    .action(lazyAction(ctx, () => import('../commands/models-list.js')));
}
