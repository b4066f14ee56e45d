/** How a batch is shown: the API object (GET /v1/batches/{id}) and the terminal event's `data`. */
import type { Batch } from '../../api/batches.js';
import type { BatchRow } from '../../store/ports/batches.js';

export type BatchObject = Batch;

export function batchObject(b: BatchRow): BatchObject {
  return {
    id: b.id,
    type: b.type,
    status: b.status,
    request_counts: { total: b.total, succeeded: b.succeeded, failed: b.failed, cancelled: b.cancelled },
    credits_used: b.credits_used,
    created_at: b.created_at,
    completed_at: b.completed_at,
    metadata: b.metadata,
  };
}

/**
 * `batch.completed` / `batch.partial` data (docs/webhooks.md): the counts flat, as in the sample
 * events `verity webhooks trigger` sends, plus where to fetch the results.
 */
export function batchEventData(b: BatchRow): Record<string, unknown> & { id: string; status: 'completed' | 'partial' | 'cancelled' } {
  return {
    id: b.id,
    status: b.status as 'completed' | 'partial' | 'cancelled',
    request_type: b.type,
    total: b.total,
    succeeded: b.succeeded,
    failed: b.failed,
    cancelled: b.cancelled,
    credits_used: b.credits_used,
    created_at: b.created_at,
    completed_at: b.completed_at,
    metadata: b.metadata,
    results_url: `/v1/batches/${b.id}/results`,
  };
}
