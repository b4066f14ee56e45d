/**
 * Every failure leaves the server as the API's error body with its catalogue status
 * (DESIGN.md "Errors"): VerityErrors as they are, fastify's body-parsing failures mapped to
 * INVALID_REQUEST / PAYLOAD_TOO_LARGE / UNSUPPORTED_MEDIA_TYPE, anything else INTERNAL_ERROR
 * without internals in the message (the stack goes to the log only).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../api/requests.js';
import { VerityError } from '../api/errors.js';

export function toHttpError(err: unknown): VerityError {
  if (err instanceof VerityError) return err;
  const e = err as Partial<FastifyError> & { name?: string };
  switch (e.code) {
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
  if (e.statusCode === 413) return new VerityError('PAYLOAD_TOO_LARGE', 'The request body is too large');
  if (e.statusCode === 415) return new VerityError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with `Content-Type: application/json`');
  // secure-json-parse raises SyntaxError with statusCode 400 for malformed JSON.
  if (e.statusCode === 400) return new VerityError('INVALID_REQUEST', e.name === 'SyntaxError' ? 'The request body is not valid JSON' : 'Malformed request');
  return new VerityError('INTERNAL_ERROR', 'Unexpected internal error', { cause: err });
}

/** Status, Retry-After and the error body for one failure. */
export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const e = toHttpError(err);
  if (e.code === 'INTERNAL_ERROR') request.log.error({ err: e.cause ?? err }, 'internal error');
  if ((e.status === 429 || e.status === 503) && e.retryAfter !== undefined) reply.header('retry-after', String(Math.ceil(e.retryAfter)));
  return reply.code(e.status).type('application/json; charset=utf-8').send(JSON.stringify(e.toBody()));
}
