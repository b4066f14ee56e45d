/**
 * Preparing, printing and closing a batch, shared by the local run (batch-verify.ts) and the
 * server-batch run (batches-remote.ts).
 *
 * `verity verify batch FILE|-|FOLDER`: many verifications in one process. Everything is read and
 * checked before the first item runs (exit 2 naming the line and field); then items run N at a
 * time, each result is appended to the journal (--out) and printed as one NDJSON line (for
 * scripts; a person at a terminal gets a summary table instead), and the gates apply to every
 * item. docs/cli.md "Batches".
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { readBatchSource, type InputFormat } from '../../batch/input.js';
import { checkItems, type BatchItem, type ItemType } from '../../batch/items.js';
import { openJournal, readJournal, type Journal, type JournalEntry, type ResultLine } from '../../batch/journal.js';
import { parseBatchGates, type BatchSummary } from '../../batch/outcome.js';
import { progressLine } from '../../batch/progress.js';
import { BatchTally } from '../../batch/tally.js';
import { renderBatchSummary } from '../../output/human/batch.js';
import { EXIT, ExitError } from '../errors.js';
import type { CliRuntime } from '../runtime.js';

/**
 * Default items in flight. Claims and companies mostly wait on sources, so 8 overlap well; image
 * and document analysis is CPU work, where more items than cores only fight for the cores and
 * memory (measured on 2 cores: 3 MP photos took 8.3 s at 2, 13.4 s at 4).
 */
export function defaultConcurrency(types: ReadonlySet<ItemType>): number {
  return types.has('media') || types.has('document') ? Math.max(2, availableParallelism()) : 8;
}
export const MAX_CONCURRENCY = 64;

export interface BatchFlags {
  type?: ItemType;
  inputFormat?: InputFormat;
  concurrency?: string;
  out?: string;
  resume?: boolean;
  failOn?: string;
  minTrust?: string;
}

function concurrencyFlag(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY)
    throw new VerityError('VALIDATION_FAILED', `--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`, {
      details: [{ field: 'concurrency', issue: `1 to ${MAX_CONCURRENCY}` }],
    });
  return n;
}

/** What a batch command has once its flags and input are checked: the part embedded and remote mode share. */
export interface PreparedBatch {
  flags: BatchFlags;
  items: BatchItem[];
  /** The items still to run (all of them, or those --resume did not find succeeded). */
  todo: BatchItem[];
  concurrency: number;
  journal?: Journal;
  tally: BatchTally;
}

/**
 * Checks the flags and every item, reads the journal for --resume and opens it: all before any
 * item runs, so invalid input (exit 2) writes nothing.
 */
export async function prepareBatch(rt: CliRuntime, cmd: Command): Promise<PreparedBatch> {
  const o = cmd.opts<BatchFlags>();
  const gates = parseBatchGates(o);
  const given = concurrencyFlag(o.concurrency);
  if (o.resume && !o.out)
    throw new VerityError('VALIDATION_FAILED', '--resume continues a journal: give it with --out FILE', { details: [{ field: 'resume', issue: 'needs --out' }] });
  const src = await readBatchSource(cmd.args[0] as string, {
    cwd: rt.ctx.cwd,
    format: o.inputFormat,
    readStdin: (limit) => rt.takeStdin('the batch', limit),
  });
  const items = checkItems(src, { type: o.type, filePaths: true });
  const outPath = o.out === undefined ? undefined : resolve(rt.ctx.cwd, o.out);
  // Opened (and locked: one run per journal) before it is read, so a run still writing it is refused first.
  const journal = outPath ? openJournal(outPath, Boolean(o.resume)) : undefined;
  let earlier = new Map<string, JournalEntry>();
  try {
    if (o.resume && outPath) earlier = await readJournal(outPath);
  } catch (err) {
    journal?.close();
    throw err;
  }
  const tally = new BatchTally(items.length, gates);
  const todo = tally.resume(items, earlier);
  if (tally.resumed) rt.out.info(`resuming: ${tally.resumed} of ${items.length} items already succeeded in ${o.out}`);
  if (tally.changed.length) {
    const c = tally.changed;
    rt.out.warn(
      `${c.length} item${c.length === 1 ? '' : 's'} in ${o.out} had a different input under the same custom_id (${c
        .slice(0, 3)
        .map((i) => `line ${i.line} ${i.custom_id}`)
        .join(', ')}${c.length > 3 ? ', …' : ''}); they run again`,
    );
  }
  if (rt.ctx.keptOnInterrupt)
    rt.ctx.keptOnInterrupt.note = () =>
      journal
        ? `${tally.succeeded} of ${tally.total} items succeeded and are in ${o.out}; run the same command with --resume to finish`
        : forPerson(rt)
          ? `${tally.succeeded} of ${tally.total} items succeeded; add --out FILE to keep a journal that --resume can continue`
          : `${tally.succeeded + tally.failed} of ${tally.total} results were printed; add --out FILE to keep a journal that --resume can continue`;
  return { flags: o, items, todo, concurrency: given ?? defaultConcurrency(new Set(items.map((i) => i.type))), ...(journal ? { journal } : {}), tally };
}

