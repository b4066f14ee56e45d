/**
 * buildServer(deps): the fastify application of SPEC 4–5 (`verity serve` wraps it with listen,
 * the ready line and graceful shutdown; tests use it in-process). Plugins (the webhooks routes)
 * are registered after authentication is decorated, so their routes can use `requireAuth`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { VerityError } from '../api/errors.js';
import { randomBase62 } from '../api/ids.js';
import { LIMITS } from '../api/requests.js';
import { systemClock } from '../engine/types.js';
import { VERSION } from '../version.js';
import type { RateDecision, ServerStore } from '../store/ports/index.js';
import { createAuthenticator } from './auth.js';
import { sendError, toHttpError } from './error-handler.js';
import { redactUrl } from './redact.js';
import { contentEncodingError } from './content-encoding.js';
import { createIdempotency } from './idempotency.js';
import { buildOpenApi } from './openapi.js';
import { allPolicies, policyFor } from '../domain/rate-limit.js';
import type { AuthInfo } from './types.js';
import type { ServerContext, ServerDeps } from './types.js';
import { createLedger } from './usage.js';
import { registerVerifyRoutes } from './verify-routes.js';
import { batchesPlugin } from './batches/index.js';

export type { ServerDeps } from './types.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/**
 * A caller's id that could be a credential: a key (`vty_…`), or any run of 32+ base62 characters
 * (a key's body without its prefix is 32; someone else's token). The id is on every log line of
 * the request, so such an id is replaced by ours, not logged.
 */
const SECRET_SHAPED = /vty_|[0-9A-Za-z]{32}/i;

/**
 * Our request ids: a random per-server part and a counter. They must be unique, not secret, so
 * one CSPRNG draw per server instead of one per request (3 µs each on the hot path).
 */
function requestIds(): () => string {
  const base = `req_${randomBase62(10)}`;
  let n = 0;
  return () => `${base}${(++n).toString(36)}`;
}

/**
 * Errors Node's HTTP parser raises before fastify sees a request (a lying Content-Length, a bad
 * method, oversized headers, a body not received in time) answered in the API's error shape.
 */
function writeClientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const e =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new VerityError('PAYLOAD_TOO_LARGE', 'The request headers are too large')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new VerityError('INVALID_REQUEST', 'The request was not received in time')
        : toHttpError(Object.assign(new Error('Malformed request'), { statusCode: 400 }));
  const body = JSON.stringify(e.toBody());
  socket.end(
    `HTTP/1.1 ${e.status} ${e.status === 413 ? 'Payload Too Large' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { default: Fastify, LogController } = await import('fastify');
  const clock = deps.clock ?? systemClock;
  const store: ServerStore = deps.store;
  if (!store) throw new TypeError('buildServer needs a store (src/store/open.ts opens one)');
  const nextRequestId = requestIds();
  const requestTimeout = deps.requestTimeoutMs ?? 30_000;
  // Headers that never finish (slowloris) are cut sooner than a slow body: 10 s is long for headers.
  const headersTimeout = Math.min(deps.headersTimeoutMs ?? 10_000, requestTimeout);

  const app = Fastify({
    // A body (or headers) not received in time is answered 400 in our shape (clientErrorHandler)
    // and the connection closed; the check interval is tightened so the timeouts hold to within a
    // quarter of the shorter one.
    requestTimeout,
    // (Node enforces requestTimeout only when headersTimeout is not longer than it.)
    http: { connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(headersTimeout / 4))), headersTimeout },
    clientErrorHandler: writeClientError,
    // Router-level refusals (a path parameter over 100 characters, bad percent-encoding) in our shape.
    frameworkErrors: (err, request, reply) => void sendError(err, request, reply),
    bodyLimit: LIMITS.jsonBodyBytes,
    logger: {
      level: deps.logLevel ?? 'info',
      stream: deps.logStream ?? process.stderr,
      // Fastify's request serializer logs no headers; the redaction is a second lock on the door.
      redact: { paths: ['req.headers.authorization', 'req.headers["idempotency-key"]', 'headers.authorization'], censor: '[redacted]' },
    },
    // One log line per request, written in onResponse below (with the key prefix, never the key).
    logController: new LogController({ disableRequestLogging: true }),
    // Ids: a caller's X-Request-Id when it is plain, otherwise ours.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      // A key pasted as a request id would be logged on every line of the request: not taken.
      return typeof given === 'string' && REQUEST_ID.test(given) && !SECRET_SHAPED.test(given) ? given : nextRequestId();
    },
    // Requests that reached us before shutdown are served to the end, not answered 503.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });
  // JSON only: without this, a text/plain body would reach the handlers as a string (→ 415 now).
  app.removeContentTypeParser('text/plain');
  // GET/DELETE with `Content-Type: application/json` and no body are fine (clients send the header
  // on every request); on other methods an empty body is still "the body is empty".
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const encoded = contentEncodingError(request.headers);
    if (encoded) return done(encoded, undefined);
    if (body === '' && (request.method === 'GET' || request.method === 'DELETE' || request.method === 'HEAD' || request.method === 'OPTIONS'))
      return done(null, undefined);
    jsonParser(request, body as string, done);
  });

  const auth = createAuthenticator(store, clock);
  const sync = store.sync;
  const policies = allPolicies();
  function limitHeaders(a: AuthInfo, d: RateDecision, reply: FastifyReply): void {
    // draft-ietf-httpapi-ratelimit-headers: limit, remaining, seconds to reset, and the policy.
    reply.header('ratelimit-limit', String(d.limit));
    reply.header('ratelimit-remaining', String(d.remaining));
    reply.header('ratelimit-reset', String(d.resetSeconds));
    reply.header('ratelimit-policy', `${d.limit};w=${d.windowSeconds}`);
    if (!d.allowed) {
      const per = a.environment === 'test' ? 'hour (test key)' : `minute (${a.plan} plan)`;
      throw new VerityError('RATE_LIMITED', `Rate limit of ${d.limit} requests per ${per} reached; retry in ${d.resetSeconds} s`, {
        retryAfter: d.resetSeconds,
      });
    }
  }
  const needAuth = (request: FastifyRequest): AuthInfo => {
    const a = request.auth;
    if (!a) throw new VerityError('UNAUTHORIZED', 'Missing API key: send `Authorization: Bearer <API_KEY>`');
    return a;
  };
  async function authenticate(request: FastifyRequest): Promise<void> {
    request.auth = await auth.authenticate(request.headers.authorization);
  }
  async function applyRateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const a = needAuth(request);
    limitHeaders(a, await store.takeRate(a.keyId, policyFor(a), clock.now().getTime()), reply);
  }
  const idempotency = createIdempotency(store, clock);
  const context: ServerContext = {
    get db() {
      if (!store.sqlite) throw new TypeError(`app.verity.db is the SQLite handle; this server runs on ${store.kind} (use app.verity.store)`);
      return store.sqlite;
    },
    store,
    clock,
    idempotency,
    requireAuth: (request) => authenticate(request),
    rateLimit: (request, reply) => applyRateLimit(request, reply),
  };
  app.decorate('verity', context);
  app.decorateRequest('auth', null);

  // Callback-style hooks (no promise per request); log objects are built only when the level is on
  // (the level is fixed for the server's life).
  const levels = app.log as unknown as { isLevelEnabled(level: string): boolean };
  const logDebug = levels.isLevelEnabled('debug');
  const logInfo = levels.isLevelEnabled('info');
  if (logDebug)
    app.addHook('onRequest', (request, _reply, done) => {
      request.log.debug({ method: request.method, url: redactUrl(request.url) }, 'incoming request');
      done();
    });
  // (Registered only when the line is written: a hook that does nothing still runs per request.)
  if (logInfo)
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info(
        {
          method: request.method,
          // Path only, with anything key-shaped masked: a key sent in a query string or a path
          // (by mistake or by an attacker's probe) must never land in the log.
          url: redactUrl(request.url),
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          key: request.auth?.keyPrefix,
        },
        'request',
      );
      done();
    });
  // During shutdown, answers to in-flight requests close their connection, so a keep-alive
  // socket does not hold the process open until its idle timeout.
  let shuttingDown = false;
  app.addHook('preClose', async () => {
    shuttingDown = true;
    // fastify closes the listener right after the preClose hooks; by the next macrotask it is shut.
    setImmediate(() => app.log.info('stopped accepting connections; finishing in-flight requests'));
  });
  // Every answer that goes through fastify names its request id (set here rather than in an
  // onRequest hook: one hook per request instead of two).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });
  // In-flight requests have finished; commit deferred writes (last-used times) before the store closes.
  app.addHook('onClose', async () => {
    await store.flush();
    auth.close();
  });
  app.setErrorHandler((err, request, reply) => sendError(err, request, reply, (e) => store.noteFault(e), (e) => store.faultCause(e)));
  app.setNotFoundHandler((request, reply) =>
    sendError(new VerityError('NOT_FOUND', `No route ${request.method} ${redactUrl(request.url.split("?")[0]!)}`), request, reply),
  );

  app.get('/healthz', async (_request, reply) => {
    const fault = await store.health();
    if (fault) throw new VerityError('UNAVAILABLE', `The store cannot take writes (${fault})`, { retryAfter: 30 });
    return reply.send({ status: 'ok', version: VERSION, store: store.kind });
  });
  let openapi: string | undefined;
  app.get('/v1/openapi.json', async (_request, reply) => {
    openapi ??= JSON.stringify(buildOpenApi());
    return reply.type('application/json; charset=utf-8').send(openapi);
  });

  const ledger = createLedger(store, clock, deps);
  registerVerifyRoutes(app, {
    engines: deps.engines,
    ledger,
    idempotency,
    // Authentication then rate limit as one callback hook. An in-process store (SQLite) answers
    // synchronously: no promise per check on the hot path.
    guard: sync
      ? (request, reply, done) => {
          try {
            const now = clock.now(); // one reading for the last-used time and the window
            const a = auth.authenticateSync(request.headers.authorization, now);
            request.auth = a;
            limitHeaders(a, sync.takeRate(a.keyId, policyFor(a), now.getTime()), reply);
          } catch (err) {
            return done(err as Error);
          }
          done();
        }
      : store.admit
        ? (request, reply, done) => {
            // One round trip: the key and, for a valid key, the rate take under its policy.
            let hash: string;
            try {
              hash = auth.keyHash(request.headers.authorization);
            } catch (err) {
              return done(err as Error);
            }
            store.admit!(hash, policies, clock.now().getTime())
              .then((r) => {
                const a = auth.admit(r.key);
                request.auth = a;
                limitHeaders(a, r.decision!, reply);
              })
              .then(() => done(), done);
          }
        : (request, reply, done) => {
            authenticate(request)
              .then(() => applyRateLimit(request, reply))
              .then(() => done(), done);
          },
  });

  await app.register(batchesPlugin({ store, engines: deps.engines, ledger, idempotency, clock, hooks: deps, ...(deps.batchSpoolDir ? { spoolDir: deps.batchSpoolDir } : {}) }));
  for (const plugin of deps.plugins ?? []) await app.register(async (child) => plugin(child));
  return app;
}
