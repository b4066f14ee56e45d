import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { untilStopped } from '../context.js';
import type { CliRuntime } from '../runtime.js';

/**
 * `verity worker`: the webhook delivery worker alone, on a PostgreSQL outbox shared with the
 * serve processes. Announced deliveries (NOTIFY) wake it at once; it also polls every second.
 */
export default async function worker(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ db?: string; pool?: string; allowPrivateWebhooks?: boolean; webhookLeaseMs?: string; dbAnswerTimeoutMs: string }>();
  const { databaseTarget, parsePoolSize, parseLeaseMs, parseAnswerTimeoutMs, openPostgres } = await import('../../store/open.js');
  const leaseMs = parseLeaseMs(o.webhookLeaseMs);
  const answerTimeoutMs = parseAnswerTimeoutMs(o.dbAnswerTimeoutMs);
  const target = databaseTarget(o.db, rt.ctx.env, rt.ctx.paths.storeFile);
  if (target.kind !== 'postgres')
    throw new VerityError('VALIDATION_FAILED', 'verity worker needs a PostgreSQL outbox: --db postgres://… or VERITY_DATABASE_URL (with SQLite, `verity serve` delivers itself)', {
      details: [{ field: 'db', issue: 'a postgres:// URL' }],
    });
  const report = (err: unknown): void => void rt.ctx.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n`);
  const store = await openPostgres(target.url, { poolSize: parsePoolSize(o.pool ?? '4'), answerTimeoutMs, onBackgroundError: report });
  const stopped = untilStopped(rt.ctx);
  // A stray rejection is logged and delivering goes on; an uncaught exception is logged, then exits.
  const removeSafetyNet = (await import('../process-safety-net.js')).installProcessSafetyNet({ name: 'worker', write: (line) => void rt.ctx.stderr.write(line) });
  const { createDeliveryWorker } = await import('../../webhooks/delivery.js');
  const { VERSION } = await import('../../version.js');
  const w = createDeliveryWorker({
    outbox: store.outbox,
    userAgent: `verity-webhooks/${VERSION}`,
    targetPolicy: { allowPrivate: o.allowPrivateWebhooks === true },
    ...(leaseMs !== undefined ? { leaseMs } : {}),
    onError: report,
    onAttempt: (r) => rt.out.debug(`${r.ok ? 'delivered' : 'failed'} ${r.eventId} to ${r.url} (attempt ${r.attempt}${r.error ? `: ${r.error}` : ''})`),
  });
  const unsubscribe = store.outbox.subscribe(() => w.notify());
  w.start();
  rt.ctx.stderr.write(`Worker delivering from ${store.label}\n`);
  await stopped;
  unsubscribe();
  try {
    // Attempts in flight are cut short and their claims given back at once: another worker (or
    // serve process) sends them now, with the same event id, instead of after the lease.
    await w.stop({ abort: true, release: true });
  } finally {
    await store.close();
    removeSafetyNet();
  }
}
