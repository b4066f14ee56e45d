/** The /v1/batches part of the OpenAPI document (src/server/openapi.ts), with examples. */
import { z } from 'zod';
import { Batch, BatchList, BatchResultLine } from '../../api/batches.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../../api/requests.js';
import { BATCH_LIMITS } from './limits.js';

type Schema = Record<string, unknown>;
function json(s: z.ZodType, io: 'input' | 'output'): Schema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Schema;
  return schema;
}

const EXAMPLE_BATCH = {
  id: 'bat_5mQkT1pZr8Yw2XcV9bN3hJ4s',
  type: 'claim',
  status: 'queued',
  request_counts: { total: 2, succeeded: 0, failed: 0, cancelled: 0 },
  credits_used: 0,
  created_at: '2026-03-10T12:00:00.000Z',
  completed_at: null,
  metadata: { sheet: 'q1-claims' },
};
const EXAMPLE_DONE = { ...EXAMPLE_BATCH, status: 'partial', request_counts: { total: 2, succeeded: 1, failed: 1, cancelled: 0 }, credits_used: 1, completed_at: '2026-03-10T12:00:04.210Z' };

const limitsTable = Object.entries(BATCH_LIMITS)
  .map(([plan, l]) => `${plan}: ${l.maxItems} items, ${l.concurrentBatches} unfinished batches, ${l.itemConcurrency} items at once`)
  .join('; ');

