import type { Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerReport(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .description('write a self-contained HTML report from a saved --json result (offline, printable)')
    .argument('<result>', 'the result JSON as printed by verify … --json, or - for stdin')
    .option('--input <file>', 'the media or document file the result is about (embeds the image)')
    .requiredOption('-o, --output <file>', 'the HTML file to write')
    .addHelpText(
      'after',
      `
The report loads nothing from the network: styles are inline and images are data: URIs.

Examples:
  $ verity report result.json -o report.html
  $ verity report photo-result.json --input photo.jpg -o photo-report.html
  $ verity verify document contract.pdf --json | verity report - --input contract.pdf -o contract.html`,
    )
    .action(lazyAction(ctx, () => import('../commands/report.js')));
}
