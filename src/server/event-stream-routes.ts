/**
 * The event stream routes (issue 29, /work/notes/stream-protocol.md, docs/webhooks.md "Event
 * stream"): `GET /v1/events/stream` (Server-Sent Events of the key's account and environment),
 * the sessions' report-back (`POST /v1/events/stream/sessions/{id}/results`, `GET
 * /v1/events/stream/sessions`) and `POST /v1/events/trigger` (a sample event through the outbox).
 *
 * A stream reads the same events the outbox writes for endpoints, from a log beside the
 * deliveries: it never adds, removes or delays a delivery. Each event carries the headers a
 * delivery would, signed with the stream's own secret (announced first, never logged).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { VerityError, validationError } from '../api/errors.js';
import { EVENT_ID } from '../api/ids.js';
import { EVENT_TYPES } from '../api/webhooks.js';
import { envelope, sampleData } from '../domain/events.js';
import {
  STREAM_MAX_BUFFERED_BYTES,
  STREAM_MAX_PER_ACCOUNT,
  STREAM_PING_MS,
  STREAM_RENEW_MS,
  STREAM_RESULTS_LISTED,
  STREAM_RETENTION_SECONDS,
  STREAM_RETRY_MS,
  STREAM_ROUTES_PER_SESSION,
  STREAM_SESSIONS_LISTED,
  missedMessage,
  sessionState,
  sseMessage,
  streamSessionId,
  type MissedReason,
  type SessionMessage,
} from '../domain/event-stream.js';
import { generateSecretValue } from '../domain/webhook-secret.js';
import type { EventStreamStore, ServerStore } from '../store/ports/index.js';
import { parseEventType } from '../webhooks/service.js';
import { StreamHub, type HubOptions } from './event-stream-hub.js';
import type { AuthInfo, ServerPlugin } from './types.js';

/** Report-back bodies are one small JSON object. */
const RESULT_BODY_LIMIT = 4 * 1024;
/** How often one process purges the log of what is past retention (at most; driven by stream opens). */
const PURGE_EVERY_MS = 3_600_000;

export interface EventStreamOptions {
  store: ServerStore;
  clock?: { now(): Date };
  /** Events stay resumable this long (default STREAM_RETENTION_SECONDS, 24 h). */
  retentionSeconds?: number;
  pingMs?: number;
  /** Open streams renew their scope and session this often (default STREAM_RENEW_MS, 60 s). */
  renewMs?: number;
  maxBufferedBytes?: number;
  maxPerAccount?: number;
  /** A stream with unsent bytes waits at most this long for its reader (default 30 s), then is cut. */
  drainTimeoutMs?: number;
  userAgent?: string;
  onCut?: HubOptions['onCut'];
  onError?: (err: unknown) => void;
}

const StreamQuery = z.object({ events: z.string().max(1000).optional(), last_event_id: z.string().max(200).optional() }).strict();
const SessionParams = z.object({ id: z.string().min(1).max(100) });
const SessionsQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }).strict();
export const ResultBody = z
  .object({
    event_id: z.string().min(1).max(100),
    // A path (or null: the event was refused before any forward); '' would be the same route as null.
    route: z.string().min(1).max(500).nullable().default(null),
    status: z.number().int().min(100).max(599).nullable().default(null),
    latency_ms: z.number().int().min(0).max(86_400_000).nullable().default(null),
    error: z.string().max(1000).nullable().default(null),
  })
  .strict();
export const TriggerBody = z.object({ type: z.string().max(100) }).strict();

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value ?? {});
  if (!r.success) throw validationError(r.error);
  return r.data;
}

function authOf(request: FastifyRequest): AuthInfo {
  if (!request.auth) throw new VerityError('UNAUTHORIZED', 'Missing API key: send `Authorization: Bearer <API_KEY>`');
  return request.auth;
}

const scopeOf = (a: AuthInfo): string => `${a.accountId}/${a.environment}`;

/** `events=a,b` → the set of types (validated), or null for every type. */
export function parseEventsFilter(value: string | undefined): string[] | null {
  if (value === undefined || value === '') return null;
  return [...new Set(value.split(',').map((t) => parseEventType(t.trim(), 'events')))];
}

