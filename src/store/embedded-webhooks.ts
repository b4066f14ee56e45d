/**
 * The embedded mode's webhook registry (`verity webhooks …` and `verity verify` without a server):
 * endpoints and outbox under the account `local` in the CLI's own SQLite file, synchronous, one
 * process. The CLI gets this object, never the SQLite functions behind it.
 */
import type { EventEnvelope, EventType, Webhook } from '../api/webhooks.js';
import { openStore } from './local/database.js';
import type { OutboxStore } from './ports/index.js';
import { nextDueAt, outstandingCount, sqliteOutbox } from './sqlite/outbox.js';
import {
  EMBEDDED_ACCOUNT,
  countWebhooks,
  createWebhook,
  deleteWebhook,
  deliveryLog,
  enqueueEvent,
  enqueueTestEvent,
  ensureWebhookSchema,
  listWebhooks,
  replayEvent,
  rotateSecret,
} from './sqlite/webhooks.js';

export interface EmbeddedWebhooks {
  /** The outbox, for a delivery worker in this process. */
  readonly outbox: OutboxStore;
  count(): number;
  create(input: unknown, now: Date): Webhook;
  list(): Webhook[];
  remove(id: string, now: Date): void;
  rotate(id: string, secret: string | undefined, now: Date): Webhook;
  /** The event for every subscribed endpoint; returns the delivery ids (none: nobody subscribes). */
  enqueue(event: EventEnvelope, nowMs: number): number[];
  enqueueTest(id: string, type: EventType | undefined, nowMs: number): ReturnType<typeof enqueueTestEvent>;
  replay(eventId: string, nowMs: number, webhook?: string): ReturnType<typeof replayEvent>;
  deliveryLog(id: string, limit?: number): ReturnType<typeof deliveryLog>;
  nextDueAt(): number | undefined;
  outstanding(): number;
  close(): void;
}

export async function openEmbeddedWebhooks(storeFile: string): Promise<EmbeddedWebhooks> {
  const store = await openStore(storeFile);
  const db = store.db;
  ensureWebhookSchema(db);
  const scope = EMBEDDED_ACCOUNT;
  return {
    outbox: sqliteOutbox(db),
    count: () => countWebhooks(db, scope),
    create: (input, now) => createWebhook(db, scope, input, now),
    list: () => listWebhooks(db, scope),
    remove: (id, now) => deleteWebhook(db, scope, id, now),
    rotate: (id, secret, now) => rotateSecret(db, scope, id, secret, now),
    enqueue: (event, nowMs) => enqueueEvent(db, scope, event, nowMs),
    enqueueTest: (id, type, nowMs) => enqueueTestEvent(db, scope, id, type, nowMs),
    replay: (eventId, nowMs, webhook) => replayEvent(db, scope, eventId, nowMs, webhook),
    deliveryLog: (id, limit) => deliveryLog(db, scope, id, limit),
    nextDueAt: () => nextDueAt(db),
    outstanding: () => outstandingCount(db),
    close: () => store.close(),
  };
}
