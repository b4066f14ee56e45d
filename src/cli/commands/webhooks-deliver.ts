import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import type { CliRuntime } from '../runtime.js';

export default async function webhooksDeliver(rt: CliRuntime, cmd: Command): Promise<void> {
  const { watch } = cmd.opts<{ watch?: boolean }>();
  const connection = await rt.connection();
  if (connection.mode === 'remote')
    throw new VerityError('VALIDATION_FAILED', '`webhooks deliver` sends the embedded outbox; a remote service delivers its own events', {
      details: [{ field: 'remote', issue: 'use without --remote / VERITY_BASE_URL, or with --local' }],
    });
  const { openEmbeddedStore, drain } = await import('../webhooks-embedded.js');
  const store = await openEmbeddedStore(rt.ctx.paths);
  try {
    if (watch) rt.out.info('delivering due webhook events as they fall due; Ctrl-C to stop');
    const summary = await drain(store, rt.ctx.interrupted, {
      watch: Boolean(watch),
      onAttempt: (r) => {
        if (rt.out.opts.ndjson) rt.out.ndjson({ event_id: r.eventId, type: r.eventType, webhook_id: r.webhookId, attempt: r.attempt, ok: r.ok, status_code: r.statusCode, latency_ms: r.latencyMs, error: r.error });
        else if (!rt.out.opts.json)
          rt.out.info(`${r.ok ? rt.out.errStyle.green('delivered') : rt.out.errStyle.red('failed')} ${r.eventId} → ${r.url} #${r.attempt}${r.error ? ` (${r.error})` : ` (${r.latencyMs} ms)`}`);
      },
    });
    if (!rt.out.opts.ndjson)
      rt.out.result(summary, (s) =>
        `${s.attempts} attempt(s): ${s.delivered} delivered, ${s.failed} failed; ${s.outstanding} still queued${s.next_due_at ? `, next due ${s.next_due_at}` : ''}`,
      );
  } finally {
    store.close();
  }
}
