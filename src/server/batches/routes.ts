/**
 * /v1/batches (issue 15): create (JSON or NDJSON, Idempotency-Key, every item validated, credits
 * reserved up front), list, get, cancel, and the results as NDJSON with a resumable cursor
 * (`after` = the completion sequence number of the last line received; `follow=true` keeps the
 * stream open until the batch ends). Authentication and the rate limit run before the body is
 * read; a batch counts as one request, its items run under the plan's batch limits.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { VerityError, validationError } from '../../api/errors.js';
import { contentEncodingError } from '../content-encoding.js';
import { randomBase62 } from '../../api/ids.js';
import type { BatchRow, BatchScope, BatchStore, ResultRow } from '../../store/ports/batches.js';
import { checkIdempotencyKey, requestHash, type Idempotency, type StoredResponse } from '../idempotency.js';
import type { Ledger } from '../usage.js';
import type { AuthInfo } from '../types.js';
import { validateBatch, type ParsedBatch } from './input.js';
import { limitsFor } from './limits.js';
import type { BatchRunner } from './runner.js';
import type { BatchSpool, Staging } from './spool.js';
import { readStreamedBatch } from './stream.js';
import { batchObject } from './view.js';

export interface BatchRouteDeps {
  store: BatchStore;
  runner: BatchRunner;
  ledger: Ledger;
  idempotency: Idempotency;
  /** Where streamed batches' files are kept until their items run (spool.ts). */
  spool: BatchSpool;
  /** Writes the idempotency record inside the batch's create transaction. */
  saveIdempotency?: (accountId: string, key: string, hash: string, response: StoredResponse) => void;
  now: () => Date;
}

export const batchId = (): string => `bat_${randomBase62(24)}`;
const BATCH_ID = /^bat_[0-9A-Za-z]{1,96}$/;

const IdParams = z.object({ id: z.string().regex(BATCH_ID, 'must be a batch id (bat_…)') });
const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z.string().regex(BATCH_ID, 'must be a batch id (bat_…)').optional(),
});
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const ResultsQuery = z.object({
  after: z.coerce.number().int('must be an integer').min(0).default(0),
  status: z.enum(['succeeded', 'failed', 'cancelled']).optional(),
  limit: z.coerce.number().int().min(1).max(1_000_000).optional(),
  follow: flag.default(false),
});
const CreateQuery = z.object({ type: z.string().optional() });

/** Rows read from the store per page of the results stream. */
const PAGE = 500;
/** A follower re-reads the store at least this often (items finished by another server process). */
const FOLLOW_POLL_MS = 2_000;
/** A following stream with nothing to say writes an empty line this often. */
const HEARTBEAT_MS = 15_000;

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw validationError(r.error);
  return r.data;
}

const scopeOf = (a: AuthInfo): BatchScope => ({ accountId: a.accountId, environment: a.environment });

/** One results line: `{custom_id, index, seq, status, result | error}`. */
export function resultLine(r: ResultRow): string {
  const head = `{"custom_id":${JSON.stringify(r.custom_id)},"index":${r.index},"seq":${r.seq},"status":"${r.status}"`;
  if (r.status === 'succeeded') return `${head},"result":${r.result}}\n`;
  if (r.status === 'failed') return `${head},"error":${JSON.stringify(r.error)}}\n`;
  return `${head}}\n`;
}

