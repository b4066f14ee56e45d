/**
 * Whether any webhook endpoint is registered, as the SQLite server store asks for every charge:
 * while none is, a charge's events have no recipient and skip the outbox (no savepoint and no
 * endpoint query per request). The answer is remembered; it is forgotten on every write this
 * connection makes to webhook_endpoints (TEMP triggers) and whenever the store sees another
 * connection's commit (`forget()`, on a PRAGMA data_version change).
 */
import type { Database } from '../local/database.js';
import { onWrites } from './write-listeners.js';

const TRIGGERS = `
  CREATE TEMP TRIGGER IF NOT EXISTS verity_endpoints_ins AFTER INSERT ON main.webhook_endpoints BEGIN SELECT verity_endpoints_changed(); END;
  CREATE TEMP TRIGGER IF NOT EXISTS verity_endpoints_upd AFTER UPDATE ON main.webhook_endpoints BEGIN SELECT verity_endpoints_changed(); END;
  CREATE TEMP TRIGGER IF NOT EXISTS verity_endpoints_del AFTER DELETE ON main.webhook_endpoints BEGIN SELECT verity_endpoints_changed(); END;`;

export interface EndpointPresence {
  /** What is remembered: true, false, or undefined (not known). */
  known(): boolean | undefined;
  /** Whether any endpoint is registered now (one indexed query when not remembered). */
  any(): boolean;
  /** Another connection committed: ask again next time. */
  forget(): void;
  close(): void;
}

/** On a connection whose webhook schema exists (ensureWebhookSchema). */
export function endpointPresence(db: Database): EndpointPresence {
  const query = db.prepare('SELECT 1 FROM webhook_endpoints WHERE deleted_at IS NULL LIMIT 1').pluck();
  let exists: boolean | undefined;
  const unsubscribe = onWrites(db, 'verity_endpoints_changed', TRIGGERS, () => (exists = undefined));
  return {
    known: () => exists,
    any: () => (exists ??= query.get() !== undefined),
    forget: () => void (exists = undefined),
    close: unsubscribe,
  };
}
