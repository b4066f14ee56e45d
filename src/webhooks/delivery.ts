/**
 * The delivery worker: reads due deliveries from the outbox and sends them, signed, to their
 * endpoints (SPEC 6.3/6.4, DESIGN.md).
 *
 * - One lane per endpoint URL. A lane starts at most 10 requests in any 1 s window (≥ 50 ms
 *   apart) and keeps at most 4 in flight, so a slow endpoint is throttled automatically — its
 *   rate is min(10/s, 4 / latency) — and lanes never wait on each other.
 * - Each attempt first claims its row with a lease (30 s: the 10 s deadline plus margin). A worker
 *   that dies mid-delivery leaves the lease to expire; the row is then due again and goes out with
 *   the same event id and body (at-least-once).
 * - All time comes from the injected WorkerClock, so tests run the 7-hour schedule instantly.
 * - The store may go away (a database restart): a failed poll or claim is reported and the worker
 *   looks again after a backoff (1, 2, 4, then every 5 s), never failing faster than that and
 *   never throwing out of a timer; an attempt whose result cannot be recorded is recorded again
 *   (same backoff, while its lease lasts) before the lease is left to bring the row back.
 */
import { STATUS_CODES } from 'node:http';
import type { Claim, OutboxStore } from '../store/ports/index.js';
import { LEASE_MS, MAX_IN_FLIGHT_PER_ENDPOINT, MIN_GAP_MS, RATE_PER_SECOND, RATE_WINDOW_MS, RESPONSE_DEADLINE_MS, nextAttemptAt } from '../domain/delivery-schedule.js';
import { ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, REPLAY_HEADER, SIGNATURE_HEADER, sign, WEBHOOK_ID_HEADER } from '../domain/signature.js';
import { ForbiddenTargetError, guardedLookup, literalTargetProblem, type TargetPolicy } from './target-guard.js';

/** The longest wait between two looks at a store that keeps failing. */
export const STORE_RETRY_MAX_MS = 5_000;

/** The wait before the next look after `failures` store failures in a row (1 s, 2 s, 4 s, 5 s …). */
export function storeRetryDelay(failures: number, pollMs: number): number {
  return Math.min(STORE_RETRY_MAX_MS, Math.max(pollMs, 1_000) * 2 ** Math.max(0, failures - 1));
}

export interface WorkerClock {
  now(): number;
  /** Calls fn after ms; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemWorkerClock: WorkerClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}
export interface SendResponse {
  /** Only the status: a receiver's reply body is never read into attempt records (it could be
   *  an internal service's data handed back to whoever registered the URL). */
  status: number;
}
export type Sender = (req: SendRequest) => Promise<SendResponse>;

/**
 * Real HTTP via undici, with the response deadline as a hard timeout. With a `policy`, every
 * attempt is checked at connect time (src/webhooks/target-guard.ts); redirects are not followed.
 */
export function httpSender(userAgent: string, policy?: TargetPolicy): Sender {
  let dispatcher: import('undici').Dispatcher | undefined;
  return async ({ url, headers, body, signal }) => {
    const { Agent, request } = await import('undici');
    if (policy) {
      const problem = literalTargetProblem(url, policy);
      if (problem) throw new ForbiddenTargetError(problem);
      dispatcher ??= new Agent({ connect: { lookup: guardedLookup(policy) as never } });
    }
    const res = await request(url, {
      method: 'POST',
      headers: { ...headers, 'user-agent': userAgent },
      body,
      dispatcher,
      signal: AbortSignal.any([signal, AbortSignal.timeout(RESPONSE_DEADLINE_MS)]),
      headersTimeout: RESPONSE_DEADLINE_MS,
      bodyTimeout: RESPONSE_DEADLINE_MS,
    });
    // The body is discarded unread (the error a destroyed body emits is expected, not a fault).
    res.body.on('error', () => undefined);
    if (!res.body.destroyed) res.body.destroy();
    return { status: res.statusCode };
  };
}

export interface AttemptReport {
  deliveryId: number;
  eventId: string;
  eventType: string;
  webhookId: string;
  url: string;
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  /** When the request started (worker clock, ms). */
  startedAt: number;
  latencyMs: number;
  error: string | null;
  nextAt: number | undefined;
}

