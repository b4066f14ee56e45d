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
import { checkItems, type ItemType } from '../../batch/items.js';
import { gateView, openJournal, readJournal, type JournalEntry, type ResultLine } from '../../batch/journal.js';
import { exitCodeOf, gateReasons, parseBatchGates, type BatchSummary, type GateHit } from '../../batch/outcome.js';
import { progressLine } from '../../batch/progress.js';
import { runBatch } from '../../batch/run.js';
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

interface BatchFlags {
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

export default async function verifyBatch(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<BatchFlags>();
  // Every flag and every item is checked before anything runs or is written.
  const gates = parseBatchGates(o);
  const given = concurrencyFlag(o.concurrency);
  if (o.resume && !o.out)
    throw new VerityError('VALIDATION_FAILED', '--resume continues a journal: give it with --out FILE', { details: [{ field: 'resume', issue: 'needs --out' }] });
  const input = cmd.args[0] as string;
  const src = await readBatchSource(input, {
    cwd: rt.ctx.cwd,
    format: o.inputFormat,
    readStdin: (limit) => rt.takeStdin('the batch', limit),
  });
  const items = checkItems(src, { type: o.type });
  const concurrency = given ?? defaultConcurrency(new Set(items.map((i) => i.type)));
  const outPath = o.out === undefined ? undefined : resolve(rt.ctx.cwd, o.out);
  const earlier: Map<string, JournalEntry> = o.resume && outPath ? await readJournal(outPath) : new Map();
  const journal = outPath ? openJournal(outPath, Boolean(o.resume)) : undefined;

  const total = items.length;
  const todo = items.filter((i) => earlier.get(i.custom_id)?.status !== 'succeeded');
  const resumed = total - todo.length;
  const gateHits: GateHit[] = [];
  const gatesSet = gates.failOn.size > 0 || gates.minTrust !== undefined;
  const byId = new Map(items.map((i) => [i.custom_id, i]));
  for (const [id, e] of earlier) {
    const item = byId.get(id);
    if (!item || e.status !== 'succeeded' || !e.gateView) continue;
    const reasons = gateReasons(e.gateView, gates);
    if (reasons.length) gateHits.push({ custom_id: id, line: item.line, reasons });
  }

  // One engine for all items. Analysis stays on this thread: a worker per item would cost its
  // start-up (~0.3 s) for every file, which is what a batch exists to avoid.
  rt.ctx.analysisInWorker = false;
  const { engine, connection, close } = await rt.engine();
  const where = connection.mode === 'remote' ? new URL(connection.baseUrl).host : connection.sandbox ? 'sandbox' : 'live';
  rt.out.debug(`mode: ${connection.mode} (${where}); ${total} items, ${resumed} already done, concurrency ${concurrency}`);
  if (resumed) rt.out.info(`resuming: ${resumed} of ${total} items already succeeded in ${o.out}`);

  let succeeded = resumed;
  let failed = 0;
  let doneThisRun = 0;
  const failures: BatchSummary['failures'] = [];
  const started = performance.now();
  const progress = rt.out.progress('');
  const count = (): Parameters<typeof progressLine>[0] => ({
    done: succeeded + failed,
    total,
    succeeded,
    failed,
    doneThisRun,
    elapsedMs: performance.now() - started,
  });
  if (rt.ctx.keptOnInterrupt)
    rt.ctx.keptOnInterrupt.note = () =>
      journal
        ? `${succeeded} of ${total} items succeeded and are in ${o.out}; run the same command with --resume to finish`
        : `${succeeded + failed} of ${total} results were printed; add --out FILE to keep a journal that --resume can continue`;

  const onResult = (line: ResultLine): void => {
    journal?.append(line);
    doneThisRun++;
    if (line.status === 'succeeded') {
      succeeded++;
      const reasons = gateReasons(gateView(line.result!), gates);
      if (reasons.length) gateHits.push({ custom_id: line.custom_id, line: line.line, reasons });
    } else {
      failed++;
      failures.push({ custom_id: line.custom_id, line: line.line, error: line.error! });
    }
    if (!rt.out.opts.json) rt.out.ndjson(line);
    const c = count();
    progress.update(c.done, total, progressLine(c));
  };

  let outcome;
  try {
    outcome = await runBatch(engine, todo, { concurrency, signal: rt.ctx.interrupted, onResult });
  } finally {
    progress.done();
    journal?.close();
    close();
  }
  if (connection.key && doneThisRun > 0) recordKeyUse(rt.ctx.paths.dataDir, connection.key.value, rt.ctx.clock.now());

  const elapsed = performance.now() - started;
  gateHits.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  failures.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  const summary: BatchSummary = {
    total,
    succeeded,
    failed,
    resumed,
    not_run: total - succeeded - failed,
    failures,
    gate: { set: gatesSet, passed: gateHits.length === 0, failed_items: gateHits },
    ...(o.out ? { out: o.out } : {}),
    elapsed_ms: Math.round(elapsed),
    items_per_second: elapsed > 0 ? Math.round((doneThisRun / (elapsed / 1000)) * 10) / 10 : 0,
    exit_code: 0,
  };
  summary.exit_code = outcome.interrupted ? EXIT.interrupted : exitCodeOf(summary, outcome.stoppedBy);
  if (rt.out.opts.json) rt.out.json(summary);
  else reportToPerson(rt, summary, outcome.stoppedBy);
  if (outcome.interrupted) throw new ExitError(EXIT.interrupted);
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
