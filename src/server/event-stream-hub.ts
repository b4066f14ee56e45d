/**
 * The open event streams of one serve process (issue 29): each stream reads the account's event
 * log (src/store/ports/event-stream.ts) from its own position and writes what it finds, so events
 * wait in the store, never in this process's memory, while a reader is slow. A stream is woken by
 * the store's announcement of its scope (this process's commits, or another process's NOTIFY on
 * PostgreSQL) and reads again shortly while the store says events may still commit behind.
 *
 * Bounds: the unsent bytes of a stream (`maxBufferedBytes`): a page is written only while less than
 * half of it is waiting, the stream waits for the socket to drain before the next page (at most
 * `drainTimeoutMs`), and a stream whose unsent bytes pass the bound, or that does not drain in
 * time, is cut; the client resumes with Last-Event-ID. Streams per account (`maxPerAccount`).
 */
import type { ServerResponse } from 'node:http';
import type { EventStreamStore, LoggedEvent } from '../store/ports/event-stream.js';
import { deliveryHeaders } from '../webhooks/delivery.js';
import { SSE_PING, eventMessage } from '../domain/event-stream.js';

/** Events read from the log at once. */
const PAGE = 100;
/** Re-reads while events may still commit behind the position: 20 ms, doubling to 1 s. */
const PENDING_FIRST_MS = 20;
const PENDING_MAX_MS = 1_000;

export interface HubOptions {
  store: EventStreamStore;
  nowMs: () => number;
  retentionMs: number;
  pingMs: number;
  /** How often an open stream renews its scope and its session's last_seen (at a ping tick). */
  renewMs: number;
  maxBufferedBytes: number;
  maxPerAccount: number;
  drainTimeoutMs: number;
  userAgent: string;
  onCut?: (s: { sessionId: string; reason: 'buffer' | 'stalled'; buffered: number }) => void;
  onError: (err: unknown) => void;
}

export interface OpenStream {
  sessionId: string;
  accountId: string;
  scope: string;
  secret: string;
  types: ReadonlySet<string> | null;
  cursor: string;
  res: ServerResponse;
}

interface Stream extends OpenStream {
  closed: boolean;
  pumping: boolean;
  again: boolean;
  ping: NodeJS.Timeout | undefined;
  retry: NodeJS.Timeout | undefined;
  retryMs: number;
  renewedAt: number;
}

export class StreamHub {
  private readonly byScope = new Map<string, Set<Stream>>();
  private readonly perAccount = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(private readonly o: HubOptions) {
    this.unsubscribe = o.store.subscribe((scope) => this.wake(scope));
  }

  /** True when the account may open one more stream in this process. */
  hasRoom(accountId: string): boolean {
    return (this.perAccount.get(accountId) ?? 0) < this.o.maxPerAccount;
  }

  get size(): number {
    let n = 0;
    for (const set of this.byScope.values()) n += set.size;
    return n;
  }

  /** Starts a stream whose response head and first messages are written. */
  add(open: OpenStream): void {
    const s: Stream = { ...open, closed: false, pumping: false, again: false, ping: undefined, retry: undefined, retryMs: PENDING_FIRST_MS, renewedAt: this.o.nowMs() };
    let set = this.byScope.get(s.scope);
    if (!set) this.byScope.set(s.scope, (set = new Set()));
    set.add(s);
    this.perAccount.set(s.accountId, (this.perAccount.get(s.accountId) ?? 0) + 1);
    s.res.on('close', () => this.remove(s));
    s.ping = setInterval(() => this.tick(s), this.o.pingMs);
    void this.pump(s);
  }

  /** Graceful shutdown: every stream is ended (clients resume from where they were). */
  closeAll(): void {
    this.unsubscribe();
    for (const set of [...this.byScope.values()])
      for (const s of [...set]) {
        this.remove(s);
        s.res.end();
        // Bytes a stalled reader never took would hold the socket (and the shutdown) open.
        if (s.res.writableLength > 0) s.res.destroy();
      }
  }

  private wake(scope: string): void {
    // '' after the store's listening connection was re-established: notifications may be lost.
    const sets = scope === '' ? [...this.byScope.values()] : [this.byScope.get(scope)];
    for (const set of sets) for (const s of set ?? []) void this.pump(s);
  }

