/**
 * `verity verify batch FILE|-|FOLDER`: many verifications in one process. Everything is read and
 * checked before the first item runs (exit 2 naming the line and field); then items run N at a
 * time, each result is appended to the journal (--out) and printed as one NDJSON line (for
 * scripts; a person at a terminal gets a summary table instead), and the gates apply to every
 * item. docs/cli.md "Batches".
 */
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { runBatch } from '../../batch/run.js';
import { recordKeyUse } from '../key-usage.js';
import type { CliRuntime } from '../runtime.js';
import { finishBatch, MAX_CONCURRENCY, prepareBatch, resultSink } from './batch-prepare.js';

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
  // One engine for all items, not a worker per item (its start-up, ~0.3 s, for every file is what
  // a batch exists to avoid): files go to a pool of long-lived workers instead (below).
  rt.ctx.analysisInWorker = false;
  const { engine: local, connection, close } = await rt.engine();
  const where = connection.mode === 'remote' ? new URL(connection.baseUrl).host : connection.sandbox ? 'sandbox' : 'live';
  // Live analysis of files is CPU work: one worker thread per core (cli/batch-pool.ts), each with
  // its own engine; this thread reads the files as items start and journals the results.
  const files = b.todo.filter((i) => i.type === 'media' || i.type === 'document').length;
  const given = cmd.opts<{ concurrency?: string }>().concurrency !== undefined;
  const poolSize = connection.mode === 'embedded' && !connection.sandbox ? Math.min(availableParallelism(), b.concurrency, files) : 0;
  // Twice the workers in flight (unless --concurrency says otherwise): each worker finds its next
  // file read and waiting when it finishes one; files held at once stay bounded by this number.
  const concurrency = poolSize > 0 && !given ? Math.min(MAX_CONCURRENCY, Math.max(b.concurrency, 2 * poolSize)) : b.concurrency;
  const pool = poolSize > 0 ? await (await import('../batch-pool.js')).batchPool(rt, local, poolSize) : undefined;
  const engine = pool?.engine ?? local;
  rt.out.debug(`mode: ${connection.mode} (${where}); ${b.items.length} items, ${b.tally.resumed} already done, concurrency ${concurrency}${pool ? `, ${poolSize} analysis workers` : ''}`);
  const sink = resultSink(rt, b);
  let outcome;
  try {
    outcome = await runBatch(engine, b.todo, { concurrency, signal: rt.ctx.interrupted, onResult: sink.onResult, ...(pool ? { fileInput: 'path' as const } : {}) });
  } finally {
    sink.done();
    await pool?.close();
    close();
  }
  if (connection.key && b.tally.doneThisRun > 0) recordKeyUse(rt.ctx.paths.dataDir, connection.key.value, rt.ctx.clock.now());
  finishBatch(rt, b, outcome);
}
