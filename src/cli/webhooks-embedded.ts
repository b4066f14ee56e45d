/**
 * Embedded mode (no server): a local webhook registry in the embedded store under the account
 * `local`, and delivery from the CLI process itself — a verification enqueues its event and tries
 * the first attempt before the command exits (bounded wait); `verity webhooks deliver` drains
 * due retries later.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { validationError } from '../api/errors.js';
import type { VerificationResult } from '../api/results.js';
import type { EventType, Webhook } from '../api/webhooks.js';
import type { VerityPaths } from '../config/paths.js';
import type { Output } from '../output/output.js';
import { openEmbeddedWebhooks, type EmbeddedWebhooks } from '../store/embedded-webhooks.js';
import { createDeliveryWorker, systemWorkerClock, type AttemptReport, type DeliveryWorker, type WorkerClock } from '../webhooks/delivery.js';
import { markerFile } from './webhook-marker.js';
import { completedData, envelope } from '../domain/events.js';
import { RESPONSE_DEADLINE_MS } from '../domain/delivery-schedule.js';
import { AttemptWaiter, toTestResult, type TestEventResult } from '../webhooks/service.js';
import { z } from 'zod';

/** How long a verification waits for its event's first attempt before leaving it queued. */
export const FIRST_ATTEMPT_WAIT_MS = RESPONSE_DEADLINE_MS + 2_000;

const open = (paths: VerityPaths): Promise<EmbeddedWebhooks> => openEmbeddedWebhooks(paths.storeFile);

function syncMarker(paths: VerityPaths, store: EmbeddedWebhooks): void {
  if (store.count() > 0) writeFileSync(markerFile(paths.dataDir), '', { mode: 0o600 });
  else rmSync(markerFile(paths.dataDir), { force: true });
}

/** Runs a worker until the given deliveries have had one attempt each (or the wait ends). */
async function attemptNow(
  store: EmbeddedWebhooks,
  deliveryIds: number[],
  signal: AbortSignal,
  clock: WorkerClock = systemWorkerClock,
): Promise<Map<number, AttemptReport | null>> {
  const waiter = new AttemptWaiter();
  const worker = createDeliveryWorker({ outbox: store.outbox, clock, onAttempt: waiter.onAttempt, userAgent: 'verity-cli' });
  const waits = deliveryIds.map((id) => waiter.wait(id, FIRST_ATTEMPT_WAIT_MS, clock, signal).then((r) => [id, r] as const));
  worker.start();
  const results = new Map(await Promise.all(waits));
  // Whatever is still in flight keeps its lease and is retried by `verity webhooks deliver`.
  await worker.stop({ abort: true });
  return results;
}

export async function deliverVerificationEvent(paths: VerityPaths, result: object, out: Output, signal: AbortSignal): Promise<void> {
  let store: EmbeddedWebhooks | undefined;
  try {
    store = await open(paths);
    const now = new Date();
    const ev = envelope('verification.completed', { ...completedData(result as VerificationResult) }, now);
    const ids = store.enqueue(ev, now.getTime());
    if (!ids.length) return;
    const reports = await attemptNow(store, ids, signal);
    for (const r of reports.values()) {
      if (r?.ok) out.debug(`webhook: ${ev.id} delivered to ${r.url} (${r.latencyMs} ms)`);
      else if (r) out.warn(`webhook ${ev.id} to ${r.url} failed (${r.error}); retry with \`verity webhooks deliver\``);
    }
    const waiting = [...reports.values()].filter((r) => r === null).length;
    if (waiting) out.warn(`webhook ${ev.id}: ${waiting} delivery still pending; run \`verity webhooks deliver\``);
  } catch (err) {
    // The verification itself succeeded; a webhook problem is reported, not turned into a failure.
    out.warn(`webhook event not queued: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    store?.close();
  }
}

/** The operations `verity webhooks …` offers, in either mode. */
export interface WebhookRegistry {
  add(config: unknown): Promise<Webhook>;
  list(): Promise<Webhook[]>;
  remove(id: string): Promise<{ id: string; deleted: true }>;
  rotate(id: string, secret?: string): Promise<Webhook>;
  test(id: string, type?: EventType): Promise<TestEventResult>;
  deliveries(id: string, limit?: number): Promise<ReturnType<EmbeddedWebhooks['deliveryLog']>>;
  replay(eventId: string, webhookId?: string): Promise<{ event_id: string; deliveries: number }>;
  close(): void;
}

const zodToVerity = <T>(f: () => T, prefix = ''): T => {
  try {
    return f();
  } catch (err) {
    if (err instanceof z.ZodError) throw validationError(err, prefix);
    throw err;
  }
};

export async function embeddedRegistry(paths: VerityPaths, signal: AbortSignal): Promise<WebhookRegistry> {
  const store = await open(paths);
  return {
    async add(config) {
      const w = zodToVerity(() => store.create(config, new Date()));
      syncMarker(paths, store);
      return w;
    },
    async list() {
      return store.list();
    },
    async remove(id) {
      store.remove(id, new Date());
      syncMarker(paths, store);
      return { id, deleted: true };
    },
    async rotate(id, secret) {
      return zodToVerity(() => store.rotate(id, secret, new Date()));
    },
    async test(id, type) {
      const { event, deliveryId } = store.enqueueTest(id, type, Date.now());
      const r = await attemptNow(store, [deliveryId], signal);
      return toTestResult(event, r.get(deliveryId) ?? null);
    },
    async deliveries(id, limit) {
      return store.deliveryLog(id, limit);
    },
    async replay(eventId, webhookId) {
      const r = store.replay(eventId, Date.now(), webhookId);
      await drain(store, signal, { watch: false });
      return r;
    },
    close: () => store.close(),
  };
}

/**
 * `verity webhooks deliver`: sends every due delivery, then returns — or with `watch`, keeps
 * running (retries become due over hours) until interrupted.
 */
export async function drain(
  store: EmbeddedWebhooks,
  signal: AbortSignal,
  o: { watch: boolean; onAttempt?: (r: AttemptReport) => void },
): Promise<{ attempts: number; delivered: number; failed: number; outstanding: number; next_due_at: string | null }> {
  let attempts = 0;
  let delivered = 0;
  let failed = 0;
  const worker: DeliveryWorker = createDeliveryWorker({
    outbox: store.outbox,
    userAgent: 'verity-cli',
    onAttempt: (r) => {
      attempts++;
      if (r.ok) delivered++;
      else failed++;
      o.onAttempt?.(r);
    },
  });
  worker.start();
  await new Promise<void>((resolve) => {
    const finish = (): void => {
      clearInterval(check);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    // Without --watch: done once nothing is in flight and nothing else is due now.
    const check = setInterval(() => {
      if (o.watch) return;
      const due = store.nextDueAt();
      if (worker.inFlight === 0 && (due === undefined || due > Date.now())) finish();
    }, 50);
    if (signal.aborted) finish();
    else signal.addEventListener('abort', finish, { once: true });
  });
  await worker.stop({ abort: signal.aborted });
  const due = store.nextDueAt();
  return { attempts, delivered, failed, outstanding: store.outstanding(), next_due_at: due === undefined ? null : new Date(due).toISOString() };
}

export async function openEmbeddedStore(paths: VerityPaths): Promise<EmbeddedWebhooks> {
  return open(paths);
}
