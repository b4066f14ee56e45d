/**
 * Listeners for the writes ONE connection makes to some tables: TEMP triggers call a SQL function
 * registered on that connection, which calls the listeners (other connections' commits do not
 * fire them; they show in PRAGMA data_version). One function and one set of triggers per
 * connection and function name, however many listeners.
 */
import type { Database } from '../local/database.js';

const byConnection = new WeakMap<Database, Map<string, Set<() => void>>>();

/**
 * Subscribes `listener` to the writes that fire `triggers` (SQL creating TEMP triggers that
 * `SELECT <fn>()`); returns the unsubscribe function.
 */
export function onWrites(db: Database, fn: string, triggers: string, listener: () => void): () => void {
  let byName = byConnection.get(db);
  if (!byName) byConnection.set(db, (byName = new Map()));
  let set = byName.get(fn);
  if (!set) {
    const listeners = new Set<() => void>();
    set = listeners;
    byName.set(fn, set);
    db.function(fn, { deterministic: false }, () => {
      for (const l of listeners) l();
      return null;
    });
    db.exec(triggers);
  }
  set.add(listener);
  return () => set.delete(listener);
}