export interface WorkerOptions {
  /** The outbox (src/store/ports: SQLite or PostgreSQL). */
  outbox: OutboxStore;
  clock?: WorkerClock;
  send?: Sender;
  userAgent?: string;
  /** How often to look for rows written by others (server transactions, other processes). */
  pollMs?: number;
  leaseMs?: number;
  minGapMs?: number;
  ratePerSecond?: number;
  rateWindowMs?: number;
  maxInFlightPerEndpoint?: number;
  onAttempt?: (r: AttemptReport) => void;
  /** Connect-time address guard for every attempt (serve); absent: none (embedded mode). */
  targetPolicy?: TargetPolicy;
  /** Storage errors (e.g. SQLITE_BUSY) are reported, never thrown out of a timer. */
  onError?: (err: unknown) => void;
}

interface Lane {
  url: string;
  queue: number[];
  inFlight: number;
  /** A claim is being made (the store answers asynchronously): the lane waits for it. */
  claiming: boolean;
  /** Start times of the last `rate` attempts (the sliding window). */
  starts: number[];
  cancelTimer: (() => void) | undefined;
}

export interface DeliveryWorker {
  start(): void;
  /**
   * Stops taking work. In-flight attempts are aborted when `abort`, else awaited. Aborted attempts
   * keep their leases (as a crash would: due again when the lease expires) unless `release`,
   * which gives them back at once (graceful shutdown: another process sends them now).
   */
  stop(opts?: { abort?: boolean; release?: boolean }): Promise<void>;
  /** Look for due work now (after an enqueue). */
  notify(): void;
  /** Resolves once nothing is in flight (tests step a fake clock between calls). */
  idle(): Promise<void>;
  readonly inFlight: number;
}

const describe = (err: unknown): string => {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT')
    return `no answer within ${RESPONSE_DEADLINE_MS / 1000} s`;
  const forbidden = err instanceof ForbiddenTargetError ? err : (err as { cause?: unknown })?.cause instanceof ForbiddenTargetError ? (err as { cause: ForbiddenTargetError }).cause : undefined;
  if (forbidden) return forbidden.reason;
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  // A code only: messages can carry a peer's words (TLS alerts, proxies), never worth echoing.
  return code ? `network error (${code})` : 'network error';
};

/** The earliest time the lane may start another request: MIN_GAP after the last, and at most `rate` in any window. */
function nextStartAt(lane: Lane, l: { minGapMs: number; ratePerSecond: number; rateWindowMs: number }): number {
  const last = lane.starts.at(-1);
  let t = last === undefined ? -Infinity : last + l.minGapMs;
  if (lane.starts.length >= l.ratePerSecond) t = Math.max(t, lane.starts[lane.starts.length - l.ratePerSecond]! + l.rateWindowMs);
  return t;
}

/** The signed request's headers (SPEC 6.3): signature over the exact body, ids, attempt, replay mark. */
export function deliveryHeaders(claim: Claim): Record<string, string> {
  return {
    'content-type': 'application/json',
    [SIGNATURE_HEADER]: sign(claim.secret, claim.body),
    [EVENT_ID_HEADER]: claim.event_id,
    [EVENT_TYPE_HEADER]: claim.event_type,
    [ATTEMPT_HEADER]: String(claim.attempt),
    [WEBHOOK_ID_HEADER]: claim.webhook_id,
    ...(claim.replay ? { [REPLAY_HEADER]: '1' } : {}),
  };
}

/** Why an attempt failed, or null: no answer, a non-2xx status, or (SPEC 6.4.1) a 2xx after the deadline. */
function attemptError(statusCode: number | null, sendError: string | null, latencyMs: number): string | null {
  if (sendError !== null) return sendError;
  if (statusCode! < 200 || statusCode! > 299) return `HTTP ${statusCode}${STATUS_CODES[statusCode!] ? ` ${STATUS_CODES[statusCode!]}` : ''}`;
  if (latencyMs > RESPONSE_DEADLINE_MS)
    return `answered HTTP ${statusCode} after ${(latencyMs / 1000).toFixed(1)} s; the deadline is ${RESPONSE_DEADLINE_MS / 1000} s`;
  return null;
}

const attemptIds = (claim: Claim) => ({
  deliveryId: claim.id,
  eventId: claim.event_id,
  eventType: claim.event_type,
  webhookId: claim.webhook_id,
  url: claim.url,
  attempt: claim.attempt,
});