/** The Last-Event-ID header (EventSource) or the `last_event_id` query parameter. */
function lastEventId(request: FastifyRequest, query: { last_event_id?: string }): string | null {
  const h = request.headers['last-event-id'];
  const v = (Array.isArray(h) ? h[0] : h) ?? query.last_event_id;
  if (v === undefined || v.trim() === '') return null;
  if (v.length > 200) throw new VerityError('VALIDATION_FAILED', 'Last-Event-ID is too long', { details: [{ field: 'last_event_id', issue: 'at most 200 characters' }] });
  return v.trim();
}

export function eventStreamPlugin(o: EventStreamOptions): { plugin: ServerPlugin; hub: () => StreamHub | undefined } {
  const clock = o.clock ?? { now: () => new Date() };
  const retentionMs = (o.retentionSeconds ?? STREAM_RETENTION_SECONDS) * 1000;
  const pingMs = o.pingMs ?? STREAM_PING_MS;
  const renewMs = o.renewMs ?? STREAM_RENEW_MS;
  // Twice the renewal, plus the keep-alive tick it waits for: past that, its process is gone.
  const lostAfterMs = 2 * Math.min(renewMs, retentionMs / 4) + pingMs;
  const onError = o.onError ?? ((err: unknown) => void process.stderr.write(`event stream: ${err instanceof Error ? err.message : String(err)}\n`));
  let hub: StreamHub | undefined;
  let lastPurge = -Infinity;
  const events = (): EventStreamStore => {
    if (!o.store.eventStream) throw new VerityError('NOT_FOUND', 'This server has no event stream');
    return o.store.eventStream;
  };

  function maybePurge(log: EventStreamStore, nowMs: number): void {
    if (nowMs - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = nowMs;
    log.purge(nowMs - retentionMs).catch(onError);
  }

  /** Where the stream starts, and the `missed` message when a resume cannot start where asked. */
  async function startingPoint(log: EventStreamStore, scope: string, after: string | null): Promise<{ cursor: string; missed?: Record<string, unknown> }> {
    if (after === null) return { cursor: await log.tail() };
    const at = await log.locate(scope, after);
    if (at !== undefined) return { cursor: at };
    // Not in the log: purged (past retention), or not an event of this account and environment.
    const reason: MissedReason = EVENT_ID.test(after) ? 'expired' : 'unknown_event';
    return { cursor: log.head(), missed: missedMessage(after, reason, (await log.oldest(scope)) ?? null) };
  }

  async function openStream(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const auth = authOf(request);
    const query = parse(StreamQuery, request.query);
    const types = parseEventsFilter(query.events);
    const after = lastEventId(request, query);
    const log = events();
    // HEAD (fastify answers it with the GET route): the head of a stream, no stream held open.
    if (request.method === 'HEAD') return void reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store').send();
    hub ??= new StreamHub({
      store: log,
      nowMs: () => clock.now().getTime(),
      retentionMs,
      pingMs,
      renewMs,
      maxBufferedBytes: o.maxBufferedBytes ?? STREAM_MAX_BUFFERED_BYTES,
      maxPerAccount: o.maxPerAccount ?? STREAM_MAX_PER_ACCOUNT,
      drainTimeoutMs: o.drainTimeoutMs ?? 30_000,
      userAgent: o.userAgent ?? 'verity-webhooks',
      onCut: (c) => {
        app.log.warn({ session: c.sessionId, reason: c.reason, buffered: c.buffered }, 'event stream cut: the client did not read in time; it resumes with Last-Event-ID');
        o.onCut?.(c);
      },
      onError,
    });
    const maxPer = o.maxPerAccount ?? STREAM_MAX_PER_ACCOUNT;
    if (!hub.hasRoom(auth.accountId))
      throw new VerityError('RATE_LIMITED', `This account already has ${maxPer} open event streams on this server; close one first`, { retryAfter: 60 });
    const scope = scopeOf(auth);
    const nowMs = clock.now().getTime();
    maybePurge(log, nowMs);
    // Logged from now on (and a retention past the stream's end), before the position is taken.
    await log.keepScope(scope, nowMs + retentionMs);
    const start = await startingPoint(log, scope, after);
    const sessionId = streamSessionId();
    const secret = generateSecretValue();
    await log.openSession({ id: sessionId, scope, events: types ?? [...EVENT_TYPES], openedMs: nowMs });
    const session: SessionMessage = {
      session_id: sessionId,
      secret,
      signature_scheme: 'verity',
      environment: auth.environment,
      events: types ?? [...EVENT_TYPES],
      retention_seconds: retentionMs / 1000,
      resumed_after: after,
    };
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
      ...Object.fromEntries(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'].map((h) => [h, String(reply.getHeader(h) ?? '')]).filter(([, v]) => v)),
    });
    res.write(sseMessage({ retry: STREAM_RETRY_MS, event: 'session', data: session }));
    if (start.missed) res.write(sseMessage({ event: 'missed', data: start.missed }));
    app.log.info({ session: sessionId, key: auth.keyPrefix, events: types ?? 'all', resumed_after: after }, 'event stream opened');
    hub.add({ sessionId, accountId: auth.accountId, scope, secret, types: types && new Set(types), cursor: start.cursor, res });
  }

  const plugin: ServerPlugin = async (app: FastifyInstance) => {
    const guard = { onRequest: [app.verity.requireAuth, app.verity.rateLimit] };
    // Open streams would keep app.close() waiting for ever: they are ended first.
    app.addHook('preClose', async () => hub?.closeAll());

    app.get('/v1/events/stream', guard, (request, reply) => openStream(app, request, reply));

    app.get('/v1/events/stream/sessions', guard, async (request) => {
      const { limit } = parse(SessionsQuery, request.query);
      const list = await events().listSessions(scopeOf(authOf(request)), limit ?? STREAM_SESSIONS_LISTED, STREAM_RESULTS_LISTED);
      const nowMs = clock.now().getTime();
      return { data: list.map((x) => sessionState(x, nowMs, lostAfterMs)) };
    });

    // Not counted against the key's rate limit (a test key's 100 requests an hour would go to
    // reporting during one debugging session): instead a result is taken only for an event of the
    // scope's log that the session takes, once per (session, event, route), for a bounded number of
    // routes — its writes are bounded by the events, which are rate limited where they are made.
    app.post('/v1/events/stream/sessions/:id/results', { onRequest: [app.verity.requireAuth], bodyLimit: RESULT_BODY_LIMIT }, async (request, reply) => {
      const { id } = parse(SessionParams, request.params);
      const body = parse(ResultBody, request.body);
      const outcome = await events().addResult(scopeOf(authOf(request)), id, body, clock.now().getTime(), STREAM_ROUTES_PER_SESSION);
      switch (outcome) {
        case 'no_session':
          throw new VerityError('NOT_FOUND', `No event stream session ${id}`);
        case 'no_event':
          throw new VerityError('NOT_FOUND', `Event ${body.event_id} was not streamed to this session: not an event of this account and environment in the last ${retentionMs % 3_600_000 === 0 ? `${retentionMs / 3_600_000} h` : `${retentionMs / 1000} s`}, or of a type the session does not take`, {
            details: [{ field: 'event_id', issue: 'not an event this session streams' }],
          });
        case 'too_many_routes':
          throw new VerityError('VALIDATION_FAILED', `A session reports results for at most ${STREAM_ROUTES_PER_SESSION} different routes`, {
            details: [{ field: 'route', issue: `at most ${STREAM_ROUTES_PER_SESSION} different routes per session` }],
          });
        // 'repeat': the first result for that event and route stands; nothing is written.
        default:
          return reply.code(204).send();
      }
    });

    app.post('/v1/events/trigger', { ...guard, bodyLimit: RESULT_BODY_LIMIT }, async (request, reply) => {
      const auth = authOf(request);
      const type = parseEventType(parse(TriggerBody, request.body).type);
      const now = clock.now();
      const event = envelope(type, sampleData(type, now), now);
      // The normal outbox write (commitFailure is the store's "queue these events" transaction):
      // subscribed endpoints get deliveries and streams read it from the log, as for a real event.
      await o.store.commitFailure({ outbox: [{ scope: scopeOf(auth), event }] });
      return reply.code(201).send({ event_id: event.id, type, environment: auth.environment });
    });
  };

  return { plugin, hub: () => hub };
}
