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
 */
import { STATUS_CODES } from 'node:http';
import type { Database } from '../store/database.js';
import { claimDelivery, dueDeliveries, nextDueAt, recordAttempt, type Claim } from './repository.js';
import { LEASE_MS, MAX_IN_FLIGHT_PER_ENDPOINT, MIN_GAP_MS, RATE_PER_SECOND, RATE_WINDOW_MS, RESPONSE_DEADLINE_MS, nextAttemptAt } from './schedule.js';
import { ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, REPLAY_HEADER, SIGNATURE_HEADER, sign } from './signature.js';
import { ForbiddenTargetError, guardedLookup, literalTargetProblem, type TargetPolicy } from './target-guard.js';

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
  db: Database;
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
  /** Start times of the last `rate` attempts (the sliding window). */
  starts: number[];
  cancelTimer: (() => void) | undefined;
}

export interface DeliveryWorker {
  start(): void;
  /** Stops taking work. In-flight attempts are aborted when `abort`, else awaited. */
  stop(opts?: { abort?: boolean }): Promise<void>;
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

export function createDeliveryWorker(o: WorkerOptions): DeliveryWorker {
  const clock = o.clock ?? systemWorkerClock;
  const send = o.send ?? httpSender(o.userAgent ?? 'verity-webhooks', o.targetPolicy);
  const pollMs = o.pollMs ?? 1000;
  const leaseMs = o.leaseMs ?? LEASE_MS;
  const minGap = o.minGapMs ?? MIN_GAP_MS;
  const maxInFlight = o.maxInFlightPerEndpoint ?? MAX_IN_FLIGHT_PER_ENDPOINT;
  const rate = o.ratePerSecond ?? RATE_PER_SECOND;
  const windowMs = o.rateWindowMs ?? RATE_WINDOW_MS;
  /** A lane holds up to 4 s of work at full rate, and asks for more when half is left. */
  const laneCap = Math.max(40, maxInFlight * 4);
  /** Polls are coalesced: at most one every 200 ms however many lanes ask for work. */
  const pollSpacing = 200;
  let lastPollAt = -Infinity;
  /** The earliest time the lane may start another request. */
  const nextStartAt = (lane: Lane): number => {
    const last = lane.starts.at(-1);
    let t = last === undefined ? -Infinity : last + minGap;
    if (lane.starts.length >= rate) t = Math.max(t, lane.starts[lane.starts.length - rate]! + windowMs);
    return t;
  };
  const lanes = new Map<string, Lane>();
  const queued = new Set<number>();
  const running = new Set<Promise<void>>();
  const aborter = new AbortController();
  let started = false;
  let stopped = false;
  let cancelPoll: (() => void) | undefined;
  let pollAt: number | undefined;

  const report = (err: unknown): void => {
    try {
      o.onError?.(err);
    } catch {
      // a reporting failure must not stop delivery
    }
  };

  /** Keeps only the earliest pending poll: a later request never postpones an earlier one. */
  function schedulePoll(at: number): void {
    if (stopped || !started) return;
    at = Math.max(at, lastPollAt + pollSpacing);
    if (cancelPoll && pollAt !== undefined && pollAt <= at) return;
    cancelPoll?.();
    pollAt = at;
    cancelPoll = clock.setTimer(poll, Math.max(0, at - clock.now()));
  }

  function poll(): void {
    cancelPoll = undefined;
    pollAt = undefined;
    if (stopped) return;
    const now = clock.now();
    lastPollAt = now;
    try {
      // An idle lane is forgotten only once its gap has passed, so a new lane never starts early.
      for (const [url, lane] of lanes)
        if (!lane.queue.length && !lane.inFlight && (lane.starts.at(-1) ?? -Infinity) + windowMs <= now) {
          lane.cancelTimer?.();
          lanes.delete(url);
        }
      for (const d of dueDeliveries(o.db, now, laneCap)) {
        if (queued.has(d.id)) continue;
        let lane = lanes.get(d.url);
        if (!lane) {
          lane = { url: d.url, queue: [], inFlight: 0, starts: [], cancelTimer: undefined };
          lanes.set(d.url, lane);
        }
        if (lane.queue.length >= laneCap) continue;
        lane.queue.push(d.id);
        queued.add(d.id);
      }
      for (const lane of lanes.values()) pump(lane);
      const due = nextDueAt(o.db);
      // Wake for the next known retry, and at least every pollMs for rows others write.
      const wake = Math.min(now + pollMs, due !== undefined && due > now ? due : now + pollMs);
      schedulePoll(wake);
    } catch (err) {
      report(err);
      schedulePoll(now + pollMs);
    }
  }

  function pump(lane: Lane): void {
    if (stopped) return;
    lane.cancelTimer?.();
    lane.cancelTimer = undefined;
    while (lane.queue.length && lane.inFlight < maxInFlight) {
      const now = clock.now();
      const earliest = nextStartAt(lane);
      if (now < earliest) {
        lane.cancelTimer = clock.setTimer(() => {
          lane.cancelTimer = undefined;
          pump(lane);
        }, earliest - now);
        return;
      }
      const id = lane.queue.shift()!;
      let claim: Claim | undefined;
      try {
        claim = claimDelivery(o.db, id, now, leaseMs);
      } catch (err) {
        report(err);
      }
      queued.delete(id);
      if (!claim) continue; // taken by another worker, cancelled, or no longer due
      lane.starts.push(now);
      if (lane.starts.length > rate) lane.starts.shift();
      lane.inFlight++;
      const p = attempt(claim, now).finally(() => {
        lane.inFlight--;
        running.delete(p);
        if (lane.queue.length < laneCap / 2) schedulePoll(clock.now());
        pump(lane);
      });
      running.add(p);
    }
  }

  async function attempt(claim: Claim, startedAt: number): Promise<void> {
    const headers = {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: sign(claim.secret, claim.body),
      [EVENT_ID_HEADER]: claim.event_id,
      [EVENT_TYPE_HEADER]: claim.event_type,
      [ATTEMPT_HEADER]: String(claim.attempt),
      ...(claim.replay ? { [REPLAY_HEADER]: '1' } : {}),
    };
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await send({ url: claim.url, headers, body: claim.body, signal: aborter.signal });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}${STATUS_CODES[res.status] ? ` ${STATUS_CODES[res.status]}` : ''}`;
    } catch (err) {
      if (aborter.signal.aborted) return; // shutting down: the lease will bring it back
      error = describe(err);
    }
    const finishedAt = clock.now();
    const latency = finishedAt - startedAt;
    // SPEC 6.4.1: a 2xx that arrives after the deadline is still a failure.
    if (!error && latency > RESPONSE_DEADLINE_MS)
      error = `answered HTTP ${statusCode} after ${(latency / 1000).toFixed(1)} s; the deadline is ${RESPONSE_DEADLINE_MS / 1000} s`;
    const ok = error === null;
    const nextAt = ok ? undefined : nextAttemptAt(claim.attempt, finishedAt);
    try {
      recordAttempt(o.db, claim, { startedAt, finishedAt, ok, statusCode, error, nextAt });
    } catch (err) {
      report(err);
    }
    if (nextAt !== undefined) schedulePoll(Math.min(nextAt, clock.now() + pollMs));
    try {
      o.onAttempt?.({
        deliveryId: claim.id,
        eventId: claim.event_id,
        eventType: claim.event_type,
        webhookId: claim.webhook_id,
        url: claim.url,
        attempt: claim.attempt,
        ok,
        statusCode,
        startedAt,
        latencyMs: latency,
        error,
        nextAt,
      });
    } catch (err) {
      report(err);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      schedulePoll(clock.now());
    },
    async stop(opts = {}) {
      stopped = true;
      cancelPoll?.();
      for (const lane of lanes.values()) lane.cancelTimer?.();
      if (opts.abort) aborter.abort();
      await Promise.allSettled([...running]);
    },
    notify() {
      if (started && !stopped) schedulePoll(clock.now());
    },
    async idle() {
      while (running.size) await Promise.allSettled([...running]);
    },
    get inFlight() {
      return running.size;
    },
  };
}