export function batchOpenApi(errorRef: Schema): { schemas: Record<string, Schema>; paths: Record<string, Schema> } {
  const err = (description: string): Schema => ({ ...errorRef, description });
  const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^bat_[0-9A-Za-z]+$' } };
  const batchContent = (example: unknown) => ({ 'application/json': { schema: { $ref: '#/components/schemas/Batch' }, example } });
  const common = { '401': err('UNAUTHORIZED'), '429': err('RATE_LIMITED: the key\'s request limit (creating a batch is one request)') };
  // An item is the single request plus `custom_id`: the request schemas are closed
  // (additionalProperties: false), so the field is added to a copy rather than combined with allOf.
  const REQUESTS = { claim: ClaimRequest, business: BusinessRequest, media: MediaRequest, document: DocumentRequest } as const;
  const itemSchemas: Record<string, Schema> = {};
  for (const [kind, req] of Object.entries(REQUESTS)) {
    const base = json(req, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    itemSchemas[`Batch${kind[0]!.toUpperCase()}${kind.slice(1)}Item`] = {
      ...base,
      properties: { custom_id: { type: 'string', minLength: 1, maxLength: 64, description: 'your id for the item, unique in the batch' }, ...base.properties },
      required: ['custom_id', ...(base.required ?? [])],
    };
  }
  return {
    schemas: {
      Batch: json(Batch, 'output'),
      BatchList: json(BatchList, 'output'),
      BatchResultLine: json(BatchResultLine, 'output'),
      ...itemSchemas,
      BatchCreate: {
        type: 'object',
        required: ['type', 'items'],
        additionalProperties: false,
        properties: {
          type: { enum: ['claim', 'business', 'media', 'document'] },
          items: {
            type: 'array',
            minItems: 1,
            description: 'Each item is the single endpoint\'s request for `type` plus a `custom_id` (unique in the batch).',
            items: { oneOf: Object.keys(itemSchemas).map((name) => ({ $ref: `#/components/schemas/${name}` })) },
          },
          metadata: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } },
        },
      },
    },
    paths: {
      '/v1/batches': {
        post: {
          operationId: 'createBatch',
          summary: 'Create a batch of verifications',
          description:
            'Every item is validated before anything is stored (400 names each bad field as `items[N].field`); the credits of all items are reserved ' +
            'at once (402 when the batch does not fit in the month). Items then run in the background with the plan\'s item concurrency, not under the ' +
            `per-minute limit. Limits per plan — ${limitsTable}. ` +
            'NDJSON: send `Content-Type: application/x-ndjson`, one item per line, with `?type=` or a first line `{"type": …, "metadata": …}`; ' +
            'it is read as it arrives (a line at most 28 MB, the body at most 2 GB) and files are kept on the server\'s disk until their item runs, so a batch of files may exceed the 30 MB JSON limit. ' +
            'Optional `Idempotency-Key`: a retry returns the first answer (24 h) and creates nothing.',
          parameters: [
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
            { name: 'type', in: 'query', required: false, description: 'the batch type (NDJSON bodies)', schema: { enum: ['claim', 'business', 'media', 'document'] } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/BatchCreate' },
                example: {
                  type: 'claim',
                  items: [
                    { custom_id: 'row-1', claim: 'The Eiffel Tower is in Paris' },
                    { custom_id: 'row-2', claim: 'The Great Wall is visible from the Moon', sources: ['wikipedia'] },
                  ],
                  metadata: { sheet: 'q1-claims' },
                },
              },
              'application/x-ndjson': {
                schema: { type: 'string' },
                example: '{"type":"claim","metadata":{"sheet":"q1-claims"}}\n{"custom_id":"row-1","claim":"The Eiffel Tower is in Paris"}\n',
              },
            },
          },
          responses: {
            '202': {
              description: 'Accepted; `Location` names the batch',
              headers: { Location: { schema: { type: 'string' }, example: '/v1/batches/bat_5mQkT1pZr8Yw2XcV9bN3hJ4s' } },
              content: batchContent(EXAMPLE_BATCH),
            },
            '400': {
              ...errorRef,
              description: 'VALIDATION_FAILED / INVALID_REQUEST',
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/Error' },
                  example: {
                    error: {
                      code: 'VALIDATION_FAILED',
                      message: 'Invalid items[12].claim: must not be empty',
                      details: [
                        { field: 'items[12].claim', issue: 'must not be empty' },
                        { field: 'items[40].custom_id', issue: 'duplicate of items[3].custom_id' },
                      ],
                    },
                  },
                },
              },
            },
            '402': err('QUOTA_EXCEEDED: the batch\'s credits do not fit in the month (nothing stored)'),
            '403': err('FORBIDDEN: the plan lacks this type or a source (see `required_plan`)'),
            '413': err('PAYLOAD_TOO_LARGE: a JSON body over 30 MB; an NDJSON line over 28 MB or body over 2 GB'),
            '415': err('UNSUPPORTED_MEDIA_TYPE'),
            ...common,
            '429': err('RATE_LIMITED: the key\'s request limit, or the plan\'s number of unfinished batches'),
          },
        },
        get: {
          operationId: 'listBatches',
          summary: 'List batches, newest first',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'before', in: 'query', description: 'a batch id: the page continues after it', schema: { type: 'string' } },
          ],
          responses: {
            '200': { description: 'batches', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchList' }, example: { data: [EXAMPLE_DONE], has_more: false } } } },
            ...common,
          },
        },
      },
      '/v1/batches/{id}': {
        get: {
          operationId: 'getBatch',
          summary: 'A batch and its counts',
          parameters: [idParam],
          responses: { '200': { description: 'the batch', content: batchContent(EXAMPLE_DONE) }, '404': err('NOT_FOUND'), ...common },
        },
      },
      '/v1/batches/{id}/cancel': {
        post: {
          operationId: 'cancelBatch',
          summary: 'Cancel a batch',
          description:
            'Queued items are cancelled at once and items in flight are stopped (not charged); the status is `cancelling` until they have stopped, then ' +
            '`cancelled`, and one `batch.partial` event is sent. Cancelling a finished batch changes nothing.',
          parameters: [idParam],
          responses: {
            '200': { description: 'the batch after the cancel', content: batchContent({ ...EXAMPLE_BATCH, status: 'cancelling', request_counts: { total: 2, succeeded: 0, failed: 0, cancelled: 1 } }) },
            '404': err('NOT_FOUND'),
            ...common,
          },
        },
      },
      '/v1/batches/{id}/results': {
        get: {
          operationId: 'batchResults',
          summary: 'Results as NDJSON, in completion order',
          description:
            'One line per finished item: `{custom_id, index, seq, status, result | error}`. `seq` is the completion order; pass the last `seq` received as ' +
            '`after` to continue a broken download. `follow=true` keeps the stream open and writes lines as items finish, until the batch ends; it starts with an empty line and ' +
            'writes one every 15 s while idle (skip empty lines).',
          parameters: [
            idParam,
            { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'status', in: 'query', schema: { enum: ['succeeded', 'failed', 'cancelled'] } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } },
            { name: 'follow', in: 'query', schema: { type: 'boolean', default: false } },
          ],
          responses: {
            '200': {
              description: 'NDJSON lines (schema: BatchResultLine)',
              headers: {
                'Verity-Batch-Status': { schema: { type: 'string' }, description: 'the batch status when the stream started' },
                'Verity-Batch-Finished': { schema: { type: 'integer' }, description: 'items finished when the stream started' },
              },
              content: {
                'application/x-ndjson': {
                  schema: { $ref: '#/components/schemas/BatchResultLine' },
                  example:
                    '{"custom_id":"row-2","index":1,"seq":1,"status":"failed","error":{"code":"UNAVAILABLE","message":"Every source failed"}}\n' +
                    '{"custom_id":"row-1","index":0,"seq":2,"status":"succeeded","result":{"id":"vrf_clm_…","trust_score":0.91,"verdict":"true"}}\n',
                },
              },
            },
            '400': err('VALIDATION_FAILED: a query parameter'),
            '404': err('NOT_FOUND'),
            ...common,
          },
        },
      },
    },
  };
}