export function registerBatchRoutes(app: FastifyInstance, d: BatchRouteDeps): void {
  const guard = { onRequest: [app.verity.requireAuth, app.verity.rateLimit] };
  // NDJSON bodies are handed to the route as the request stream and read line by line as they
  // arrive (stream.ts: its own bounds, since fastify's body limit applies to bodies it reads).
  app.addContentTypeParser(['application/x-ndjson', 'application/jsonl'], (request, payload, done) => {
    const encoded = contentEncodingError(request.headers);
    if (encoded) return done(encoded, undefined);
    done(null, payload);
  });
  // Follow streams end when the server shuts down, so a graceful stop is not held open by them.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  async function get(auth: AuthInfo, id: string): Promise<BatchRow> {
    const row = await d.store.get(scopeOf(auth), id);
    if (!row) throw new VerityError('NOT_FOUND', `No batch ${id} for this key's account and environment`);
    return row;
  }

  async function checkActive(auth: AuthInfo): Promise<void> {
    const limits = limitsFor(auth.plan);
    if ((await d.store.countActive(auth.accountId)) >= limits.concurrentBatches)
      throw new VerityError(
        'RATE_LIMITED',
        `The account already has ${limits.concurrentBatches} unfinished batches (the ${auth.plan} plan's limit); retry when one finishes`,
        { retryAfter: 30 },
      );
  }

  /** Stores a checked batch (its spooled files, if any, in `staging`) and hands it to the runner. */
  async function create(auth: AuthInfo, parsed: ParsedBatch, replay?: { key: string; hash: string }, staging?: Staging) {
    await checkActive(auth);
    // 402 before anything is stored: the whole batch must fit in the month's remaining credits.
    const id = batchId();
    const hold = await d.ledger.reserve(auth, parsed.items.reduce((n, i) => n + i.credits, 0), id);
    // The files are in place before the items can be claimed (a poll may claim them at once).
    if (staging?.bytes) await staging.commit(id);
    try {
      let text = '';
      await d.store.create(
        { id, scope: scopeOf(auth), key_id: auth.keyId, key_prefix: auth.keyPrefix, type: parsed.type, metadata: parsed.metadata, created_at: d.now().toISOString() },
        parsed.items.map((i) => ({ custom_id: i.custom_id, request: JSON.stringify(i.request), credits: i.credits })),
        (row) => {
          text = JSON.stringify(batchObject(row));
          if (replay) d.saveIdempotency?.(auth.accountId, replay.key, replay.hash, { status: 202, body: text });
        },
      );
      d.runner.adopt(id, hold);
      return { status: 202, body: text, id };
    } catch (err) {
      await d.ledger.release(hold);
      if (staging?.bytes) await d.spool.dropBatch(id);
      throw err;
    }
  }

  app.post('/v1/batches', guard, async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = request.auth!;
    const query = parse(CreateQuery, request.query);
    const header = request.headers['idempotency-key'];
    if (typeof header === 'string') checkIdempotencyKey(header);
    let out: { status: number; body: string; id?: string; replayed: boolean };
    if (request.body instanceof Readable) {
      // NDJSON, read as it arrives; its files go to the spool (stream.ts). Refused before the
      // body is read when the account cannot start another batch anyway.
      await checkActive(auth);
      const staging = await d.spool.staging();
      try {
        const { parsed, hash: bodyHash } = await readStreamedBatch(request.body, query.type, auth, staging);
        const hash = requestHash('POST', '/v1/batches', { ndjson_sha256: bodyHash, type: query.type ?? null });
        out =
          typeof header === 'string'
            ? await d.idempotency.run(auth.accountId, header, hash, () => create(auth, parsed, { key: header, hash }, staging))
            : { ...(await create(auth, parsed, undefined, staging)), replayed: false };
      } catch (err) {
        // The rest of a refused body is not read: the connection closes after the answer.
        if (!request.body.readableEnded) reply.header('connection', 'close');
        throw err;
      } finally {
        await staging.discard();
      }
    } else if (typeof header === 'string') {
      const hash = requestHash('POST', '/v1/batches', request.body);
      out = await d.idempotency.run(auth.accountId, header, hash, () => create(auth, validateBatch(request.body, auth), { key: header, hash }));
    } else out = { ...(await create(auth, validateBatch(request.body, auth))), replayed: false };
    if (out.replayed) reply.header('idempotent-replayed', 'true');
    const id = out.id ?? (JSON.parse(out.body) as { id?: string }).id;
    if (out.status === 202 && id) reply.header('location', `/v1/batches/${id}`);
    return reply.code(out.status).type('application/json; charset=utf-8').send(out.body);
  });

  app.get('/v1/batches', guard, async (request) => {
    const q = parse(ListQuery, request.query);
    const rows = await d.store.list(scopeOf(request.auth!), { limit: q.limit + 1, before: q.before });
    return { data: rows.slice(0, q.limit).map(batchObject), has_more: rows.length > q.limit };
  });

  app.get('/v1/batches/:id', guard, async (request) => batchObject(await get(request.auth!, parse(IdParams, request.params).id)));

  app.post('/v1/batches/:id/cancel', guard, async (request) => {
    const { id } = parse(IdParams, request.params);
    const row = await d.runner.cancel(scopeOf(request.auth!), id);
    if (!row) throw new VerityError('NOT_FOUND', `No batch ${id} for this key's account and environment`);
    // The status after cancelling: `cancelling` while items in flight stop, else terminal.
    return batchObject((await d.store.get(scopeOf(request.auth!), id)) ?? row);
  });

  app.get('/v1/batches/:id/results', guard, async (request, reply) => {
    const { id } = parse(IdParams, request.params);
    const q = parse(ResultsQuery, request.query);
    const auth = request.auth!;
    const first = await get(auth, id);
    const { store, runner } = d;
    const gone = closing.signal;
    async function* lines(): AsyncGenerator<string> {
      let after = q.after;
      let left = q.limit ?? Number.POSITIVE_INFINITY;
      let batch = first;
      let lastWrite = 0;
      for (let round = 0; ; round++) {
        // Read the status BEFORE the page: a batch seen terminal has all its lines in the store.
        const terminal = ['completed', 'partial', 'cancelled'].includes(batch.status);
        const wanted = Math.min(PAGE, left);
        const page = await store.results(id, { after, status: q.status, limit: wanted });
        // One chunk per page, not one socket write per line.
        if (page.length) {
          lastWrite = Date.now();
          yield page.map(resultLine).join('');
        } else if (q.follow && (round === 0 || Date.now() - lastWrite >= HEARTBEAT_MS)) {
          // An empty line: the answer's head goes out now (a follower learns at once that it is
          // following), and an idle stream keeps proxies from closing it. NDJSON readers skip it.
          lastWrite = Date.now();
          yield '\n';
        }
        if (page.length) after = page[page.length - 1]!.seq;
        left -= page.length;
        if (left <= 0) return;
        if (page.length === wanted) continue;
        if (!q.follow || terminal || gone.aborted || runner.stopped) return;
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, FOLLOW_POLL_MS);
          const unsubscribe = runner.subscribe(id, done);
          gone.addEventListener('abort', done, { once: true });
          function done(): void {
            clearTimeout(t);
            unsubscribe();
            gone.removeEventListener('abort', done);
            resolve();
          }
        });
        batch = (await store.get(scopeOf(auth), id)) ?? batch;
      }
    }
    reply.header('verity-batch-status', first.status);
    reply.header('verity-batch-finished', String(first.finished));
    return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines(), { objectMode: false }));
  });
}
