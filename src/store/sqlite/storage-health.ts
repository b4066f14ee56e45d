/**
 * Storage faults as honest answers: a full disk, a read-only database or file system, an I/O
 * error or a lock held elsewhere is the service being unavailable (503 + Retry-After), not an
 * internal error (500) — and `/healthz` must say so too, or a load balancer keeps sending
 * traffic to a server that can only fail.
 *
 * Once a request has hit such a fault the server is "degraded": /healthz answers 503 until a
 * probe write (a 64 KB row written and removed, two real commits) succeeds again.
 */
import type { Database } from '../local/database.js';

import { storageFaultCause } from '../../domain/storage-faults.js';
export { CONNECTION_RETRY_AFTER_S, STORAGE_RETRY_AFTER_S, storageFaultCause, storageRetryAfterSeconds } from '../../domain/storage-faults.js';

export interface StorageHealth {
  /** Record a fault seen on the request path. */
  noteFault(err: unknown): void;
  /** Undefined when healthy; otherwise the cause (probing the store when it was degraded). */
  check(): string | undefined;
}

export function createStorageHealth(db: Database): StorageHealth {
  db.exec('CREATE TABLE IF NOT EXISTS server_health_probe (id INTEGER PRIMARY KEY, filler BLOB)');
  const ping = db.prepare('SELECT 1');
  const insert = db.prepare('INSERT INTO server_health_probe (filler) VALUES (zeroblob(65536))');
  const clear = db.prepare('DELETE FROM server_health_probe');
  let degraded: string | undefined;

  return {
    noteFault(err) {
      degraded = storageFaultCause(err) ?? degraded;
    },
    check() {
      try {
        ping.get();
        if (degraded) {
          // Enough new pages that a full disk (or a page cap) refuses it; committed, so the WAL grows.
          db.transaction(() => insert.run())();
          db.transaction(() => clear.run())();
          degraded = undefined;
        }
      } catch (err) {
        degraded = storageFaultCause(err) ?? 'the store is not available';
      }
      return degraded;
    },
  };
}
