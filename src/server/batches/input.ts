/**
 * Validating a batch request (POST /v1/batches): a JSON object
 * `{type, items:[{custom_id, …request}], metadata}`, or NDJSON lines read as they arrive
 * (stream.ts: one item per line; `type` in the query, or a first line `{"type": …, "metadata": …}`
 * without a custom_id), each line checked here as it comes (itemChecker). Every item is
 * checked with the same schema as the single endpoint before anything is stored or charged (a
 * streamed batch's files wait in a staging folder until then), and
 * every problem is named by position: `items[12].claim`.
 */
import type { z } from 'zod';
import { VerityError, type ErrorDetail } from '../../api/errors.js';
import { issueDetails, otherKind } from '../../api/issue-text.js';
import type { VerificationKind } from '../../api/ids.js';
import { creditsFor, OPENCORPORATES_PLAN, planAtLeast, REQUIRED_PLAN } from '../../api/plans.js';
import { BusinessRequest, ClaimRequest, DocumentRequest, MediaRequest } from '../../api/requests.js';
import type { AuthInfo } from '../types.js';
import { CUSTOM_ID, limitsFor, MAX_DETAILS } from './limits.js';

export const BATCH_TYPES = ['claim', 'business', 'media', 'document'] as const satisfies readonly VerificationKind[];

const SCHEMAS: Record<VerificationKind, z.ZodType> = { claim: ClaimRequest, business: BusinessRequest, media: MediaRequest, document: DocumentRequest };

export const METADATA_MAX_KEYS = 16;
const METADATA_KEY = /^[\x21-\x7e]{1,64}$/;
const METADATA_VALUE_MAX = 512;

export interface ParsedBatch {
  type: VerificationKind;
  metadata: Record<string, string> | null;
  items: Array<{ custom_id: string; request: Record<string, unknown>; credits: number }>;
}

const fail = (message: string, details: ErrorDetail[]): VerityError => new VerityError('VALIDATION_FAILED', message, { details });

function checkMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw fail('Invalid metadata: must be an object of strings', [{ field: 'metadata', issue: 'must be an object of string values' }]);
  const entries = Object.entries(value as Record<string, unknown>);
  const details: ErrorDetail[] = [];
  if (entries.length > METADATA_MAX_KEYS) details.push({ field: 'metadata', issue: `at most ${METADATA_MAX_KEYS} keys` });
  for (const [k, v] of entries.slice(0, METADATA_MAX_KEYS)) {
    if (!METADATA_KEY.test(k)) details.push({ field: `metadata.${k.slice(0, 64)}`, issue: 'keys are 1 to 64 visible ASCII characters' });
    else if (typeof v !== 'string' || v.length > METADATA_VALUE_MAX)
      details.push({ field: `metadata.${k}`, issue: `must be a string of at most ${METADATA_VALUE_MAX} characters` });
  }
  if (details.length) throw fail(`Invalid ${details[0]!.field}: ${details[0]!.issue}`, details);
  return Object.fromEntries(entries) as Record<string, string>;
}

/** The batch's type for this key (403 below its plan) and its metadata: what every form checks first. */
export function checkHead(typeValue: unknown, metadataValue: unknown, auth: Pick<AuthInfo, 'plan'>): { type: VerificationKind; metadata: Record<string, string> | null } {
  if (typeof typeValue !== 'string' || !(BATCH_TYPES as readonly string[]).includes(typeValue))
    throw fail(`Invalid type: must be one of ${BATCH_TYPES.join(', ')}`, [{ field: 'type', issue: `one of ${BATCH_TYPES.join(', ')}` }]);
  const type = typeValue as VerificationKind;
  const needed = REQUIRED_PLAN[type];
  if (!planAtLeast(auth.plan, needed))
    throw new VerityError('FORBIDDEN', `${type} verification needs the ${needed} plan or higher; this key's account is on ${auth.plan}`, {
      requiredPlan: needed,
    });
  return { type, metadata: checkMetadata(metadataValue) };
}

/**
 * Checks items one at a time, as they arrive (the streamed NDJSON form reads them so): custom_id
 * present and unique, the request valid for the type, the plan's item limit. Problems collect in
 * `details` (the first MAX_DETAILS); `throwIfAny()` turns them into one error naming each.
 */
