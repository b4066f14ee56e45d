/**
 * createEngine(ports) → the four operations. Validation, ids, latency and credits are done here
 * once for every operation; the operation modules compute only the result's substance and are
 * imported lazily, so a claim check never loads sharp or pdf.js.
 */
import { validationError } from '../api/errors.js';
import { verificationId, type VerificationKind } from '../api/ids.js';
import { creditsFor } from '../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../api/requests.js';
import type { z } from 'zod';
import type { Computed, Engine, EnginePorts, Operations, VerifyOptions } from './types.js';

export type { Engine, EnginePorts, VerifyOptions } from './types.js';

type Loader = () => Promise<Operations>;

const liveOperations: Loader = async () => ({
  claim: async (req, ports, opts) => (await import('./claim/verify.js')).verifyClaim(req, ports, opts),
  business: async (req, ports, opts) => (await import('./business/verify.js')).verifyBusiness(req, ports, opts),
  media: async (req, ports, opts) => (await import('./media/verify.js')).verifyMedia(req, ports, opts),
  document: async (req, ports, opts) => (await import('./document/verify.js')).verifyDocument(req, ports, opts),
});

const sandboxOperations: Loader = async () => (await import('./sandbox/index.js')).sandboxOperations;

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(r.error);
  return r.data;
}

function build(ports: EnginePorts, load: Loader): Engine {
  // Loaded on first use, then kept: a dynamic import() per call costs microseconds even when the
  // module is cached (a promise and a loader look-up), which the sandbox pays under load tests.
  let loaded: Operations | undefined;
  async function run<Req extends object, R>(
    kind: VerificationKind,
    schema: z.ZodType<Req>,
    input: unknown,
    opts: VerifyOptions,
    op: (ops: Operations) => (req: Req, ports: EnginePorts, opts: VerifyOptions) => Promise<Computed<R>>,
  ): Promise<R> {
    // Inside the async function, so a validation error rejects the promise instead of throwing.
    const req = opts.validated ? (input as Req) : parse(schema, input);
    const started = performance.now();
    const computed = await op(loaded ?? (loaded = await load()))(req, ports, opts);
    const latency_ms = Math.round((performance.now() - started) * 10) / 10;
    return {
      id: verificationId(kind),
      ...computed,
      latency_ms,
      credits_used: creditsFor(kind, req as { officers?: boolean; filings?: boolean }),
    } as R;
  }
  return {
    verifyClaim: (input, opts = {}) => run('claim', ClaimRequest, input, opts, (o) => o.claim),
    verifyBusiness: (input, opts = {}) => run('business', BusinessRequest, input, opts, (o) => o.business),
    verifyMedia: (input, opts = {}) => run('media', MediaRequest, input, opts, (o) => o.media),
    verifyDocument: (input, opts = {}) => run('document', DocumentRequest, input, opts, (o) => o.document),
  };
}

/** The real engine: live sources and analyzers. */
export const createEngine = (ports: EnginePorts): Engine => build(ports, liveOperations);

/** SPEC 5.2 sandbox: simulated, deterministic data, no network (README "Sandbox triggers"). */
export const createSandboxEngine = (ports: EnginePorts): Engine => build(ports, sandboxOperations);
