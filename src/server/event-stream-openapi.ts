/**
 * The event stream's part of GET /v1/openapi.json (issue 29): the request bodies from the same zod
 * schemas the routes validate with; the stream's messages described (SSE has no OpenAPI schema
 * of its own: each `data:` line is one JSON object, documented here and in docs/webhooks.md).
 */
import { z } from 'zod';
import { EVENT_TYPES } from '../api/webhooks.js';
import { STREAM_MAX_PER_ACCOUNT, STREAM_RENEW_MS, STREAM_RETENTION_SECONDS, STREAM_ROUTES_PER_SESSION } from '../domain/event-stream.js';
import { ResultBody, TriggerBody } from './event-stream-routes.js';

type Schema = Record<string, unknown>;
const json = (s: z.ZodType): Schema => {
  const { $schema: _d, ...schema } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Schema;
  return schema;
};

export function eventStreamOpenApi(errorRef: Schema): { schemas: Record<string, Schema>; paths: Record<string, Schema> } {
  const err = (description: string): Schema => ({ ...errorRef, description });
  const result = { type: 'object', properties: { event_id: { type: 'string' }, route: { type: ['string', 'null'] }, status: { type: ['integer', 'null'] }, latency_ms: { type: ['integer', 'null'] }, error: { type: ['string', 'null'] }, at: { type: 'string' } } };
  const schemas: Record<string, Schema> = {
    StreamResult: json(ResultBody),
    TriggerRequest: { ...json(TriggerBody), properties: { type: { type: 'string', enum: [...EVENT_TYPES] } } },
    StreamSessions: {
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              session_id: { type: 'string' },
              opened_at: { type: 'string' },
              closed_at: {
                type: ['string', 'null'],
                description: 'When the stream ended; for a `lost` session, when it was last seen. Null while open.',
              },
              last_seen_at: { type: 'string', description: `Last renewal by the serve process holding the stream (every ${STREAM_RENEW_MS / 1000} s while open)` },
              state: {
                type: 'string',
                enum: ['open', 'closed', 'lost'],
                description:
                  '`open`: held by a serve process that renewed it lately; `closed`: ended (client gone, server shut down, reader cut); ' +
                  '`lost`: not closed but not renewed for over twice the renewal interval plus a keep-alive tick — its serve process was killed or lost its database.',
              },
              events: { type: 'array', items: { type: 'string' } },
              environment: { type: 'string', enum: ['live', 'test'] },
              results: { type: 'array', items: result },
            },
          },
        },
      },
    },
  };
  const paths: Record<string, Schema> = {
    '/v1/events/stream': {
      get: {
        operationId: 'streamEvents',
        summary: 'Stream the account’s events (Server-Sent Events)',
        description:
          'Messages: `session` first ({session_id, secret, signature_scheme, environment, events, retention_seconds, resumed_after}), ' +
          '`missed` when a resume cannot start where asked, then one message per event (`id:` the event id, `event:` its type, data ' +
          '{id, type, created_at, headers, body}: the exact body a delivery POSTs and its headers, signed with the stream secret), ' +
          `\`: ping\` comments. The key's environment decides which events are seen. Resume with \`Last-Event-ID\` within ${STREAM_RETENTION_SECONDS} s. ` +
          `At most ${STREAM_MAX_PER_ACCOUNT} open streams per account per server process.`,
        parameters: [
          { name: 'events', in: 'query', required: false, schema: { type: 'string' }, description: `Comma list of: ${EVENT_TYPES.join(', ')}` },
          { name: 'last_event_id', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          '400': err('VALIDATION_FAILED: an unknown event type'),
          '401': err('UNAUTHORIZED'),
          '429': err('RATE_LIMITED: the key’s rate limit, or too many open streams'),
        },
      },
    },
    '/v1/events/stream/sessions': {
      get: {
        operationId: 'listStreamSessions',
        summary: 'The account’s latest stream sessions (key’s environment) with what the local apps answered',
        parameters: [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } }],
        responses: { '200': { description: 'Sessions, newest first', content: { 'application/json': { schema: { $ref: '#/components/schemas/StreamSessions' } } } }, '401': err('UNAUTHORIZED') },
      },
    },
    '/v1/events/stream/sessions/{id}/results': {
      post: {
        operationId: 'reportStreamResult',
        summary: 'Report what the local app answered to one streamed event',
        description:
          'Not counted against the key’s rate limit. Bounded by what was streamed instead: a result is taken only for an event of the account’s and ' +
          'environment’s event log (within retention) of a type the session takes, once per (session, event, route) — a repeat answers 204 and ' +
          `writes nothing, the first result stands — and for at most ${STREAM_ROUTES_PER_SESSION} different routes per session (null is one).`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/StreamResult' } } } },
        responses: {
          '204': { description: 'Stored, or already stored for that session, event and route (nothing written)' },
          '400': err(`VALIDATION_FAILED: a bad field, or a route past the ${STREAM_ROUTES_PER_SESSION} different routes of a session (details[].field = route)`),
          '404': err('NOT_FOUND: no such session of this account and environment, or (details[].field = event_id) an event this session does not stream'),
        },
      },
    },
    '/v1/events/trigger': {
      post: {
        operationId: 'triggerEvent',
        summary: 'Emit a sample event of a type to the account (streams and subscribed endpoints)',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/TriggerRequest' } } } },
        responses: {
          '201': { description: 'Queued', content: { 'application/json': { schema: { type: 'object', properties: { event_id: { type: 'string' }, type: { type: 'string' }, environment: { type: 'string' } } } } } },
          '400': err('VALIDATION_FAILED: an unknown event type'),
        },
      },
    },
  };
  return { schemas, paths };
}
