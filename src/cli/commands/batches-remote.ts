/**
 * `verity verify batch … --remote URL`: the items become server batches (POST /v1/batches) that
 * the service runs on its own, followed here as they finish (issue 15). Input checks, journal,
 * --resume, progress, gates and exit codes are the embedded mode's (src/cli/commands/batch-verify.ts).
 *
 * Items are grouped by type (a server batch has one type) and cut into batches of at most
 * CHUNK_ITEMS items and CHUNK_BYTES of NDJSON, run one after another. Each batch is uploaded as
 * NDJSON made while it is sent (issue 31): a file is read when its line goes out, so the command
 * holds one file at a time whatever the folder's size, and the service spools the files to disk
 * as they arrive (src/server/batches/stream.ts). Each batch's Idempotency-Key is derived from its items' keys — from the whole input,
 * not only what --resume leaves — so re-running the command within 24 h (after a crash, Ctrl-C or
 * kill -9) follows the SAME server batch instead of creating and charging a second one; result
 * lines for items the journal already has as succeeded are skipped. `--no-wait` creates the
 * batches, prints their ids and leaves.
 */
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import type { Batch, BatchResultLine } from '../../api/batches.js';
import { VerityError } from '../../api/errors.js';
import { base64Pieces, materializeBytes, type BatchItem } from '../../batch/items.js';
import type { ResultLine } from '../../batch/journal.js';
import type { BatchClient } from '../../client/batches.js';
import type { CliRuntime } from '../runtime.js';
import { finishBatch, prepareBatch, resultSink } from './batch-prepare.js';
import { batchClient } from './batches-common.js';

/** The smallest plan's item limit (src/server/batches/limits.ts): every account can take such a batch. */
export const CHUNK_ITEMS = 1_000;
/**
 * NDJSON per server batch: the spool a batch takes on the service's disk (its body may be up to
 * 2 GB, src/server/batches/stream.ts), and how much one upload repeats if it must be retried.
 */
export const CHUNK_BYTES = 512 * 1024 * 1024;

interface Chunk {
  type: BatchItem['type'];
  items: BatchItem[];
  keys: string[];
}

/** One item's NDJSON line as the service takes it: its request with the file as base64, and its custom_id. */
const lineOf = (request: Record<string, unknown>, customId: string): string => `${JSON.stringify({ ...request, custom_id: customId })}\n`;

/**
 * The items in server batches: by type in input order, cut by count and size. Each file is read
 * here for its key and size only (one at a time); its bytes are read again when its line is sent.
 */
export async function* chunksOf(items: readonly BatchItem[]): AsyncGenerator<Chunk> {
  const byType = new Map<BatchItem['type'], BatchItem[]>();
  for (const item of items) {
    const list = byType.get(item.type);
    if (list) list.push(item);
    else byType.set(item.type, [item]);
  }
  for (const [type, list] of byType) {
    let chunk: Chunk = { type, items: [], keys: [] };
    let bytes = 0;
    for (const item of list) {
      const m = await materializeBytes(item);
      // The line's size: the request's JSON, plus the file as base64 where it is bytes here.
      const size = Buffer.byteLength(lineOf(m.request, item.custom_id)) + (m.bytes ? Math.ceil(m.bytes.length / 3) * 4 + item.file!.into.length + 4 : 0);
      if (chunk.items.length && (chunk.items.length >= CHUNK_ITEMS || bytes + size > CHUNK_BYTES)) {
        yield chunk;
        chunk = { type, items: [], keys: [] };
        bytes = 0;
      }
      chunk.items.push(item);
      chunk.keys.push(`${item.custom_id}\n${m.key}`);
      bytes += size;
    }
    if (chunk.items.length) yield chunk;
  }
}

/**
 * The chunk's lines, each file read as its line is sent, its base64 written piece by piece (the
 * same JSON as lineOf(), with the file field last): no string the size of the file is made.
 */
