/**
 * POST /v1/verify/{claim,business,media,document}. Order of checks: key (401, before the body is
 * read) → rate limit (429) → plan (403) → body shape and schema (400) → idempotent replay →
 * quota (402) → engine → charge + hooks in one savepoint of a group commit, committed before the
 * answer is sent. Test keys run the sandbox engine, live keys the real one, with the account's
 * plan so engines can gate plan-only sources.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { z } from 'zod';
import { toVerityError, validationError, VerityError } from '../api/errors.js';
import { verificationId, type VerificationKind } from '../api/ids.js';
import { creditsFor, OPENCORPORATES_PLAN, planAtLeast, REQUIRED_PLAN } from '../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../api/requests.js';
import type { VerificationResult } from '../api/results.js';
import type { Engine } from '../engine/types.js';
import { checkIdempotencyKey, requestHash, type Idempotency } from './idempotency.js';
import type { Ledger } from './usage.js';
import type { AuthInfo } from './types.js';

const SCHEMAS: Record<VerificationKind, z.ZodType> = {
  claim: ClaimRequest,
  business: BusinessRequest,
  media: MediaRequest,
  document: DocumentRequest,
};

const call = (engine: Engine, kind: VerificationKind, body: never, opts: { plan: AuthInfo['plan']; signal?: AbortSignal; validated?: boolean }): Promise<VerificationResult> => {
  switch (kind) {
    case 'claim':
      return engine.verifyClaim(body, opts);
    case 'business':
      return engine.verifyBusiness(body, opts);
    case 'media':
      return engine.verifyMedia(body, opts);
    case 'document':
      return engine.verifyDocument(body, opts);
  }
};

export interface VerifyRouteDeps {
  engines: { live: Engine; test: Engine };
  ledger: Ledger;
  idempotency: Idempotency;
  /** Authentication then rate limit, as one callback-style onRequest hook (before the body is read). */
  guard: (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
}

interface Outcome {
  status: number;
  body: string;
  replayed: boolean;
}

export function registerVerifyRoutes(app: FastifyInstance, deps: VerifyRouteDeps): void {
  const { engines, ledger, idempotency } = deps;

  function authorize(kind: VerificationKind, auth: AuthInfo, body: unknown): void {
    const needed = REQUIRED_PLAN[kind];
    if (!planAtLeast(auth.plan, needed))
      throw new VerityError('FORBIDDEN', `${kind} verification needs the ${needed} plan or higher; this key's account is on ${auth.plan}`, {
        requiredPlan: needed,
      });
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new VerityError('INVALID_REQUEST', 'The request body must be a JSON object');
    const sources = (body as { sources?: unknown }).sources;
    if (kind === 'business' && Array.isArray(sources) && sources.includes('opencorporates') && !planAtLeast(auth.plan, OPENCORPORATES_PLAN))
      throw new VerityError('FORBIDDEN', `The opencorporates source needs the ${OPENCORPORATES_PLAN} plan; this key's account is on ${auth.plan}`, {
        requiredPlan: OPENCORPORATES_PLAN,
      });
  }

  async function run(
    kind: VerificationKind,
    auth: AuthInfo,
    body: Record<string, unknown>,
    request: unknown,
    reply: FastifyReply,
    replay?: { key: string; hash: string },
  ): Promise<Outcome> {
    // Test keys hold nothing (their usage never blocks): no call and no await for them.
    const hold = auth.environment === 'live' ? await ledger.reserve(auth, creditsFor(kind, body as { officers?: boolean; filings?: boolean })) : undefined;
    let charged = false;
    // A caller that hangs up stops the work (and is not charged). Only the live engine waits on
    // anything (sources, downloads); the sandbox computes in microseconds without I/O and reads no
    // signal, so test keys skip the AbortController and close listener (~15 µs a request).
    let abort: AbortController | undefined;
    let onClose: (() => void) | undefined;
    if (auth.environment === 'live') {
      const controller = (abort = new AbortController());
      onClose = (): void => {
        if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'));
      };
      reply.raw.once('close', onClose);
    }
    try {
      let result: VerificationResult;
      try {
        // The request as validated by the route (not parsed a second time by the engine).
        result = await call(engines[auth.environment], kind, request as never, { plan: auth.plan, signal: abort?.signal, validated: true });
      } catch (err) {
        const e = toVerityError(err);
        if (e.status >= 500 && !abort?.signal.aborted) {
          try {
            await ledger.recordFailure(auth, kind, verificationId(kind), e);
          } catch (hookErr) {
            // The caller still gets the real failure; the lost event is logged for the operator.
            reply.log.error({ err: hookErr }, 'afterFailure hook failed');
          }
        }
        throw e;
      }
      const text = JSON.stringify(result);
      // Committed (usage, idempotency record, outbox) before the answer is sent.
      await ledger.record(auth, kind, result, hold, replay ? { ...replay, response: { status: 200, body: text } } : undefined);
      charged = true; // the commit turned the hold into usage
      return { status: 200, body: text, replayed: false };
    } finally {
      if (!charged && hold) await ledger.release(hold).catch((err: unknown) => reply.log.error({ err }, 'quota hold not released (it expires)'));
      if (onClose) reply.raw.off('close', onClose);
    }
  }

  for (const kind of ['claim', 'business', 'media', 'document'] as const) {
    app.post(
      `/v1/verify/${kind}`,
      { onRequest: deps.guard },
      async (request: FastifyRequest, reply: FastifyReply) => {
        const auth = request.auth!;
        const body = request.body;
        authorize(kind, auth, body);
        // Validate here too, so a bad request is told 400 before any quota question (402).
        const parsed = SCHEMAS[kind].safeParse(body);
        if (!parsed.success) throw validationError(parsed.error);
        const header = request.headers['idempotency-key'];
        let outcome: Outcome;
        if (typeof header === 'string') {
          checkIdempotencyKey(header);
          const hash = requestHash('POST', `/v1/verify/${kind}`, body);
          outcome = await idempotency.run(auth.accountId, header, hash, () =>
            run(kind, auth, body as Record<string, unknown>, parsed.data, reply, { key: header, hash }),
          );
        } else {
          outcome = await run(kind, auth, body as Record<string, unknown>, parsed.data, reply);
        }
        if (outcome.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(outcome.status).type('application/json; charset=utf-8').send(outcome.body);
      },
    );
  }
}
