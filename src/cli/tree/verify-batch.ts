/** `verity verify batch`: flags and help (the code is src/cli/commands/batch-verify.ts). */
import { Command, Option } from 'commander';
import { INPUT_FORMATS, ITEM_TYPES } from '../../batch/kinds.js';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

export function registerVerifyBatch(verify: Command, ctx: CliContext): void {
  verify
    .command('batch')
    .description('verify many claims, companies, images or documents in one process: JSONL, CSV or a folder')
    .argument('<input>', 'a JSONL or CSV file, a folder of files (with --type media|document), or - for stdin')
    .addOption(new Option('--type <type>', 'the type of items that carry no "type" field (required for a folder)').choices([...ITEM_TYPES]))
    .addOption(new Option('--input-format <format>', 'read the input as this format (default: from the extension or the first character)').choices([...INPUT_FORMATS]))
    .option('--concurrency <n>', 'items in flight at once, 1 to 64 (default: 8 for claims and companies, the number of cores for files)')
    .option('--out <file>', 'append each result to this NDJSON journal as it finishes')
    .option('--resume', 'skip the items that already succeeded in the --out journal')
    .option('--fail-on <values>', 'exit 3 when any item\'s verdict, status, authenticity or flags is any of these (comma-separated)')
    .option('--min-trust <x>', 'exit 3 when any item\'s trust_score is below x (0 to 1)')
    .option('--no-wait', 'remote mode: create the server batch(es), print their ids and leave (see `verity batches`)')
    .option('--per-item', 'remote mode: send one request per item instead of server batches')
    .addHelpText(
      'after',
      `
Each line of a JSONL file is one request, with the fields of the single command's request
(claim, company_name, url, file: a path, source/content, …) plus an optional "custom_id"
(default: line-N; a folder's files use their relative path) and "type". A CSV file has a header
row naming the same fields. Everything is checked before the first item runs: a bad line stops
the batch with exit 2, naming the line and field. This is also the way to check many claims at
once: \`verify claim -\` reads all of stdin as one claim.

Output by audience: on a terminal, a progress line on stderr and a summary table at the end
(counts by kind, failures, gate hits, where the results are). Piped, or with --ndjson: one JSON
line per item {custom_id, index, line, type, status, result | error}, in the order they finish;
--out FILE always keeps those lines; --json prints one summary document instead. Ctrl-C stops
at once (exit 130) with the journal complete up to there.

With --remote the service runs the items as server batches (one per type, up to 1,000 items
each) and the results are followed as they finish; a re-run within 24 h follows the same server
batch, so nothing runs or is charged twice. --per-item sends single requests instead.

Exit codes: 0 all succeeded · 1 some items failed · 2 invalid input (none run)
            3 a gate failed · 5 quota or rate limit · 6 unavailable
            130 interrupted

Examples:
  $ verity verify batch claims.jsonl --type claim --test --out results.ndjson
  $ verity verify batch suppliers.csv --type business --fail-on dissolved,liquidation
  $ verity verify batch ./photos --type media --json | jq .failed
  $ verity verify batch claims.jsonl --type claim --out results.ndjson --resume
  $ verity --remote https://verity.example.com verify batch claims.jsonl --type claim --no-wait
  $ jq -c '{claim: .text, custom_id: .id}' rows.json | verity verify batch - --type claim --test`,
    )
    .action(lazyAction(ctx, () => import('../commands/batch-verify.js')));
}
