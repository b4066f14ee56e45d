/**
 * `verity verify batch FILE|-|FOLDER`: many verifications in one process. Everything is read and
 * checked before the first item runs (exit 2 naming the line and field); then items run N at a
 * time, each result is appended to the journal (--out) and printed as one NDJSON line (for
 * scripts; a person at a terminal gets a summary table instead), and the gates apply to every
 * item. docs/cli.md "Batches".
 */
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { runBatch } from '../../batch/run.js';
import { recordKeyUse } from '../key-usage.js';
import type { CliRuntime } from '../runtime.js';
import { finishBatch, prepareBatch, resultSink } from './batch-prepare.js';

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
