import { Command, Option } from 'commander';
import { lazyAction } from '../action.js';
import type { CliContext } from '../context.js';

/** Local data the embedded engine answers from: claim corpora and company registers. */
export function registerData(program: Command, ctx: CliContext): void {
  const corpus = program
    .command('corpus')
    .description('your own evidence corpora for claim checks (`--sources local`)')
    .addHelpText(
      'after',
      `
Examples:
  $ verity corpus add ./press-releases.jsonl
  $ verity corpus ls
  $ verity verify claim "Q3 revenue rose 12%" --sources local
  $ verity corpus rm ./press-releases.jsonl --yes`,
    );
  corpus
    .command('add')
    .description('import a .jsonl or .csv corpus (fields: text, url, source, published_at, authority)')
    .argument('<files...>', 'corpus files')
    .addHelpText(
      'after',
      `
Each row needs \`text\`; \`url\`, \`source\`, \`published_at\` (ISO date) and \`authority\` (0–1) are optional.
Re-importing the same file adds nothing twice.

Examples:
  $ verity corpus add ./press-releases.jsonl
  $ verity corpus add notes.csv && verity verify claim "Q3 revenue rose 12%" --sources local`,
    )
    .action(lazyAction(ctx, () => import('../commands/corpus-add.js')));

  corpus
    .command('list')
    .alias('ls')
    .description('the files the corpus holds rows from: rows and when imported')
    .addHelpText(
      'after',
      `
Examples:
  $ verity corpus ls
  $ verity corpus ls --json | jq -r '.data[] | "\\(.rows) \\(.file)"'`,
    )
    .action(lazyAction(ctx, () => import('../commands/corpus-ls.js')));

  corpus
    .command('remove')
    .alias('rm')
    .description("delete the rows a file brought in (or --all); asks first on a terminal")
    .argument('[file]', 'a file as `corpus ls` shows it, or as given to `corpus add`')
    .option('--all', 'empty the whole corpus')
    .option('-y, --yes', 'do not ask for confirmation on a terminal (needed in scripts)')
    .addHelpText(
      'after',
      `
A row imported by two files belongs to the first; rows imported before files were recorded go
only with --all.

Examples:
  $ verity corpus rm ./press-releases.jsonl      # asks first on a terminal
  $ verity corpus rm --all --yes`,
    )
    .action(lazyAction(ctx, () => import('../commands/corpus-rm.js')));

  const data = program
    .command('data')
    .description('offline bulk data for business verification')
    .addHelpText(
      'after',
      `
Examples:
  $ verity data import companies-house BasicCompanyDataAsOneFile-2026-11-01.csv --replace
  $ verity data import sec-tickers company_tickers.json`,
    );
  data
    .command('import')
    .description('import a registry bulk file into the embedded store (streaming; safe to re-run)')
    .addArgument(
      new Command().createArgument('<dataset>', 'which format the file is in').choices(['companies-house', 'gleif', 'sec-tickers']),
    )
    .argument('<file>', 'the file to import')
    .addOption(new Option('--replace', "the file is a complete snapshot: drop this dataset's rows it does not contain"))
    .addHelpText(
      'after',
      `
Formats: companies-house = the Free Company Data Product CSV (BasicCompanyDataAsOneFile-*.csv);
gleif = the GLEIF golden copy LEI-CDF CSV; sec-tickers = SEC company_tickers.json.

Examples:
  $ verity data import companies-house BasicCompanyDataAsOneFile-2026-11-01.csv --replace
  $ verity data import gleif 20261101-gleif-goldencopy-lei2-golden-copy.csv
  $ verity data import sec-tickers company_tickers.json`,
    )
    .action(lazyAction(ctx, () => import('../commands/data-import.js')));
}