async function* linesOf(c: Chunk): AsyncGenerator<string> {
  for (const item of c.items) {
    const m = await materializeBytes(item);
    if (!m.bytes) {
      yield lineOf(m.request, item.custom_id);
      continue;
    }
    yield `${JSON.stringify({ ...m.request, custom_id: item.custom_id }).slice(0, -1)},${JSON.stringify(item.file!.into)}:"`;
    yield* base64Pieces(m.bytes);
    yield '"}\n';
  }
}

/** The same items always give the same key: a re-run finds the batch the first run created. */
export const chunkKey = (c: Pick<Chunk, 'type' | 'keys'>): string =>
  `vbatch-${c.type}-${createHash('sha256').update(`${c.type}\n${c.keys.join('\n')}`).digest('hex')}`;

function toResultLine(line: BatchResultLine, item: BatchItem, key: string | undefined): ResultLine {
  const base = { custom_id: item.custom_id, index: item.index, line: item.line, type: item.type, ...(key ? { idempotency_key: key } : {}) };
  if (line.status === 'succeeded') return { ...base, status: 'succeeded', result: line.result ?? {} };
  if (line.status === 'cancelled') return { ...base, status: 'failed', error: { code: 'UNAVAILABLE', message: 'The server batch was cancelled before this item ran' } };
  return { ...base, status: 'failed', error: line.error ?? { code: 'INTERNAL_ERROR', message: 'no error given' } };
}

async function createChunk(client: BatchClient, c: Chunk): Promise<Batch> {
  return client.createStreamed({ type: c.type, metadata: { created_by: 'verity verify batch' } }, () => linesOf(c), chunkKey(c));
}

export default async function verifyBatchRemote(rt: CliRuntime, cmd: Command): Promise<void> {
  const noWait = cmd.opts<{ wait?: boolean }>().wait === false;
  if (noWait && (cmd.opts<{ out?: string }>().out || cmd.opts<{ resume?: boolean }>().resume))
    throw new VerityError('VALIDATION_FAILED', '--no-wait leaves before any result: --out/--resume do not apply (fetch results with `verity batches results`)', {
      details: [{ field: 'no-wait', issue: 'not with --out or --resume' }],
    });
  const b = await prepareBatch(rt, cmd);
  const client = await batchClient(rt);
  const todo = new Set(b.todo.map((i) => i.custom_id));

  if (noWait) {
    const created: Batch[] = [];
    for await (const c of chunksOf(b.items)) created.push(await createChunk(client, c));
    if (rt.out.opts.json) rt.out.json({ data: created });
    else for (const x of created) rt.out.print(x.id);
    return;
  }

  const sink = resultSink(rt, b);
  let stoppedBy: VerityError | undefined;
  try {
    for await (const c of chunksOf(b.items)) {
      // Nothing left of this chunk (all succeeded in the journal): no request at all.
      if (!c.items.some((i) => todo.has(i.custom_id))) continue;
      let batch: Batch;
      try {
        batch = await createChunk(client, c);
      } catch (err) {
        // Quota, plan, key, a full batch limit: the later chunks would meet it too.
        if (err instanceof VerityError && !rt.ctx.interrupted.aborted) {
          stoppedBy = err;
          break;
        }
        throw err;
      }
      rt.out.debug(`server batch ${batch.id}: ${c.items.length} ${c.type} items (${batch.status})`);
      const byId = new Map(c.items.map((i, n) => [i.custom_id, { item: i, key: c.keys[n]!.split('\n')[1] }]));
      await client.follow(batch.id, (line) => {
        const found = byId.get(line.custom_id);
        // Lines of items the journal has as succeeded were counted by --resume already.
        if (!found || !todo.has(line.custom_id)) return;
        todo.delete(line.custom_id);
        sink.onResult(toResultLine(line, found.item, found.key));
      });
    }
  } catch (err) {
    if (rt.ctx.interrupted.aborted) {
      sink.done();
      finishBatch(rt, b, { interrupted: true });
      return;
    }
    sink.done();
    throw err;
  }
  sink.done();
  finishBatch(rt, b, { ...(stoppedBy ? { stoppedBy } : {}), interrupted: rt.ctx.interrupted.aborted });
}
