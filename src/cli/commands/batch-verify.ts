/**
 * `verity verify batch FILE|-|FOLDER`: many verifications in one process. Everything is read and
 * checked before the first item runs (exit 2 naming the line and field); then items run N at a
 * time, each result is appended to the journal (--out) and printed as one NDJSON line, and the
 * gates apply to every item. docs/cli.md "Batches".
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
import { runBatch } from '../../batch/run.js';
import { BatchTally } from '../../batch/tally.js';
import { EXIT, ExitError } from '../errors.js';
import { recordKeyUse } from '../key-usage.js';
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
        : `${tally.succeeded + tally.failed} of ${tally.total} results were printed; add --out FILE to keep a journal that --resume can continue`;
  return { flags: o, items, todo, concurrency: given ?? defaultConcurrency(new Set(items.map((i) => i.type))), ...(journal ? { journal } : {}), tally };
}

/**
 * Where each finished item goes: the journal first (so a printed line is always journaled),
 * then the tally, stdout (not with --json) and the progress line. `done()` clears the progress
 * line and closes the journal.
 */
export function resultSink(rt: CliRuntime, b: PreparedBatch): { onResult(line: ResultLine): void; done(): void } {
  const progress = rt.out.progress('');
  return {
    onResult(line) {
      b.journal?.append(line);
      b.tally.add(line);
      if (!rt.out.opts.json) rt.out.ndjson(line);
      const c = b.tally.progress();
      progress.update(c.done, c.total, progressLine(c));
    },
    done() {
      progress.done();
      b.journal?.close();
    },
  };
}

/** Prints the summary (one document with --json, closing lines on stderr otherwise) and leaves with the batch's exit code. */
export function finishBatch(rt: CliRuntime, b: PreparedBatch, outcome: { stoppedBy?: VerityError; interrupted: boolean }): void {
  const summary = b.tally.summary({ ...(b.flags.out ? { out: b.flags.out } : {}), ...outcome });
  if (rt.out.opts.json) rt.out.json(summary);
  else reportToPerson(rt, summary, outcome.stoppedBy);
  if (summary.exit_code !== EXIT.ok) throw new ExitError(summary.exit_code);
}

/** Embedded, or remote item by item with --per-item: run the items here. */
export default async function verifyBatch(rt: CliRuntime, cmd: Command): Promise<void> {
  const remote = (await rt.connection()).mode === 'remote';
  const perItem = cmd.opts<{ perItem?: boolean }>().perItem === true;
  // Remote mode: the service runs the items as server batches (src/cli/commands/batches-remote.ts).
  if (remote && !perItem) return (await import('./batches-remote.js')).default(rt, cmd);
  if (cmd.opts<{ wait?: boolean }>().wait === false)
    throw new VerityError('VALIDATION_FAILED', remote ? '--no-wait creates server batches: not with --per-item' : '--no-wait creates server batches: it needs --remote URL', {
      details: [{ field: 'no-wait', issue: 'remote mode with server batches only' }],
    });
  const b = await prepareBatch(rt, cmd);
  // One engine for all items. Analysis stays on this thread: a worker per item would cost its
  // start-up (~0.3 s) for every file, which is what a batch exists to avoid.
  rt.ctx.analysisInWorker = false;
  const { engine, connection, close } = await rt.engine();
  const where = connection.mode === 'remote' ? new URL(connection.baseUrl).host : connection.sandbox ? 'sandbox' : 'live';
  rt.out.debug(`mode: ${connection.mode} (${where}); ${b.items.length} items, ${b.tally.resumed} already done, concurrency ${b.concurrency}`);
  const sink = resultSink(rt, b);
  let outcome;
  try {
    outcome = await runBatch(engine, b.todo, { concurrency: b.concurrency, signal: rt.ctx.interrupted, onResult: sink.onResult });
  } finally {
    sink.done();
    close();
  }
  if (connection.key && b.tally.doneThisRun > 0) recordKeyUse(rt.ctx.paths.dataDir, connection.key.value, rt.ctx.clock.now());
  finishBatch(rt, b, outcome);
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
