/**
 * The batch wire contract (issue 15): the batch object, its list, one results line and the data
 * of `batch.completed` / `batch.partial`. The server builds these (src/server/batches), the client
 * parses them (src/client/batches.ts), the OpenAPI document is generated from them.
 */
import { z } from 'zod';
import { Timestamp } from './results.js';

export const BATCH_STATUSES = ['queued', 'running', 'cancelling', 'completed', 'partial', 'cancelled'] as const;
export const BATCH_TERMINAL = ['completed', 'partial', 'cancelled'] as const;
export const BATCH_ID = /^bat_[0-9A-Za-z]+$/;

export const Batch = z.object({
  id: z.string().regex(BATCH_ID),
  type: z.enum(['claim', 'business', 'media', 'document']),
  /** `completed`: every item succeeded; `partial`: some failed; `cancelled`: some never ran. */
  status: z.enum(BATCH_STATUSES),
  request_counts: z.object({
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    /** Additive: items that never ran because the batch was cancelled. */
    cancelled: z.number().int(),
  }),
  credits_used: z.number().int(),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
});
export type Batch = z.infer<typeof Batch>;

export const BatchList = z.object({ data: z.array(Batch), has_more: z.boolean() });
export type BatchList = z.infer<typeof BatchList>;

/** One line of GET /v1/batches/{id}/results (NDJSON). */
export const BatchResultLine = z.object({
  custom_id: z.string(),
  /** The item's position in the batch as submitted (0-based). */
  index: z.number().int(),
  /** Completion order (1-based): the cursor `after` continues after this line. */
  seq: z.number().int(),
  status: z.enum(['succeeded', 'failed', 'cancelled']),
  /** The verification result, exactly as the single endpoint answers it (succeeded). */
  result: z.record(z.string(), z.unknown()).optional(),
  /** The error body's code and message (failed). */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type BatchResultLine = z.infer<typeof BatchResultLine>;

/** `data` of `batch.completed` (every item succeeded) and `batch.partial` (some failed or were cancelled). */
export const BatchEventData = z.object({
  batch_id: z.string().regex(BATCH_ID),
  status: z.enum(BATCH_TERMINAL),
  /** The batch's type (named as in the verification events). */
  request_type: z.enum(['claim', 'business', 'media', 'document']),
  total: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
  credits_used: z.number().int(),
  created_at: Timestamp,
  completed_at: Timestamp,
  metadata: z.record(z.string(), z.string()).nullable(),
  results_url: z.string(),
});
export type BatchEventData = z.infer<typeof BatchEventData>;

/** Item fields of `verification.completed` / `verification.failed` sent for a batch item (additive). */
export const BatchItemEventFields = z.object({ batch_id: z.string().regex(BATCH_ID), custom_id: z.string() });
