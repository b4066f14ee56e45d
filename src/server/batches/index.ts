/**
 * Batches inside `verity serve` (issue 15): the store (src/store/batches), the runner as the
 * server's own background work (started when the server is ready, stopped when it closes, before
 * the store is closed), and the /v1/batches routes. Registered with one line in src/server/app.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock, Engine } from '../../engine/types.js';
import type { Database } from '../../store/database.js';
import { createSqliteBatchStore } from '../../store/batches/sqlite.js';
import type { BatchStore } from '../../store/batches/types.js';
import type { GroupCommit } from '../group-commit.js';
import type { IdempotencyStore } from '../idempotency.js';
import type { ServerDeps } from '../types.js';
import type { Ledger } from '../usage.js';
import { registerBatchRoutes } from './routes.js';
import { createBatchRunner } from './runner.js';

export interface BatchesOptions {
  db: Database;
  engines: { live: Engine; test: Engine };
  ledger: Ledger;
  idempotency: IdempotencyStore;
  writes: GroupCommit;
  clock: Clock;
  afterBatch?: ServerDeps['afterBatch'];
  /** Another BatchStore implementation (default: SQLite on `db`, writes through the group commit). */
  store?: BatchStore;
}

export function batchesPlugin(o: BatchesOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    const store = o.store ?? createSqliteBatchStore(o.db, { transact: (fn) => o.writes.run(fn) });
    const runner = createBatchRunner({
      db: o.db,
      store,
      engines: o.engines,
      ledger: o.ledger,
      clock: o.clock,
      afterBatch: o.afterBatch,
      log: app.log,
    });
    registerBatchRoutes(app, { store, runner, ledger: o.ledger, idempotency: o.idempotency, now: () => o.clock.now() });
    app.addHook('onReady', async () => runner.start());
    app.addHook('onClose', async () => runner.stop());
  };
}
