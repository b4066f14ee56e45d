/**
 * createEngine(ports) → the four operations. Validation, ids, latency and credits are done here
 * once for every operation; the operation modules compute only the result's substance and are
 * imported lazily, so a claim check never loads sharp or pdf.js.
 */
import { validationError, VerityError } from '../api/errors.js';
import { verificationId, type VerificationKind } from '../api/ids.js';
import { creditsFor } from '../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../api/requests.js';
import type { z } from 'zod';
import { INPUT_BYTES_FIELD, readInputFile, withInlineBytes } from './inputs.js';
import type { Computed, Engine, EnginePorts, Operations, VerifyOptions } from './types.js';

export type { Engine, EnginePorts, VerifyOptions } from './types.js';

type Loader = () => Promise<Operations>;

/**
 * The operations that read `VerifyOptions.inputBytes` themselves (through inputs.ts
 * `uploadedBytes`); the others get the bytes put back into the request as base64.
 */
type ReadsInputBytes = Partial<Record<keyof typeof INPUT_BYTES_FIELD, true>>;
const LIVE_READS_INPUT_BYTES: ReadsInputBytes = { media: true, document: true };

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

/**
 * What the request schema sees when the bytes come as `inputBytes`: a stand-in of valid base64 in
 * their field, so every other rule (one input only, `source: upload`) is checked as on the wire.
 * Operations never decode it: they read the bytes (uploadedBytes), or get them re-inserted.
 */
const INPUT_BYTES_STAND_IN = 'AA==';

function withStandIn(kind: VerificationKind, input: unknown, bytes: Buffer): unknown {
  if (kind !== 'media' && kind !== 'document')
    throw new VerityError('INTERNAL_ERROR', `inputBytes is for media and document requests, not ${kind}`);
  const r = input as Record<string, unknown>;
  if (kind === 'document' && r.source !== 'upload')
    throw new VerityError('VALIDATION_FAILED', 'A document given as bytes needs source "upload"', { details: [{ field: 'source', issue: 'must be "upload" for a file' }] });
  const field = INPUT_BYTES_FIELD[kind];
  if (r[field] !== undefined)
    throw new VerityError('VALIDATION_FAILED', `Give the file either as bytes or as \`${field}\`, not both`, { details: [{ field, issue: 'given twice' }] });
  // No bytes: the empty string, which the schema refuses as it refuses an empty `file` on the wire.
  return { ...r, [field]: bytes.length ? INPUT_BYTES_STAND_IN : '' };
}

function build(ports: EnginePorts, load: Loader, readsInputBytes: ReadsInputBytes = {}): Engine {
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
    // A file to read here (VerifyOptions.inputFile): from now on it is as if its bytes were given.
    if (opts.inputFile !== undefined && !opts.inputBytes) opts = { ...opts, inputBytes: await readInputFile(opts.inputFile), inputFile: undefined };
    // Inside the async function, so a validation error rejects the promise instead of throwing.
    const bytes = opts.inputBytes;
    let req = opts.validated ? (input as Req) : parse(schema, bytes ? withStandIn(kind, input, bytes) : input);
    if (bytes && !readsInputBytes[kind as keyof ReadsInputBytes]) {
      req = withInlineBytes(kind as keyof ReadsInputBytes, req, bytes);
      opts = { ...opts, inputBytes: undefined };
    }
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
export const createEngine = (ports: EnginePorts): Engine => build(ports, liveOperations, LIVE_READS_INPUT_BYTES);

/** SPEC 5.2 sandbox: simulated, deterministic data, no network (README "Sandbox triggers"). */
export const createSandboxEngine = (ports: EnginePorts): Engine => build(ports, sandboxOperations);
