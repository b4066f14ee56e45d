import { Command, Option } from 'commander';
import { BUSINESS_SOURCES, CLAIM_SOURCES_EXT, DOCUMENT_SOURCES } from '../../api/enums.js';
import { lazyAction } from '../action.js';
import { FAIL_ON_VALUES, type GateKind } from '../../api/gates.js';
import type { CliContext } from '../context.js';
import { registerVerifyBatch } from './verify-batch.js';

const GATE_WORD: Record<GateKind, string> = { claim: 'verdict', business: 'status', media: 'authenticity', document: 'flags' };

function gates(c: Command): Command {
  const kind = c.name() as GateKind;
  return c
    .option('--fail-on <values>', `exit 3 when the ${GATE_WORD[kind]} is any of (comma-separated): ${FAIL_ON_VALUES[kind].join(', ')}`)
    // For a claim the score is the chance the claim is true: a confident `false` fails the gate.
    .option('--min-trust <x>', kind === 'claim' ? 'exit 3 when trust_score, the chance the claim is true, is below x (0 to 1)' : 'exit 3 when trust_score is below x (0 to 1)')
    .option('--report <file>', 'also write a self-contained HTML report to FILE (offline, printable)');
}

export function registerVerify(program: Command, ctx: CliContext): void {
  const verify = program
    .command('verify')
    .description('verify a claim, a company, an image/video or a document')
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify claim "The Eiffel Tower is in Paris" --test
  $ verity verify business "Acme Widgets Ltd" --jurisdiction gb --test
  $ verity verify media photo.jpg --json
  $ verity verify batch claims.jsonl --type claim --out results.ndjson`,
    );

  gates(
    verify
      .command('claim')
      .description('check a statement against encyclopedic, fact-check, scholarly, news and web sources')
      .argument('[text]', 'the claim (up to 2,000 characters), or - to read it from stdin')
      .option('--claim <text>', 'the claim, as a flag instead of the argument')
      .option('--sources <list>', `comma-separated: ${CLAIM_SOURCES_EXT.join(', ')} (default: all)`)
      .option('--language <code>', 'ISO 639-1 language of the claim and sources', 'en')
      .option('--max-evidence <n>', 'evidence items to return, 1 to 20', '5'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify claim "The Eiffel Tower is in Paris" --test
  $ echo "Water boils at 100 °C at sea level" | verity verify claim - --json | jq .verdict
  $ verity verify claim "Vaccines cause autism" --sources google_fact_check,wikipedia --fail-on true
  $ verity verify claim "The Eiffel Tower is in Paris" --test --report claim.html

stdin is read as ONE claim, however many lines it has; to check one claim per line, use
\`verity verify batch\` (JSONL or CSV, one verification per line, in one process).`,
    )
    .action(lazyAction(ctx, () => import('../commands/verify-claim.js')));

  gates(
    verify
      .command('business')
      .description('check a company against company registries')
      .argument('[company-name]', 'full legal name')
      .option('--company-name <name>', 'the name, as a flag instead of the argument')
      .option('--jurisdiction <code>', 'ISO 3166-2 style, lowercase: gb, us_de, …')
      .option('--registration-number <number>', 'company registration number, if known')
      .option('--officers', 'include directors/officers')
      .option('--filings', 'include recent regulatory filings')
      .option('--sources <list>', `comma-separated: ${BUSINESS_SOURCES.join(', ')} (default: all available)`),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify business "Acme Widgets Ltd" --jurisdiction gb --officers
  $ verity verify business "Apple Inc." --jurisdiction us_ca --filings --json
  $ verity verify business "Globex Corp" --fail-on dissolved,liquidation --test
  $ verity verify business "Acme Widgets Ltd" --jurisdiction gb --test --report acme.html`,
    )
    .action(lazyAction(ctx, () => import('../commands/verify-business.js')));

  gates(
    verify
      .command('media')
      .description('check an image or video: C2PA, metadata, forensics, deepfake signals, provenance')
      .argument('[input]', 'a file path, an http(s) URL, or - for stdin')
      .option('--url <url>', 'URL of the image or video')
      .option('--file <path>', 'path of the image or video (sent base64-encoded)')
      .option('--check-deepfakes', 'run deepfake detection (default)')
      .option('--no-check-deepfakes', 'skip deepfake detection')
      .option('--check-provenance', 'trace provenance (default)')
      .option('--no-check-provenance', 'skip provenance tracing')
      .option('--check-watermarks', 'extract and verify C2PA watermarks (default)')
      .option('--no-check-watermarks', 'skip C2PA watermarks')
      .option('--heatmap <file>', 'also write the forensic overlay alone as a PNG (heat map and marked regions)'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify media photo.jpg
  $ verity verify media https://example.com/image.png --json | jq .authenticity
  $ cat frame.jpg | verity verify media - --fail-on manipulated
  $ verity verify media photo.jpg --report photo.html --heatmap photo-heatmap.png`,
    )
    .action(lazyAction(ctx, () => import('../commands/verify-media.js')));

  gates(
    verify
      .command('document')
      .description('check a PDF, DOCX, image or text: AI generation, manipulation, metadata, signatures')
      .argument('[input]', 'a file path, an http(s) URL, or - for stdin (text is read as raw)')
      .addOption(new Option('--source <kind>', 'how to read the input').choices([...DOCUMENT_SOURCES]))
      .option('--content <text>', 'the content itself (raw text, a URL, or base64 with --source upload)')
      .option('--mime-type <type>', 'MIME type hint, e.g. application/pdf')
      .option('--check-deepfakes', 'run deepfake/entropy analysis (default)')
      .option('--no-check-deepfakes', 'skip deepfake/entropy analysis')
      .option('--check-watermarks', 'detect C2PA and other watermarks (default)')
      .option('--no-check-watermarks', 'skip watermark detection'),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ verity verify document contract.pdf
  $ verity verify document report.docx --fail-on signature_forgery,inconsistent_timestamps
  $ verity verify document contract.pdf --report contract.html
  $ pbpaste | verity verify document - --json | jq .ai_generated_probability`,
    )
    .action(lazyAction(ctx, () => import('../commands/verify-document.js')));

  registerVerifyBatch(verify, ctx);
}