export function itemChecker(type: VerificationKind, auth: Pick<AuthInfo, 'plan'>) {
  const limits = limitsFor(auth.plan);
  const details: ErrorDetail[] = [];
  const add = (d: ErrorDetail): void => void (details.length < MAX_DETAILS && details.push(d));
  const seen = new Map<string, number>();
  let count = 0;
  const tooMany = (n: number): VerityError =>
    fail(`A batch holds at most ${limits.maxItems} items on the ${auth.plan} plan; this one has ${n}`, [
      { field: 'items', issue: `at most ${limits.maxItems} items on the ${auth.plan} plan` },
    ]);
  return {
    details,
    tooMany,
    /** The item's checked request and price; undefined when it has problems (now in `details`). `at` names it. */
    check(raw: unknown, i: number, at = `items[${i}]`): ParsedBatch['items'][number] | undefined {
      if (++count > limits.maxItems) throw tooMany(count);
      const before = details.length;
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        add({ field: at, issue: 'must be an object' });
        return undefined;
      }
      const { custom_id, ...request } = raw as Record<string, unknown>;
      if (typeof custom_id !== 'string' || !CUSTOM_ID.test(custom_id)) add({ field: `${at}.custom_id`, issue: 'required: 1 to 64 visible ASCII characters' });
      else if (seen.has(custom_id)) add({ field: `${at}.custom_id`, issue: `duplicate of items[${seen.get(custom_id)}].custom_id` });
      else seen.set(custom_id, i);
      const parsed = SCHEMAS[type].safeParse(request);
      if (!parsed.success) {
        const issues = issueDetails(parsed.error.issues);
        // An item of another kind is one problem naming the kind, not one per field it has.
        const other = otherKind(type, issues);
        if (other) add({ field: at, issue: `${other.text}: send it in a batch of type ${other.kind}` });
        else for (const d of issues) add({ field: `${at}.${d.field === '(body)' ? '(item)' : d.field}`, issue: d.issue });
      } else if (type === 'business') {
        const sources = (request as { sources?: unknown }).sources;
        if (Array.isArray(sources) && sources.includes('opencorporates') && !planAtLeast(auth.plan, OPENCORPORATES_PLAN))
          throw new VerityError('FORBIDDEN', `${at}: the opencorporates source needs the ${OPENCORPORATES_PLAN} plan; this key's account is on ${auth.plan}`, {
            requiredPlan: OPENCORPORATES_PLAN,
          });
      }
      if (details.length > before || details.length >= MAX_DETAILS) return undefined;
      return { custom_id: custom_id as string, request, credits: creditsFor(type, request as { officers?: boolean; filings?: boolean }) };
    },
    get count(): number {
      return count;
    },
    throwIfAny(): void {
      if (!details.length) return;
      const more = details.length >= MAX_DETAILS ? ` (the first ${MAX_DETAILS} problems are listed)` : '';
      throw fail(`Invalid ${details[0]!.field}: ${details[0]!.issue}${more}`, details);
    },
  };
}

/**
 * Validates the whole batch for this key: type and plan (403), size (per plan), every item
 * (custom_id present, unique, and the request valid for the type). Throws one error naming every
 * bad field (the first MAX_DETAILS of them); returns the items with their credit prices.
 */
export function validateBatch(body: unknown, auth: Pick<AuthInfo, 'plan'>): ParsedBatch {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new VerityError('INVALID_REQUEST', 'The request body must be a JSON object (or NDJSON lines with Content-Type: application/x-ndjson)');
  const b = body as { type?: unknown; items?: unknown; metadata?: unknown };
  const unknownKeys = Object.keys(b).filter((k) => k !== 'type' && k !== 'items' && k !== 'metadata');
  if (unknownKeys.length) throw fail(`Unknown field ${unknownKeys[0]}`, unknownKeys.map((k) => ({ field: k, issue: 'is not a batch field' })));
  const { type, metadata } = checkHead(b.type, b.metadata, auth);
  if (!Array.isArray(b.items)) throw fail('Invalid items: must be an array of requests', [{ field: 'items', issue: 'must be an array' }]);
  if (b.items.length === 0) throw fail('Invalid items: the batch has no items', [{ field: 'items', issue: 'must hold at least one item' }]);
  const checker = itemChecker(type, auth);
  if (b.items.length > limitsFor(auth.plan).maxItems) throw checker.tooMany(b.items.length);
  const items: ParsedBatch['items'] = [];
  b.items.forEach((raw, i) => {
    const item = checker.check(raw, i);
    if (item) items.push(item);
  });
  checker.throwIfAny();
  return { type, metadata, items };
}
