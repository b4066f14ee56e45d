/**
 * Runs checked batch items through an Engine, N at a time, in one process: the engine (and its
 * heavy modules: sharp, pdf.js, the models) is loaded once for all items. Each finished item is
 * handed to `onResult` at once (the caller journals and prints it). Not imported by engine/.
 */
import { toVerityError, type VerityError } from '../api/errors.js';
import type { Engine, VerifyOptions } from '../engine/types.js';
import { materialize, materializeBytes, materializeFile, type BatchItem } from './items.js';
import type { ResultLine } from './journal.js';

export interface RunOptions {
  concurrency: number;
  /** Ctrl-C: no new item starts, running ones are aborted and not reported. */
  signal: AbortSignal;
  onResult(line: ResultLine): void;
  /**
   * Files that go as base64 are handed to the engine as bytes (`bytes`: VerifyOptions.inputBytes)
   * or as the file itself (`path`: VerifyOptions.inputFile, read where the analysis runs) instead:
   * for an engine that sends them to the analysis pool (the CLI's batch pool), where a base64
   * string would be copied and decoded again, and bytes held here until the job is sent.
   */
  fileInput?: 'bytes' | 'path';
}

export interface RunOutcome {
  /** An error that made running further items pointless (quota, authentication): items after it did not start. */
  stoppedBy?: VerityError;
  interrupted: boolean;
  /** Items that never started (stopped or interrupted). */
  notStarted: number;
}

/** Errors that every later item would meet too: stop starting new ones. */
const STOPPING = new Set(['QUOTA_EXCEEDED', 'UNAUTHORIZED', 'FORBIDDEN']);

export function callEngine(engine: Engine, item: BatchItem, request: Record<string, unknown>, opts: VerifyOptions): Promise<object> {
  switch (item.type) {
    case 'claim':
      return engine.verifyClaim(request as never, opts);
    case 'business':
      return engine.verifyBusiness(request as never, opts);
    case 'media':
      return engine.verifyMedia(request as never, opts);
    case 'document':
      return engine.verifyDocument(request as never, opts);
  }
}

export async function runBatch(engine: Engine, items: readonly BatchItem[], o: RunOptions): Promise<RunOutcome> {
  let next = 0;
  let stoppedBy: VerityError | undefined;
  const base = (item: BatchItem): Pick<ResultLine, 'custom_id' | 'index' | 'line' | 'type'> => ({
    custom_id: item.custom_id,
    index: item.index,
    line: item.line,
    type: item.type,
  });
  const worker = async (): Promise<void> => {
    while (!o.signal.aborted && !stoppedBy && next < items.length) {
      const item = items[next++]!;
      let key: string | undefined;
      try {
        // Read when the item starts, not before: at most `concurrency` files are held at once.
        const m: { request: Record<string, unknown>; key: string; bytes?: Buffer; file?: string } =
          o.fileInput === 'path' ? await materializeFile(item) : o.fileInput === 'bytes' ? await materializeBytes(item) : await materialize(item);
        key = m.key;
        const opts: VerifyOptions = { signal: o.signal, idempotencyKey: key, ...(m.bytes ? { inputBytes: m.bytes } : m.file !== undefined ? { inputFile: m.file } : {}) };
        const result = (await callEngine(engine, item, m.request, opts)) as Record<string, unknown>;
        o.onResult({ ...base(item), status: 'succeeded', result, idempotency_key: key });
      } catch (err) {
        // Interrupted: the item did not finish, so it is not reported; --resume runs it again.
        if (o.signal.aborted) return;
        const e = toVerityError(err);
        if (STOPPING.has(e.code)) stoppedBy ??= e;
        o.onResult({ ...base(item), status: 'failed', error: e.toBody().error, ...(key ? { idempotency_key: key } : {}) });
      }
    }
  };
  const n = Math.max(1, Math.min(o.concurrency, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  return { ...(stoppedBy ? { stoppedBy } : {}), interrupted: o.signal.aborted, notStarted: items.length - Math.min(next, items.length) };
}
