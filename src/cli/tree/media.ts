import type { Command } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

/** The known-media index that media verification builds `provenance` from. */
export function registerMedia(program: Command, ctx: CliContext): void {
  const media = program
    .command('media')
    .description('manage the known-media index used for provenance')
    .addHelpText(
      'after',
      `
Examples:
  $ verity media index add press-photo.jpg --source agency --url https://example.com/story --seen 2025-06-01
  $ verity media index list`,
    );
  const index = media
    .command('index')
    .description('known appearances of images and videos (perceptual hashes)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity media index add press-photo.jpg --source agency --url https://example.com/story --seen 2025-06-01
  $ verity media index ls`,
    );
  index
    .command('add')
    .description('record where and when files were seen; near-duplicates of them will be traced')
    .argument('<files...>', 'image or video files')
    .requiredOption('--source <name>', 'kind or name of the source, e.g. news, agency, social')
    .requiredOption('--url <url>', 'where the media appeared')
    .requiredOption('--seen <date>', 'when it was first seen (ISO date or timestamp)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity media index add press-photo.jpg --source agency --url https://example.com/story --seen 2025-06-01
  $ verity media index list --json | jq '.data | length'`,
    )
    .action(lazyAction(ctx, () => import('../commands/media-index.js').then((m) => ({ default: m.add }))));
  index
    .command('list')
    .description('list the index, earliest first')
    .addHelpText(
      'after',
      `
Examples:
  $ verity media index list
  $ verity media index ls --json | jq -r '.data[].url'`,
    )
    .action(lazyAction(ctx, () => import('../commands/media-index.js').then((m) => ({ default: m.list }))));
}