/** A worker over the outbox (`o.outbox`): see DeliveryWorker, and the class below for how it runs. */
export function createDeliveryWorker(o: WorkerOptions): DeliveryWorker {
  return new OutboxWorker(o);
}

/**
 * The worker, read top to bottom: its settings and state; start/stop/notify/idle; then the four
 * steps of a delivery — (1) claim due deliveries: poll the outbox and queue due rows on their
 * endpoint's lane; (2) pace the endpoint: when the lane's rate and in-flight limits allow, claim
 * its next row with a lease; (3) send one: the signed request, its answer judged (attemptError) and
 * its retry time (domain/delivery-schedule.ts); (4) record the attempt, again while the lease lasts
 * if the store fails. Store failures back off (storeFailed); nothing throws out of a timer.
 */
class OutboxWorker implements DeliveryWorker {
  private readonly outbox: OutboxStore;
  private readonly clock: WorkerClock;
  private readonly send: Sender;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly maxInFlight: number;
  private readonly limits: { ratePerSecond: number; rateWindowMs: number; minGapMs: number; maxInFlight: number };
  /** A lane holds up to 4 s of work at full rate, and asks for more when half is left. */
  private readonly laneCap: number;
  /** Polls are coalesced: at most one every 200 ms however many lanes ask for work. */
  private readonly pollSpacing = 200;

  private readonly lanes = new Map<string, Lane>();
  private readonly queued = new Set<number>();
  private readonly running = new Set<Promise<void>>();
  /** Store calls under way (polls, claims): idle() waits for them too. */
  private readonly busy = new Set<Promise<unknown>>();
  /** Claims held right now, given back on a graceful stop. */
  private readonly held = new Map<number, Claim>();
  private readonly aborter = new AbortController();
  /** Outcomes waiting to be recorded again (their timers' cancels): a stop drops them (the lease brings the rows back). */
  private readonly recordRetries = new Set<() => void>();
  private started = false;
  private stopped = false;
  private lastPollAt = -Infinity;
  private cancelPoll: (() => void) | undefined;
  private pollAt: number | undefined;
  /** Store calls (polls, claims) that failed in a row: the next look backs off. */
  private storeFailures = 0;

  constructor(private readonly o: WorkerOptions) {
    this.outbox = o.outbox;
    this.clock = o.clock ?? systemWorkerClock;
    this.send = o.send ?? httpSender(o.userAgent ?? 'verity-webhooks', o.targetPolicy);
    this.pollMs = o.pollMs ?? 1000;
    this.leaseMs = o.leaseMs ?? LEASE_MS;
    this.maxInFlight = o.maxInFlightPerEndpoint ?? MAX_IN_FLIGHT_PER_ENDPOINT;
    this.limits = {
      ratePerSecond: o.ratePerSecond ?? RATE_PER_SECOND,
      rateWindowMs: o.rateWindowMs ?? RATE_WINDOW_MS,
      minGapMs: o.minGapMs ?? MIN_GAP_MS,
      maxInFlight: this.maxInFlight,
    };
    this.laneCap = Math.max(40, this.maxInFlight * 4);
  }

