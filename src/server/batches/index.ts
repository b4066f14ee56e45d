/**
 * Batches inside `verity serve` (issue 15): the store (`batchStore()` of the server store: src/store/sqlite/batches.ts, src/store/postgres/batches.ts), the runner as the
 * server's own background work (started when the server is ready, stopped when it closes, before
 * the store is closed), and the /v1/batches routes. Registered with one line in src/server/app.ts.
 *
 * Storage: the BatchStore lives beside the server store — in its SQLite file (writes through its
 * group commit) or its PostgreSQL database (src/store/postgres/batches.ts) — so an item's finish
 * commits with its charge and events. Another server store answers 503 unless a BatchStore for it
 * is given (`batchStore`).
 */
import type { FastifyInstance } from 'fastify';
import { VerityError } from '../../api/errors.js';
import type { Clock, Engine } from '../../engine/types.js';
import type { BatchStore } from '../../store/ports/batches.js';
import type { ServerStore } from '../../store/ports/index.js';
import type { Idempotency } from '../idempotency.js';
import type { Ledger } from '../usage.js';
import { registerBatchRoutes } from './routes.js';
import { createBatchRunner, type BatchHooks } from './runner.js';
import { createBatchSpool } from './spool.js';

export interface BatchesOptions {
  store: ServerStore;
  engines: { live: Engine; test: Engine };
  ledger: Ledger;
  idempotency: Idempotency;
  clock: Clock;
  hooks: BatchHooks;
  /** A BatchStore for a server store other than SQLite. */
  batchStore?: BatchStore;
  /** Where streamed batches' files wait for their items (spool.ts); default: a private temp folder. */
  spoolDir?: string;
}

export function batchesPlugin(o: BatchesOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    const beside = o.batchStore ? undefined : await o.store.batchStore?.();
    const store = o.batchStore ?? beside?.store;
    if (!store) {
      const unavailable = async (): Promise<never> => {
        throw new VerityError('UNAVAILABLE', `Batches are not available on the ${o.store.kind} store in this version; use single requests`);
      };
      for (const path of ['/v1/batches', '/v1/batches/:id', '/v1/batches/:id/cancel', '/v1/batches/:id/results'])
        app.route({ method: path.endsWith('cancel') || path === '/v1/batches' ? ['GET', 'POST'] : ['GET'], url: path, handler: unavailable });
      return;
    }
    const spool = createBatchSpool(o.spoolDir);
    const runner = createBatchRunner({ server: o.store, store, engines: o.engines, ledger: o.ledger, clock: o.clock, hooks: o.hooks, log: app.log, spool });
    registerBatchRoutes(app, {
      store,
      runner,
      spool,
      ledger: o.ledger,
      idempotency: o.idempotency,
      // The idempotency record commits with the stored batch (SQLite: the same transaction).
      saveIdempotency: beside && ((accountId, key, hash, response) => beside.saveIdempotency(accountId, key, hash, response, o.clock.now().getTime())),
      now: () => o.clock.now(),
    });
    app.addHook('onReady', async () => runner.start());
    // Stopped before the listener drains (preClose), not after: otherwise the runner keeps
    // claiming new items while open requests are served to their end, and a stopping process
    // may run a whole batch that another process could have taken over.
    app.addHook('preClose', async () => runner.stop());
    // After the runner and the requests: nothing reads or writes the spool any more.
    app.addHook('onClose', async () => spool.close());
  };
}
