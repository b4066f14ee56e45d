/**
 * Webhook operations shared by the server routes and the embedded (local) registry, so both
 * modes behave alike: test events, replays, and waiting (bounded) for a first attempt.
 */
import { VerityError } from '../api/errors.js';
import { EVENT_TYPES, type EventType } from '../api/webhooks.js';
import type { AttemptReport, WorkerClock } from './delivery.js';

/** What `POST /v1/webhooks/{id}/test` answers (SPEC: "not shown"). */
export interface TestEventResult {
  event_id: string;
  type: EventType;
  /** The first attempt, or null when it did not finish within the wait (it stays queued). */
  attempt: { ok: boolean; status_code: number | null; latency_ms: number; error: string | null } | null;
}

export function parseEventType(value: unknown, field = 'type'): EventType {
  if (typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value)) return value as EventType;
  throw new VerityError('VALIDATION_FAILED', `Unknown event type "${String(value)}"; one of ${EVENT_TYPES.join(', ')}`, {
    details: [{ field, issue: `one of ${EVENT_TYPES.join(', ')}` }],
  });
}

/** Lets a caller wait for the first attempt of particular deliveries, with a time bound. */
export class AttemptWaiter {
  private waiters = new Map<number, Array<(r: AttemptReport) => void>>();

  /** Feed every attempt report here (the worker's onAttempt). */
  readonly onAttempt = (r: AttemptReport): void => {
    const list = this.waiters.get(r.deliveryId);
    if (!list) return;
    this.waiters.delete(r.deliveryId);
    for (const f of list) f(r);
  };

  wait(deliveryId: number, timeoutMs: number, clock: WorkerClock, signal?: AbortSignal): Promise<AttemptReport | null> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (r: AttemptReport | null): void => {
        if (done) return;
        done = true;
        cancel();
        signal?.removeEventListener('abort', onAbort);
        const list = this.waiters.get(deliveryId)?.filter((f) => f !== finish);
        if (list?.length) this.waiters.set(deliveryId, list);
        else this.waiters.delete(deliveryId);
        resolve(r);
      };
      const onAbort = (): void => finish(null);
      const cancel = clock.setTimer(() => finish(null), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const list = this.waiters.get(deliveryId) ?? [];
      list.push(finish);
      this.waiters.set(deliveryId, list);
    });
  }
}

export const toTestResult = (event: { id: string; type: EventType }, r: AttemptReport | null): TestEventResult => ({
  event_id: event.id,
  type: event.type,
  attempt: r && { ok: r.ok, status_code: r.statusCode, latency_ms: r.latencyMs, error: r.error },
});