  private remove(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    clearInterval(s.ping);
    clearTimeout(s.retry);
    const set = this.byScope.get(s.scope);
    set?.delete(s);
    if (set && set.size === 0) this.byScope.delete(s.scope);
    const n = (this.perAccount.get(s.accountId) ?? 1) - 1;
    if (n > 0) this.perAccount.set(s.accountId, n);
    else this.perAccount.delete(s.accountId);
    const now = this.o.nowMs();
    // The scope stays logged for a full retention after its last stream, so a resume finds it all.
    this.o.store.keepScope(s.scope, now + this.o.retentionMs).catch(this.o.onError);
    this.o.store.closeSession(s.sessionId, now).catch(this.o.onError);
  }

  private cut(s: Stream, reason: 'buffer' | 'stalled'): void {
    const buffered = s.res.writableLength;
    this.remove(s);
    s.res.destroy();
    this.o.onCut?.({ sessionId: s.sessionId, reason, buffered });
  }

  private tick(s: Stream): void {
    // A ping only on an idle socket: pending bytes already keep the connection busy.
    if (s.res.writableLength === 0) s.res.write(SSE_PING);
    const now = this.o.nowMs();
    if (now - s.renewedAt >= Math.min(this.o.renewMs, this.o.retentionMs / 4)) {
      s.renewedAt = now;
      this.o.store.keepScope(s.scope, now + this.o.retentionMs).catch(this.o.onError);
      // The session's sign of life: a killed process's sessions stop being renewed and show as lost.
      this.o.store.touchSession(s.sessionId, now).catch(this.o.onError);
    }
  }

  /** Reads and writes until the log has nothing more for the stream; one pump per stream at a time. */
  private async pump(s: Stream): Promise<void> {
    if (s.closed) return;
    if (s.pumping) {
      s.again = true;
      return;
    }
    s.pumping = true;
    try {
      do {
        s.again = false;
        await this.drainLog(s);
      } while (s.again && !s.closed);
    } catch (err) {
      // The store failed (the database away): the stream ends; the client resumes by id.
      this.o.onError(err);
      if (!s.closed) {
        this.remove(s);
        s.res.end();
      }
    } finally {
      s.pumping = false;
    }
  }

  private async drainLog(s: Stream): Promise<void> {
    for (;;) {
      if (s.res.writableLength > this.o.maxBufferedBytes / 2 && !(await this.drained(s))) return;
      if (s.closed) return;
      const r = await this.o.store.after(s.scope, s.cursor, PAGE);
      if (s.closed) return;
      for (const e of r.events) if (!this.write(s, e)) return;
      s.cursor = r.cursor;
      if (r.events.length === PAGE) continue;
      clearTimeout(s.retry);
      if (r.pending) {
        s.retry = setTimeout(() => void this.pump(s), s.retryMs);
        s.retryMs = Math.min(PENDING_MAX_MS, s.retryMs * 2);
      } else s.retryMs = PENDING_FIRST_MS;
      return;
    }
  }

  /** Writes one event (when the stream's filter takes it); false when the stream was cut. */
  private write(s: Stream, e: LoggedEvent): boolean {
    if (s.types && !s.types.has(e.type)) return true;
    const headers = {
      ...deliveryHeaders({ id: 0, event_id: e.id, event_type: e.type, webhook_id: s.sessionId, url: '', secret: s.secret, signature_scheme: 'verity', previous_secret: null, body: e.body, attempt: 1, replay: false }, this.o.nowMs()),
      'user-agent': this.o.userAgent,
    };
    s.res.write(eventMessage(e, headers));
    if (s.res.writableLength > this.o.maxBufferedBytes) {
      this.cut(s, 'buffer');
      return false;
    }
    return true;
  }

  /** Waits for the socket to take the unsent bytes; false (and the stream cut) when it does not in time. */
  private drained(s: Stream): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        s.res.off('drain', onDrain);
        s.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = (): void => done(true);
      const onClose = (): void => done(false);
      const timer = setTimeout(() => {
        done(false);
        if (!s.closed) this.cut(s, 'stalled');
      }, this.o.drainTimeoutMs);
      s.res.on('drain', onDrain);
      s.res.on('close', onClose);
    });
  }
}
