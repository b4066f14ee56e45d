/**
 * Webhooks inside `verity serve`: the /v1/webhooks routes, the outbox writes made inside the
 * usage transaction (verification.completed, verification.failed, credit.threshold), and the
 * delivery worker as the server's background task.
 *
 * Webhooks belong to an account AND a key environment (like test/live modes elsewhere): a test
 * key sees and feeds only test-mode webhooks, so sandbox traffic never reaches live endpoints.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { VerityError, validationError } from '../api/errors.js';
import { WebhookConfig } from '../api/webhooks.js';
import type { Clock } from '../engine/types.js';
import type {
  AuthInfo,
  BackgroundTask,
  BatchFinishedInfo,
  ServerPlugin,
  VerificationFailedInfo,
  VerificationRecordedInfo,
} from './types.js';
import type { Database } from '../store/local/database.js';
import type { OutboxEntry, OutboxOptions, ServerStore } from '../store/ports/index.js';
import { createDeliveryWorker, systemWorkerClock, type AttemptReport, type WorkerClock } from '../webhooks/delivery.js';
import { completedData, crossedThresholds, envelope } from '../domain/events.js';
import { AttemptWaiter, parseEventType, toTestResult } from '../webhooks/service.js';
import { RESPONSE_DEADLINE_MS } from '../domain/delivery-schedule.js';
import { checkTargetUrl, type TargetPolicy } from '../webhooks/target-guard.js';
import { checkIdempotencyKey, requestHash } from './idempotency.js';

/** Webhook requests are small JSON objects; anything bigger is refused before it is buffered. */
const WEBHOOK_BODY_LIMIT = 16 * 1024;

export interface WebhookServerOptions {
  /** The server's store (the same instance buildServer gets). */
  store: ServerStore;
  clock?: Clock;
  /** Timers for the worker (tests inject a fake one); defaults to real timers on `clock`. */
  workerClock?: WorkerClock;
  userAgent?: string;
  onAttempt?: (r: AttemptReport) => void;
  onError?: (err: unknown) => void;
  /**
   * Where deliveries may go. Default: public https targets only, checked at registration and at
   * connect time on every attempt. `{ allowPrivate: true }` is the development switch
   * (`verity serve --allow-private-webhooks`); tests inject `lookup` to resolve names offline.
   */
  targetPolicy?: TargetPolicy;
  /** A delivery claim's lease (default LEASE_MS, 30 s); tests shorten it to see an expiry. */
  leaseMs?: number;
}

export interface WebhookServerHooks {
  plugins: ServerPlugin[];
  eventsAfterVerification: (info: VerificationRecordedInfo, o?: OutboxOptions) => OutboxEntry[];
  eventsAfterFailure: (info: VerificationFailedInfo) => OutboxEntry[];
  eventsAfterBatch: (info: BatchFinishedInfo) => OutboxEntry[];
  background: BackgroundTask;
}

export const scopeOf = (a: { accountId: string; environment: string }): string => `${a.accountId}/${a.environment}`;

const IdParams = z.object({ id: z.string().min(1).max(100) });
const RotateBody = z.object({ secret: z.string().optional() }).strict();
const TestBody = z.object({ type: z.string().optional() }).strict();
const ReplayBody = z.object({ webhook_id: z.string().optional() }).strict();
const DeliveriesQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() });

/** The registration schema alone (caps, known events), before the address policy is applied. */
function createWebhookCheck(body: unknown): void {
  WebhookConfig.parse(body ?? {});
}

function parse<T>(schema: z.ZodType<T>, value: unknown, prefix = ''): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw validationError(r.error, prefix);
  return r.data;
}

function authOf(request: FastifyRequest): AuthInfo {
  if (!request.auth) throw new VerityError('UNAUTHORIZED', 'Missing API key: send `Authorization: Bearer <API_KEY>`');
  return request.auth;
}

