import { z } from 'zod';
import { ErrorDetail, issueDetails } from './issue-text.js';

/**
 * The one error-code catalogue (DESIGN.md "Contract decisions"). Server status codes, CLI exit
 * codes and the README table all derive from this object; a test keeps the README equal to it.
 */
export const ERROR_CATALOGUE = {
  INVALID_REQUEST: { status: 400, exit: 2, meaning: 'The body is not valid JSON or not an object' },
  VALIDATION_FAILED: { status: 400, exit: 2, meaning: 'A parameter breaks a rule; `details[]` names each field' },
  UNAUTHORIZED: { status: 401, exit: 4, meaning: 'API key missing, invalid or revoked' },
  QUOTA_EXCEEDED: { status: 402, exit: 5, meaning: "The account's monthly credits are used up" },
  FORBIDDEN: { status: 403, exit: 4, meaning: "The key's plan lacks this endpoint or source; see `required_plan`" },
  NOT_FOUND: { status: 404, exit: 1, meaning: 'No such resource (or no company matched in any source)' },
  PAYLOAD_TOO_LARGE: { status: 413, exit: 2, meaning: 'Body, file, page or pixel count over the limit' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, exit: 2, meaning: 'The file is of a type this operation does not read' },
  UNPROCESSABLE_CONTENT: { status: 422, exit: 2, meaning: 'The input cannot be decoded (corrupt, truncated, empty)' },
  RATE_LIMITED: { status: 429, exit: 5, meaning: 'Too many requests; retry after `Retry-After` seconds' },
  INTERNAL_ERROR: { status: 500, exit: 1, meaning: 'An unexpected fault in the service' },
  UNAVAILABLE: { status: 503, exit: 6, meaning: 'An upstream source or the service is unavailable' },
  CONFLICT: { status: 409, exit: 5, meaning: 'A request with the same Idempotency-Key is still running; retry after `Retry-After` seconds' },
} as const satisfies Record<string, { status: number; exit: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export const PLANS = ['starter', 'pro', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export { ErrorDetail };

export const ErrorBody = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    docs: z.string().optional(),
    required_plan: z.enum(PLANS).optional(),
    details: z.array(ErrorDetail).optional(),
    retry_after: z.number().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const DOCS_BASE = 'https://verity.dev/docs';

export interface VerityErrorOptions {
  docs?: string;
  requiredPlan?: Plan;
  details?: ErrorDetail[];
  /** Seconds; sent as Retry-After on 429/503. */
  retryAfter?: number;
  cause?: unknown;
  /**
   * Where a client-side failure came from, for the CLI's hint (never serialised): `transport` when
   * the service could not be reached or answered something that is not our API, `service` when
   * the service itself answered with an error body, `local` for this machine (a port in use).
   */
  origin?: 'transport' | 'service' | 'local';
  /** A next step known where the error was raised (never serialised); the CLI prints it as the hint. */
  hint?: string;
}

/** The only error type that crosses a layer boundary; everything else becomes INTERNAL_ERROR. */
export class VerityError extends Error {
  readonly code: ErrorCode;
  readonly docs: string | undefined;
  readonly requiredPlan: Plan | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly retryAfter: number | undefined;
  readonly origin: VerityErrorOptions['origin'];
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, opts: VerityErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'VerityError';
    this.code = code;
    this.docs = opts.docs ?? (code === 'UNAUTHORIZED' ? `${DOCS_BASE}/authentication` : undefined);
    this.requiredPlan = opts.requiredPlan;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
    this.origin = opts.origin;
    this.hint = opts.hint;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  get exitCode(): number {
    return ERROR_CATALOGUE[this.code].exit;
  }

  /** The same error with a new message or options (errors are immutable once raised). */
  with(o: VerityErrorOptions & { message?: string }): VerityError {
    const { message = this.message, ...opts } = o;
    return new VerityError(this.code, message, {
      docs: this.docs,
      requiredPlan: this.requiredPlan,
      details: this.details,
      retryAfter: this.retryAfter,
      cause: this.cause,
      origin: this.origin,
      hint: this.hint,
      ...opts,
    });
  }

  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.docs) error.docs = this.docs;
    if (this.requiredPlan) error.required_plan = this.requiredPlan;
    if (this.details?.length) error.details = this.details;
    if (this.retryAfter !== undefined) error.retry_after = this.retryAfter;
    return { error };
  }

  static fromBody(body: ErrorBody, cause?: unknown): VerityError {
    const e = body.error;
    return new VerityError(e.code, e.message, {
      docs: e.docs,
      requiredPlan: e.required_plan,
      details: e.details,
      retryAfter: e.retry_after,
      cause,
    });
  }
}

/** Turns anything thrown into a VerityError, without leaking internals into the message. */
export function toVerityError(err: unknown): VerityError {
  if (err instanceof VerityError) return err;
  if (err instanceof z.ZodError) return validationError(err);
  return new VerityError('INTERNAL_ERROR', 'Unexpected internal error', { cause: err });
}

export function validationError(err: z.ZodError, prefix = ''): VerityError {
  const details = issueDetails(err.issues, prefix);
  const first = details[0];
  const message = first ? `Invalid ${first.field}: ${first.issue}` : 'Invalid request';
  return new VerityError('VALIDATION_FAILED', message, { details });
}