  // ---- the worker's life

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedulePoll(this.clock.now());
  }

  async stop(opts: { abort?: boolean; release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    this.cancelPoll?.();
    for (const lane of this.lanes.values()) lane.cancelTimer?.();
    if (opts.abort) this.aborter.abort();
    for (const cancel of this.recordRetries) cancel();
    this.recordRetries.clear();
    await Promise.allSettled([...this.busy]);
    await Promise.allSettled([...this.running]);
    // Aborted attempts still hold their claims: hand them back so any worker can send them now.
    if (opts.release && this.held.size) {
      const claims = [...this.held.values()];
      this.held.clear();
      await this.outbox.release(claims, this.clock.now()).catch((err: unknown) => this.report(err));
    }
  }

  notify(): void {
    if (this.started && !this.stopped) this.schedulePoll(this.clock.now());
  }

  async idle(): Promise<void> {
    while (this.running.size || this.busy.size) {
      await Promise.allSettled([...this.busy]);
      await Promise.allSettled([...this.running]);
    }
  }

  get inFlight(): number {
    return this.running.size;
  }

  // ---- step 1: claim due deliveries — poll the outbox, queue due rows on their endpoint's lane

  /** Keeps only the earliest pending poll: a later request never postpones an earlier one. */
  private schedulePoll(at: number): void {
    if (this.stopped || !this.started) return;
    at = Math.max(at, this.lastPollAt + this.pollSpacing);
    if (this.cancelPoll && this.pollAt !== undefined && this.pollAt <= at) return;
    this.cancelPoll?.();
    this.pollAt = at;
    this.cancelPoll = this.clock.setTimer(() => this.poll(), Math.max(0, at - this.clock.now()));
  }

  private poll(): void {
    this.cancelPoll = undefined;
    this.pollAt = undefined;
    if (this.stopped) return;
    const now = this.clock.now();
    this.lastPollAt = now;
    void this.track(this.readDueDeliveries(now));
  }

  private async readDueDeliveries(now: number): Promise<void> {
    try {
      this.forgetIdleLanes(now);
      for (const d of await this.outbox.due(now, this.laneCap)) {
        if (this.queued.has(d.id)) continue;
        let lane = this.lanes.get(d.url);
        if (!lane) {
          lane = { url: d.url, queue: [], inFlight: 0, claiming: false, starts: [], cancelTimer: undefined };
          this.lanes.set(d.url, lane);
        }
        if (lane.queue.length >= this.laneCap) continue;
        lane.queue.push(d.id);
        this.queued.add(d.id);
      }
      if (this.stopped) return;
      for (const lane of this.lanes.values()) this.paceEndpoint(lane);
      const due = await this.outbox.nextDueAt();
      this.storeFailures = 0;
      // Wake for the next known retry, and at least every pollMs for rows others write.
      const wake = Math.min(now + this.pollMs, due !== undefined && due > now ? due : now + this.pollMs);
      this.schedulePoll(wake);
    } catch (err) {
      // (A notify — the store's LISTEN back after a restart — still looks at once.)
      this.schedulePoll(this.storeFailed(err));
    }
  }

  /** An idle lane is forgotten only once its gap has passed, so a new lane never starts early. */
  private forgetIdleLanes(now: number): void {
    for (const [url, lane] of this.lanes)
      if (!lane.queue.length && !lane.inFlight && !lane.claiming && (lane.starts.at(-1) ?? -Infinity) + this.limits.rateWindowMs <= now) {
        lane.cancelTimer?.();
        this.lanes.delete(url);
      }
  }

  // ---- step 2: pace the endpoint — when its lane may start another request, claim the next row

  private paceEndpoint(lane: Lane): void {
    if (this.stopped || lane.claiming) return;
    lane.cancelTimer?.();
    lane.cancelTimer = undefined;
    if (!lane.queue.length || lane.inFlight >= this.maxInFlight) return;
    const now = this.clock.now();
    const earliest = nextStartAt(lane, this.limits);
    if (now < earliest) return this.paceLater(lane, earliest - now);
    const id = lane.queue.shift()!;
    lane.claiming = true;
    void this.track(
      this.outbox.claim(id, now, this.leaseMs, this.limits).then(
        (c) => {
          this.storeFailures = 0;
          this.afterClaim(lane, id, now, c);
        },
        (err: unknown) => {
          // The store is failing: the lane's other rows would fail the same way, one after
          // another. They are forgotten (still pending in the store) and the next poll, after the
          // backoff, reads them again.
          lane.claiming = false;
          this.queued.delete(id);
          for (const other of lane.queue) this.queued.delete(other);
          lane.queue = [];
          this.schedulePoll(this.storeFailed(err));
        },
      ),
    );
  }

  private paceLater(lane: Lane, ms: number): void {
    lane.cancelTimer = this.clock.setTimer(() => {
      lane.cancelTimer = undefined;
      this.paceEndpoint(lane);
    }, ms);
  }

  /** The claim's answer: wait (another process used the endpoint's budget), send it (step 3), or go on. */
  private afterClaim(lane: Lane, id: number, now: number, c: Awaited<ReturnType<OutboxStore['claim']>>): void {
    lane.claiming = false;
    if (c && 'deferred' in c) {
      // Another process used the endpoint's budget: keep the row at the front and wait.
      lane.queue.unshift(id);
      if (!this.stopped) this.paceLater(lane, Math.max(1, c.retryAt - this.clock.now()));
      return;
    }
    this.queued.delete(id);
    if (c && this.stopped) {
      // Stopped while the claim was under way: give it straight back.
      void this.track(this.outbox.release([c], this.clock.now()).catch((err: unknown) => this.report(err)));
      return;
    }
    if (c) this.startAttempt(lane, c, now);
    // Taken by another worker, cancelled, or no longer due: on to the next one.
    this.paceEndpoint(lane);
  }

  private startAttempt(lane: Lane, c: Claim, now: number): void {
    lane.starts.push(now);
    if (lane.starts.length > this.limits.ratePerSecond) lane.starts.shift();
    lane.inFlight++;
    this.held.set(c.id, c);
    const p = this.sendOne(c, now).finally(() => {
      // An attempt aborted by stop() still holds its claim: stop() gives it back. (Releasing a
      // claim already recorded is a no-op: the row is no longer 'delivering' at that attempt.)
      if (!this.aborter.signal.aborted) this.held.delete(c.id);
      lane.inFlight--;
      this.running.delete(p);
      if (lane.queue.length < this.laneCap / 2) this.schedulePoll(this.clock.now());
      this.paceEndpoint(lane);
    });
    this.running.add(p);
  }

  // ---- step 3: send one — signed; the answer judged; its retry scheduled

  private async sendOne(claim: Claim, startedAt: number): Promise<void> {
    let statusCode: number | null = null;
    let sendError: string | null = null;
    try {
      statusCode = (await this.send({ url: claim.url, headers: deliveryHeaders(claim), body: claim.body, signal: this.aborter.signal })).status;
    } catch (err) {
      if (this.aborter.signal.aborted) return; // shutting down: given back by stop(), else the lease brings it back
      sendError = describe(err);
    }
    const finishedAt = this.clock.now();
    const error = attemptError(statusCode, sendError, finishedAt - startedAt);
    const ok = error === null;
    const nextAt = ok ? undefined : nextAttemptAt(claim.attempt, finishedAt);
    await this.recordAttempt(claim, { startedAt, finishedAt, ok, statusCode, error, nextAt });
    if (nextAt !== undefined) this.schedulePoll(Math.min(nextAt, this.clock.now() + this.pollMs));
    try {
      this.o.onAttempt?.({ ...attemptIds(claim), ok, statusCode, startedAt, latencyMs: finishedAt - startedAt, error, nextAt });
    } catch (err) {
      this.report(err);
    }
  }

  // ---- step 4: record the attempt

  /**
   * The attempt's outcome into the store; when that fails it is tried again after the backoff,
   * while the claim's lease lasts (a database restart takes seconds), in the background (the lane
   * goes on). Given up — or the worker stopped — the lease brings the row back and it is sent
   * again (at-least-once), which a recorded outcome avoids.
   */
  private async recordAttempt(claim: Claim, r: Parameters<OutboxStore['recordAttempt']>[1], failures = 0): Promise<void> {
    try {
      await this.outbox.recordAttempt(claim, r);
    } catch (err) {
      this.report(err);
      const wait = storeRetryDelay(failures + 1, this.pollMs);
      if (this.stopped || this.clock.now() + wait >= r.startedAt + this.leaseMs) return;
      const cancel = this.clock.setTimer(() => {
        this.recordRetries.delete(cancel);
        if (!this.stopped) void this.track(this.recordAttempt(claim, r, failures + 1));
      }, wait);
      this.recordRetries.add(cancel);
    }
  }

  // ---- the store's failures and the worker's own

  /** A store call under way (idle() and stop() wait for it). */
  private track<T>(p: Promise<T>): Promise<T> {
    this.busy.add(p);
    void p.then(
      () => this.busy.delete(p),
      () => this.busy.delete(p),
    );
    return p;
  }

  /** Reports a failed poll or claim; returns when to look again (the backoff). */
  private storeFailed(err: unknown): number {
    this.report(err);
    this.storeFailures++;
    return this.clock.now() + storeRetryDelay(this.storeFailures, this.pollMs);
  }

  private report(err: unknown): void {
    try {
      this.o.onError?.(err);
    } catch {
      // a reporting failure must not stop delivery
    }
  }
}
