/**
 * GET /v1/openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the server
 * validates with (src/api), so the document cannot drift from the behaviour.
 */
import { z } from 'zod';
import { ERROR_CATALOGUE, ErrorBody } from '../api/errors.js';
import { REQUIRED_PLAN } from '../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../api/requests.js';
import { BusinessResult, ClaimResult, DocumentResult, MediaResult } from '../api/results.js';
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
