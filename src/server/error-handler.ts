/**
 * Every failure leaves the server as the API's error body with its catalogue status
 * (DESIGN.md "Errors"): VerityErrors as they are, fastify's body-parsing failures mapped to
 * INVALID_REQUEST / PAYLOAD_TOO_LARGE / UNSUPPORTED_MEDIA_TYPE, anything else INTERNAL_ERROR
 * without internals in the message (the stack goes to the log only).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../api/requests.js';
import { VerityError } from '../api/errors.js';
import { storageFaultCause, storageRetryAfterSeconds } from '../domain/storage-faults.js';

export function toHttpError(err: unknown, faultCause: (err: unknown) => string | undefined = storageFaultCause): VerityError {
  if (err instanceof VerityError) return err;
  const e = err as Partial<FastifyError> & { name?: string };
  const fault = faultCause(err);
  if (fault) return new VerityError('UNAVAILABLE', `The service cannot store data right now (${fault}); retry later`, { retryAfter: storageRetryAfterSeconds(err), cause: err });
  switch (e.code) {
    // fastify's own refusals, in the API's shape with catalogue codes (docs/server.md "Errors").
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new VerityError('VALIDATION_FAILED', 'A path parameter is longer than 100 characters', {
        details: [{ field: 'path', issue: 'each path parameter is at most 100 characters' }],
      });
    case 'FST_ERR_BAD_URL':
      return new VerityError('INVALID_REQUEST', 'The request path is not valid (bad percent-encoding)');
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new VerityError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with `Content-Type: application/json`');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new VerityError('PAYLOAD_TOO_LARGE', `The request body is larger than ${LIMITS.jsonBodyBytes / 1048576} MB`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new VerityError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with `Content-Type: application/json`');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new VerityError('INVALID_REQUEST', 'The request body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new VerityError('INVALID_REQUEST', 'The request body is not valid JSON');
  }
  if (e.statusCode === 408) return new VerityError('INVALID_REQUEST', 'The request was not received in time');
  if (e.statusCode === 414) return new VerityError('VALIDATION_FAILED', 'The request path is too long');
  if (e.statusCode === 413) return new VerityError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (e.statusCode === 415) return new VerityError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with `Content-Type: application/json`');
  // secure-json-parse raises SyntaxError with statusCode 400 for malformed JSON.
  if (e.statusCode === 400) return new VerityError('INVALID_REQUEST', e.name === 'SyntaxError' ? 'The request body is not valid JSON' : 'Malformed request');
  return new VerityError('INTERNAL_ERROR', 'Unexpected internal error', { cause: err });
}

/** Status, Retry-After and the error body for one failure. */
export function sendError(
  err: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  onStorageFault?: (err: unknown) => void,
  faultCause: (err: unknown) => string | undefined = storageFaultCause,
): FastifyReply {
  const e = toHttpError(err, faultCause);
  if (e.code === 'INTERNAL_ERROR') request.log.error({ err: e.cause ?? err }, 'internal error');
  else if (e.code === 'UNAVAILABLE' && faultCause(err)) {
    // The operator needs the code (and SQLite's words); the caller gets the short cause only.
    request.log.error({ code: (err as { code?: string }).code, detail: (err as Error).message }, 'storage fault');
    onStorageFault?.(err);
  }
  if ((e.status === 409 || e.status === 429 || e.status === 503) && e.retryAfter !== undefined) reply.header('retry-after', String(Math.ceil(e.retryAfter)));
  return reply.code(e.status).type('application/json; charset=utf-8').send(JSON.stringify(e.toBody()));
}
