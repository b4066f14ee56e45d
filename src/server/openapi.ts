/**
 * GET /v1/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the server
 * validates with (src/api), so the document cannot drift from the behaviour.
 */
import { z } from 'zod';
import { ERROR_CATALOGUE, ErrorBody } from '../api/errors.js';
import { REQUIRED_PLAN } from '../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../api/requests.js';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../api/results.js';
import { Webhook, WebhookConfig } from '../api/webhooks.js';
import { VERSION } from '../version.js';
import { batchOpenApi } from './batches/openapi.js';
import { eventStreamOpenApi } from './event-stream-openapi.js';

type Schema = Record<string, unknown>;
function json(s: z.ZodType, io: 'input' | 'output'): Schema {
  // Component schemas live inside the OpenAPI document, whose dialect is 2020-12 already.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Schema;
  return schema;
}

const OPERATIONS = [
  { kind: 'claim', req: ClaimRequest, res: ClaimResult, summary: 'Verify a claim' },
  { kind: 'business', req: BusinessRequest, res: BusinessResult, summary: 'Verify a company' },
  { kind: 'media', req: MediaRequest, res: MediaResult, summary: 'Check an image or video' },
  { kind: 'document', req: DocumentRequest, res: DocumentResult, summary: 'Analyse a document' },
] as const;

const cap = (s: string): string => s[0]!.toUpperCase() + s.slice(1);

export function buildOpenApi(): Schema {
  const schemas: Record<string, Schema> = { Error: json(ErrorBody, 'output') };
  const paths: Record<string, Schema> = {};
  const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  for (const op of OPERATIONS) {
    const name = cap(op.kind);
    schemas[`${name}Request`] = json(op.req, 'input');
    schemas[`${name}Result`] = json(op.res, 'output');
    const responses: Record<string, Schema> = {
      '200': { description: `${name} result`, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Result` } } } },
    };
    for (const [code, e] of Object.entries(ERROR_CATALOGUE)) {
      if (code === 'NOT_FOUND' && op.kind !== 'business') continue;
      const status = String(e.status);
      const prior = responses[status] as { description: string } | undefined;
      responses[status] = { ...errorRef, description: prior ? `${prior.description}; ${code}: ${e.meaning}` : `${code}: ${e.meaning}` };
    }
    paths[`/v1/verify/${op.kind}`] = {
      post: {
        operationId: `verify${name}`,
        summary: op.summary,
        description: `Needs the ${REQUIRED_PLAN[op.kind]} plan or higher. Optional \`Idempotency-Key\` header: a retry with the same key returns the first response without charging again (24 h).`,
        security: [{ bearer: [] }],
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}Request` } } } },
        responses,
      },
    };
  }
  // Batches (issue 15): their own module.
  const batches = batchOpenApi(errorRef);
  Object.assign(schemas, batches.schemas);
  Object.assign(paths, batches.paths);
  // The event stream (issue 29): its own module.
  const stream = eventStreamOpenApi(errorRef);
  Object.assign(schemas, stream.schemas);
  Object.assign(paths, stream.paths);
  Object.assign(paths, webhookPaths(schemas, errorRef));
  paths['/healthz'] = {
    get: { operationId: 'health', summary: 'Liveness and store check', responses: { '200': { description: 'ok' }, '503': { description: 'store unavailable' } } },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'verity', version: VERSION, description: 'Verification service: claims, companies, media and documents (SPEC.md).' },
    servers: [{ url: '/' }],
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'vty_live_… or vty_test_…' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

/** The webhook registration routes (src/server/webhook-routes.ts); the rest are in docs/webhooks.md. */
function webhookPaths(schemas: Record<string, Schema>, errorRef: Schema): Record<string, Schema> {
  schemas.WebhookConfig = json(WebhookConfig, 'input');
  schemas.Webhook = json(Webhook, 'output');
  const one = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Webhook' } } } };
  const errors = { '400': { ...errorRef, description: 'VALIDATION_FAILED' }, '401': { ...errorRef, description: 'UNAUTHORIZED' } };
  const idParam = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  return {
    '/v1/webhooks': {
      post: {
        operationId: 'createWebhook',
        summary: 'Register a webhook (SPEC 4.5)',
        description:
          '`signature_scheme`: `verity` (default; `X-Service-Signature: sha256=<hex>`, SPEC 6.3, any 32–256 character secret) or `standard` ' +
          '(Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`; the secret is `whsec_` + base64 of 24–64 bytes). ' +
          'Without `secret` one is generated in the scheme\'s format and returned once.',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookConfig' } } } },
        responses: { '201': { description: 'the webhook, with its secret (shown only here)', ...one }, ...errors },
      },
      get: {
        operationId: 'listWebhooks',
        summary: "The key's webhooks (no secrets)",
        responses: {
          '200': {
            description: 'webhooks',
            content: { 'application/json': { schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Webhook' } } } } } },
          },
          '401': errors['401'],
        },
      },
    },
    '/v1/webhooks/{id}': { get: { operationId: 'getWebhook', summary: 'One webhook', parameters: idParam, responses: { '200': { description: 'webhook', ...one }, '404': { ...errorRef, description: 'NOT_FOUND' } } } },
    '/v1/webhooks/{id}/rotate-secret': {
      post: {
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret (given or generated, in the scheme\'s format)',
        description: 'A `standard` webhook is signed with the new and the previous secret (two `v1,` signatures) until `previous_secret_expires_at` (24 h).',
        parameters: idParam,
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { secret: { type: 'string' } }, additionalProperties: false } } } },
        responses: { '200': { description: 'the webhook with its new secret', ...one }, ...errors, '404': { ...errorRef, description: 'NOT_FOUND' } },
      },
    },
  };
}