/**
 * Output by audience (as gh and the Stripe CLI do): a person at a terminal — stdout a TTY, no
 * --json or --ndjson — gets the progress line on stderr and a summary table at the end, never the
 * per-item JSON; pipes and --ndjson get one NDJSON line per item (and --out always journals them).
 */
export const forPerson = (rt: CliRuntime): boolean => !rt.out.machine && Boolean(rt.ctx.stdout.isTTY);

/**
 * Where each finished item goes: the journal first (so a printed line is always journaled),
 * then the tally, stdout (NDJSON, unless --json or a person at a terminal) and the progress line.
 * `done()` clears the progress line and closes the journal.
 */
export function resultSink(rt: CliRuntime, b: PreparedBatch): { onResult(line: ResultLine): void; done(): void } {
  const progress = rt.out.progress('');
  const lines = !rt.out.opts.json && !forPerson(rt);
  return {
    onResult(line) {
      b.journal?.append(line);
      b.tally.add(line);
      if (lines) rt.out.ndjson(line);
      const c = b.tally.progress();
      progress.update(c.done, c.total, progressLine(c));
    },
    done() {
      progress.done();
      b.journal?.close();
    },
  };
}

/**
 * Prints the summary — one document with --json, the summary table on a terminal, closing lines
 * on stderr after NDJSON — and leaves with the batch's exit code.
 */
export function finishBatch(rt: CliRuntime, b: PreparedBatch, outcome: { stoppedBy?: VerityError; interrupted: boolean }): void {
  const summary = b.tally.summary({ ...(b.flags.out ? { out: b.flags.out } : {}), ...outcome });
  if (rt.out.opts.json) rt.out.json(summary);
  else if (forPerson(rt) && !outcome.interrupted) {
    rt.out.print(renderBatchSummary({ summary, byType: b.tally.byType, ...(b.flags.out ? { out: b.flags.out } : {}) }, rt.out));
    if (outcome.stoppedBy) rt.out.info(`${rt.out.errStyle.red('stopped:')} ${outcome.stoppedBy.message} (${outcome.stoppedBy.code}); the items after it did not run`);
  } else reportToPerson(rt, summary, outcome.stoppedBy);
  if (summary.exit_code !== EXIT.ok) throw new ExitError(summary.exit_code);
}

/** The closing lines on stderr: counts, the first failures and gate hits, what to do next. */
function reportToPerson(rt: CliRuntime, s: BatchSummary, stoppedBy: VerityError | undefined): void {
  const st = rt.out.errStyle;
  const secs = (s.elapsed_ms / 1000).toFixed(1);
  const parts = [`${s.succeeded} succeeded`, `${s.failed} failed`];
  if (s.resumed) parts.push(`${s.resumed} from the earlier run`);
  if (s.not_run) parts.push(`${s.not_run} not run`);
  rt.out.info(`${s.failed || s.not_run ? st.yellow('batch:') : st.green('✓ batch:')} ${s.total} items: ${parts.join(', ')} (${secs} s)`);
  const SHOW = 5;
  for (const f of s.failures.slice(0, SHOW)) rt.out.info(`  ${st.red('✗')} line ${f.line} ${f.custom_id}: ${f.error.message} (${f.error.code})`);
  if (s.failures.length > SHOW) rt.out.info(`  … and ${s.failures.length - SHOW} more failures (status "failed" lines${s.out ? ` in ${s.out}` : ''})`);
  if (stoppedBy) rt.out.info(`${st.red('stopped:')} ${stoppedBy.message} (${stoppedBy.code}); the items after it did not run`);
  if (!s.gate.passed) {
    rt.out.info(`${st.red('gate failed:')} ${s.gate.failed_items.length} item${s.gate.failed_items.length === 1 ? '' : 's'}`);
    for (const g of s.gate.failed_items.slice(0, SHOW)) rt.out.info(`  line ${g.line} ${g.custom_id}: ${g.reasons.join('; ')}`);
    if (s.gate.failed_items.length > SHOW) rt.out.info(`  … and ${s.gate.failed_items.length - SHOW} more`);
  }
  if ((s.failed || s.not_run) && s.out) rt.out.info(`${st.dim('hint:')} run the same command with --resume to try the failed and unrun items again`);
}