export function webhookServerHooks(o: WebhookServerOptions): WebhookServerHooks {
  const clock = o.clock ?? { now: () => new Date() };
  const timers: WorkerClock = o.workerClock ?? { now: () => clock.now().getTime(), setTimer: systemWorkerClock.setTimer };
  const store: ServerStore = o.store;
  if (!store) throw new TypeError('webhookServerHooks needs a store');
  const hooks = store.webhooks;
  const waiter = new AttemptWaiter();
  const policy: TargetPolicy = o.targetPolicy ?? { allowPrivate: false };
  const worker = createDeliveryWorker({
    outbox: store.outbox,
    clock: timers,
    userAgent: o.userAgent,
    targetPolicy: policy,
    ...(o.leaseMs !== undefined ? { leaseMs: o.leaseMs } : {}),
    onAttempt: (r) => {
      waiter.onAttempt(r);
      o.onAttempt?.(r);
    },
    // A storage error (e.g. the disk is full) must show in the server's stderr, never vanish.
    onError: o.onError ?? ((err) => void process.stderr.write(`webhooks: delivery worker error: ${err instanceof Error ? err.message : String(err)}\n`)),
  });
  let running = false;
  let unsubscribe: (() => void) | undefined;

  /** This process's report if its worker sends it, else the attempt log (another process sent it). */
  function firstAttempt(scope: string, webhook: string, eventIdValue: string, deliveryId: number, waitMs: number): Promise<AttemptReport | null> {
    const deadline = timers.now() + waitMs;
    const local = running ? waiter.wait(deliveryId, waitMs, timers) : new Promise<null>(() => undefined);
    const fromLog = new Promise<AttemptReport | null>((resolve) => {
      const check = (): void => {
        hooks
          .deliveryLog(scope, webhook, 20)
          .then((log) => {
            const a = log.data.find((r) => r.event_id === eventIdValue && r.outcome !== 'lost');
            if (a)
              return resolve({
                deliveryId, eventId: eventIdValue, eventType: a.event_type, webhookId: webhook, url: '', attempt: a.attempt,
                ok: a.outcome === 'delivered', statusCode: a.status_code, startedAt: Date.parse(a.attempted_at),
                latencyMs: a.latency_ms ?? 0, error: a.error, nextAt: undefined,
              });
            if (timers.now() >= deadline) return resolve(null);
            timers.setTimer(check, 100);
          })
          .catch(() => resolve(null));
      };
      timers.setTimer(check, 100);
    });
    return Promise.race([local, fromLog]);
  }

  const plugin: ServerPlugin = async (app: FastifyInstance) => {
    // Authentication and the rate limit run on onRequest, before the body is read: a caller
    // without a valid key never gets a byte parsed (a 29 MB body, malformed JSON → 401).
    const guard = { onRequest: [app.verity.requireAuth, app.verity.rateLimit], bodyLimit: WEBHOOK_BODY_LIMIT };

    const respond = (w: unknown): { status: number; body: string } => ({ status: 201, body: JSON.stringify(w) });
    const create = async (scope: string, body: unknown, idem?: { accountId: string; key: string; hash: string }): Promise<{ status: number; body: string }> => {
      try {
        const url = (body as { url?: unknown } | null)?.url;
        // Shape first (caps, events), then the address policy, so each 400 names its rule.
        createWebhookCheck(body);
        if (typeof url === 'string') checkTargetUrl(url, policy);
        return respond(await hooks.create(scope, body ?? {}, clock.now(), idem && { ...idem, respond }));
      } catch (err) {
        if (err instanceof z.ZodError) throw validationError(err);
        throw err;
      }
    };

    app.post('/v1/webhooks', guard, async (request, reply) => {
      const auth = authOf(request);
      const scope = scopeOf(auth);
      const header = request.headers['idempotency-key'];
      let out: { status: number; body: string; replayed?: boolean };
      if (typeof header === 'string') {
        // As on the verify routes: a retried create returns the first answer, not a second webhook.
        checkIdempotencyKey(header);
        const hash = requestHash('POST', '/v1/webhooks', request.body);
        out = await app.verity.idempotency.run(auth.accountId, header, hash, () =>
          create(scope, request.body, { accountId: auth.accountId, key: header, hash }),
        );
      } else out = await create(scope, request.body);
      if (out.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(out.status).type('application/json; charset=utf-8').send(out.body);
    });

    app.get('/v1/webhooks', guard, async (request) => ({ data: await hooks.list(scopeOf(authOf(request))) }));

    app.get('/v1/webhooks/:id', guard, async (request) => hooks.get(scopeOf(authOf(request)), parse(IdParams, request.params).id));

    app.delete('/v1/webhooks/:id', guard, async (request) => {
      const { id } = parse(IdParams, request.params);
      await hooks.remove(scopeOf(authOf(request)), id, clock.now());
      return { id, deleted: true };
    });

    app.post('/v1/webhooks/:id/rotate-secret', guard, async (request) => {
      const { id } = parse(IdParams, request.params);
      const { secret } = parse(RotateBody, request.body);
      try {
        // The overlap is compared with the worker's clock when a delivery is claimed: start it on that clock.
        return await hooks.rotate(scopeOf(authOf(request)), id, secret, new Date(timers.now()));
      } catch (err) {
        if (err instanceof z.ZodError) throw validationError(err);
        throw err;
      }
    });

    app.post('/v1/webhooks/:id/test', guard, async (request) => {
      const { id } = parse(IdParams, request.params);
      const body = parse(TestBody, request.body);
      const type = body.type === undefined ? undefined : parseEventType(body.type);
      const scope = scopeOf(authOf(request));
      const { event, deliveryId } = await hooks.enqueueTest(scope, id, type, timers.now());
      // Without a running worker (an in-process server with no background task) it stays queued.
      // On a shared outbox any process's worker may send it: its attempt is then read from the log.
      const wait = RESPONSE_DEADLINE_MS + 2_000;
      const pending = store.outbox.shared
        ? firstAttempt(scope, id, event.id, deliveryId, wait)
        : running
          ? waiter.wait(deliveryId, wait, timers)
          : Promise.resolve(null);
      worker.notify();
      return toTestResult(event, await pending);
    });

    app.get('/v1/webhooks/:id/deliveries', guard, async (request) => {
      const { id } = parse(IdParams, request.params);
      const { limit } = parse(DeliveriesQuery, request.query);
      return hooks.deliveryLog(scopeOf(authOf(request)), id, limit);
    });

    app.post('/v1/events/:id/replay', guard, async (request) => {
      const { id } = parse(IdParams, request.params);
      const { webhook_id } = parse(ReplayBody, request.body);
      const r = await hooks.replay(scopeOf(authOf(request)), id, timers.now(), webhook_id);
      worker.notify();
      return r;
    });
  };

  return {
    plugins: [plugin],
    eventsAfterVerification(info, o) {
      const scope = scopeOf(info);
      // With no endpoint anywhere (onceOnly) the completed event would have no recipient: not built.
      const out: OutboxEntry[] = o?.onceOnly ? [] : [{ scope, event: envelope('verification.completed', { ...completedData(info.result), ...info.batch }, info.now) }];
      const period = info.now.toISOString().slice(0, 7);
      // Only live usage counts against the quota (src/server/types.ts), so only it can cross one.
      const crossed = info.environment === 'live' ? crossedThresholds(info.usageBefore, info.usageAfter, info.monthlyQuota) : [];
      for (const threshold of crossed) {
        const data = {
          threshold,
          usage: info.usageAfter,
          quota: info.monthlyQuota,
          percent: Math.round((info.usageAfter / info.monthlyQuota) * 1000) / 10,
          period,
        };
        // Once per period: the store skips it when this threshold already fired.
        out.push({ scope, event: envelope('credit.threshold', data, info.now), once: { period, threshold } });
      }
      return out;
    },
    eventsAfterFailure(info) {
      const data = {
        request_id: info.requestId,
        request_type: info.kind,
        error: { code: info.error.code, message: info.error.message },
        // A batch item's events name the batch and the caller's id for the item (issue 15).
        ...info.batch,
      };
      return [{ scope: scopeOf(info), event: envelope('verification.failed', data, info.now) }];
    },
    eventsAfterBatch(info) {
      // One terminal event per batch (issue 15): completed when every item succeeded, else partial.
      const type = info.batch.status === 'completed' ? 'batch.completed' : 'batch.partial';
      const { id, ...rest } = info.batch;
      return [{ scope: scopeOf(info), event: envelope(type, { batch_id: id, ...rest }, info.now) }];
    },
    background: {
      start() {
        running = true;
        unsubscribe = store.outbox.subscribe(() => worker.notify());
        worker.start();
      },
      async stop() {
        running = false;
        unsubscribe?.();
        // Graceful shutdown: attempts in flight are cut short and their claims given back at once,
        // so this process exits promptly and any other worker (or the next start) sends them.
        await worker.stop({ abort: true, release: true });
      },
    },
  };
}
