/**
 * The /v1/batches client (issue 15): create, get, list, cancel, and the results stream, with a
 * follower that resumes a broken stream from the last line it received (`after` = its `seq`), so a
 * server restart or a dropped connection costs no line and repeats none.
 */
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { BATCH_TERMINAL, type Batch, type BatchList, type BatchResultLine } from '../api/batches.js';
import { ErrorBody, VerityError } from '../api/errors.js';
import { callRemote, endpoint, type RemoteEngineOptions, type StreamedBody } from './remote-engine.js';

export interface BatchCreateBody {
  type: 'claim' | 'business' | 'media' | 'document';
  items: Array<Record<string, unknown> & { custom_id: string }>;
  metadata?: Record<string, string>;
}

export interface ResultsQuery {
  after?: number;
  status?: BatchResultLine['status'];
  limit?: number;
  follow?: boolean;
}

export const isTerminal = (b: Pick<Batch, 'status'>): boolean => (BATCH_TERMINAL as readonly string[]).includes(b.status);

const enc = encodeURIComponent;

/** How long a streamed create (the upload of a whole server batch) may take. */
const STREAMED_CREATE_TIMEOUT_MS = 60 * 60_000;

export function createBatchClient(o: RemoteEngineOptions & { signal?: AbortSignal }) {
  const signal = o.signal;

  async function* results(id: string, q: ResultsQuery = {}): AsyncGenerator<BatchResultLine> {
    const { request } = await import('undici');
    const params = new URLSearchParams();
    if (q.after) params.set('after', String(q.after));
    if (q.status) params.set('status', q.status);
    if (q.limit) params.set('limit', String(q.limit));
    if (q.follow) params.set('follow', 'true');
    const url = endpoint(o.baseUrl, `/batches/${enc(id)}/results${params.size ? `?${params}` : ''}`);
    const headers: Record<string, string> = { accept: 'application/x-ndjson', 'user-agent': o.userAgent };
    if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, { method: 'GET', headers, signal, dispatcher: o.dispatcher, bodyTimeout: 0 });
    } catch (err) {
      if (signal?.aborted) throw err;
      const code = (err as { code?: string }).code ?? 'network error';
      throw new VerityError('UNAVAILABLE', `Cannot reach the service at ${new URL(url).host} (${code})`, { cause: err, origin: 'transport' });
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      let parsed: ReturnType<typeof ErrorBody.safeParse> | undefined;
      try {
        parsed = ErrorBody.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) {
        const e = parsed.data.error;
        throw new VerityError(e.code, e.message, { docs: e.docs, requiredPlan: e.required_plan, details: e.details, retryAfter: e.retry_after, origin: 'service' });
      }
      throw new VerityError(res.statusCode >= 500 ? 'UNAVAILABLE' : 'INTERNAL_ERROR', `The service answered HTTP ${res.statusCode}`, { origin: 'transport' });
    }
    let buf = '';
    try {
      for await (const chunk of res.body) {
        buf += (chunk as Buffer).toString('utf8');
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) yield JSON.parse(line) as BatchResultLine;
        }
      }
    } catch (err) {
      if (signal?.aborted) throw err;
      // A broken stream: the caller resumes from the last line it got (see follow()).
      throw new VerityError('UNAVAILABLE', 'The results stream broke off', { cause: err, origin: 'transport' });
    }
  }

  const client = {
    /** One batch; the Idempotency-Key (default: random) makes a retried create return the same batch. */
    create: (body: BatchCreateBody, idempotencyKey: string = randomUUID()): Promise<Batch> =>
      callRemote<Batch>({ ...o, idempotencyKey: () => idempotencyKey }, 'POST', '/batches', body, signal),
    /**
     * One batch sent as NDJSON while it is made (`lines`: the items, one JSON line each, produced
     * as the upload needs them), so a folder of any size is never held whole (issue 31). The
     * upload may take long: its deadline is an hour rather than the usual two minutes.
     */
    createStreamed: (head: { type: BatchCreateBody['type']; metadata?: Record<string, string> }, lines: () => AsyncIterable<string>, idempotencyKey: string = randomUUID()): Promise<Batch> => {
      const body: StreamedBody = {
        contentType: 'application/x-ndjson',
        async *open() {
          yield `${JSON.stringify(head)}\n`;
          for await (const line of lines()) yield line;
        },
      };
      return callRemote<Batch>({ ...o, idempotencyKey: () => idempotencyKey, timeoutMs: Math.max(o.timeoutMs ?? 0, STREAMED_CREATE_TIMEOUT_MS) }, 'POST', '/batches', body, signal);
    },
    get: (id: string): Promise<Batch> => callRemote<Batch>(o, 'GET', `/batches/${enc(id)}`, undefined, signal),
    list: (q: { limit?: number; before?: string } = {}): Promise<BatchList> => {
      const p = new URLSearchParams();
      if (q.limit) p.set('limit', String(q.limit));
      if (q.before) p.set('before', q.before);
      return callRemote<BatchList>(o, 'GET', `/batches${p.size ? `?${p}` : ''}`, undefined, signal);
    },
    cancel: (id: string): Promise<Batch> => callRemote<Batch>(o, 'POST', `/batches/${enc(id)}/cancel`, undefined, signal),
    results,
    /**
     * Every line from `after` on until the batch ends, resuming a broken stream where it stopped
     * (up to `maxResumes` times in a row without progress, waiting `pause` between attempts).
     * Resolves with the final batch.
     */
    async follow(
      id: string,
      onLine: (line: BatchResultLine) => void | Promise<void>,
      f: { after?: number; maxResumes?: number; pause?: (ms: number) => Promise<void> } = {},
    ): Promise<Batch> {
      let after = f.after ?? 0;
      let stalls = 0;
      const pause = f.pause ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
      for (;;) {
        let got = 0;
        try {
          for await (const line of results(id, { after, follow: true })) {
            await onLine(line);
            after = line.seq;
            got++;
          }
        } catch (err) {
          if (signal?.aborted || !(err instanceof VerityError) || err.code !== 'UNAVAILABLE') throw err;
          if (got === 0 && ++stalls > (f.maxResumes ?? 10)) throw err;
          if (got > 0) stalls = 0;
          await pause(Math.min(5_000, 250 * 2 ** Math.max(0, stalls - 1)));
          continue;
        }
        let batch: Batch;
        try {
          batch = await client.get(id);
        } catch (err) {
          if (signal?.aborted || !(err instanceof VerityError) || err.code !== 'UNAVAILABLE' || ++stalls > (f.maxResumes ?? 10)) throw err;
          await pause(Math.min(5_000, 250 * 2 ** Math.max(0, stalls - 1)));
          continue;
        }
        // A stream ends at the batch's end, or when the server shuts down: then follow again.
        if (isTerminal(batch)) {
          // Every line of a finished batch is stored: fetch any the stream did not bring.
          for await (const line of results(id, { after })) {
            await onLine(line);
            after = line.seq;
          }
          return batch;
        }
        if (got === 0 && ++stalls > (f.maxResumes ?? 10))
          throw new VerityError('UNAVAILABLE', `The results of ${id} stopped arriving while the batch is ${batch.status}`);
        if (got === 0) await pause(Math.min(5_000, 250 * 2 ** Math.max(0, stalls - 1)));
      }
    },
  };
  return client;
}

export type BatchClient = ReturnType<typeof createBatchClient>;
