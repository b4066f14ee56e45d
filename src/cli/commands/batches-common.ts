/** What the `verity batches …` commands share: the remote batch client, ids, rendering. */
import type { Batch } from '../../api/batches.js';
import { VerityError } from '../../api/errors.js';
import type { BatchClient } from '../../client/batches.js';
import type { Output } from '../../output/output.js';
import type { CliRuntime } from '../runtime.js';

/** Batches live on a server: embedded mode has none (its batches are `verity verify batch` runs). */
export async function batchClient(rt: CliRuntime): Promise<BatchClient> {
  const connection = await rt.connection();
  if (connection.mode !== 'remote')
    throw new VerityError('VALIDATION_FAILED', '`verity batches` talks to a server: give --remote URL (or set VERITY_BASE_URL)', {
      details: [{ field: 'remote', issue: 'required for server batches' }],
    });
  const [{ createBatchClient }, { userAgent }, { retryLine }] = await Promise.all([
    import('../../client/batches.js'),
    import('../../engine/default-ports.js'),
    import('../retry-notice.js'),
  ]);
  return createBatchClient({
    baseUrl: connection.baseUrl,
    apiKey: connection.key?.value,
    userAgent: userAgent(),
    signal: rt.ctx.interrupted,
    onRetry: (n) => rt.out.warn(retryLine(n)),
  });
}

export function batchIdArgument(value: string | undefined): string {
  if (!value || !/^bat_[0-9A-Za-z]+$/.test(value))
    throw new VerityError('VALIDATION_FAILED', `Expected a batch id (bat_…), got "${value ?? ''}"`, {
      details: [{ field: 'batch-id', issue: 'must look like bat_…' }],
    });
  return value;
}

export function renderBatch(b: Batch, out: Output): string {
  const s = out.style;
  const c = b.request_counts;
  const status = b.status === 'completed' ? s.green(b.status) : b.status === 'partial' || b.status === 'cancelled' ? s.yellow(b.status) : b.status;
  const counts = `${c.succeeded + c.failed + c.cancelled}/${c.total} done: ${c.succeeded} succeeded, ${c.failed} failed${c.cancelled ? `, ${c.cancelled} cancelled` : ''}`;
  const meta = b.metadata && Object.keys(b.metadata).length ? `\n  metadata: ${Object.entries(b.metadata).map(([k, v]) => `${k}=${v}`).join(' ')}` : '';
  return `${b.id}  ${b.type}  ${status}\n  ${counts}; ${b.credits_used} credits\n  created ${b.created_at}${b.completed_at ? `, finished ${b.completed_at}` : ''}${meta}`;
}
