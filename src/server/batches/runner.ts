/**
 * The batch runner: the server's background worker that runs batch items (issue 15).
 *
 * Items are claimed from the store with a lease (renewed while they run) and finished by the claim
 * that holds them, with the charge and the item's event in the same transaction (BatchStore). Each
 * batch runs at most its plan's item concurrency, and the server at most SERVER_MAX_CONCURRENCY
 * items at once; the per-minute request limit does not apply to items.
 *
 * After a restart the runner first hands back claims left by the previous process (the serve lock
 * guarantees it is gone), then continues every unfinished batch. A graceful stop aborts the items
 * in flight and hands their claims back, so nothing is charged for work that did not finish.
 *
 * Live batches keep their unfinished items' credits reserved in the ledger, so single requests
 * and other batches cannot spend credits a running batch was promised.
 */
import { availableParallelism } from 'node:os';
import { toVerityError, VerityError } from '../../api/errors.js';
import { randomBase62, verificationId, type VerificationKind } from '../../api/ids.js';
import type { VerificationResult } from '../../api/results.js';
import type { Clock, Engine } from '../../engine/types.js';
import { StaleBatchWrite, type BatchRow, type BatchScope, type BatchStore, type ClaimedItem, type ItemOutcome } from '../../store/ports/batches.js';
import type { QuotaHold, ServerStore } from '../../store/ports/index.js';
import { PLAN_LIMITS } from '../../api/plans.js';
import { periodOf } from '../../domain/keys.js';
import type { Ledger } from '../usage.js';
import type { AuthInfo, BatchFinishedInfo, ServerDeps, VerificationFailedInfo, VerificationRecordedInfo } from '../types.js';
import { ITEM_LEASE_MS, limitsFor, SERVER_MAX_CONCURRENCY } from './limits.js';
import { SPOOLED, type BatchSpool } from './spool.js';
import { batchEventData } from './view.js';

export type BatchHooks = Pick<
  ServerDeps,
  'afterVerification' | 'afterFailure' | 'eventsAfterVerification' | 'eventsAfterFailure' | 'afterBatch' | 'eventsAfterBatch'
>;

export interface BatchRunnerDeps {
  /** The server store: its charge commit carries each item's finish (one transaction). */
  server: ServerStore;
  store: BatchStore;
  engines: { live: Engine; test: Engine };
  ledger: Ledger;
  clock: Clock;
  hooks: BatchHooks;
  log: { error(obj: object, msg: string): void };
  maxConcurrency?: number;
  leaseMs?: number;
  /** How often unfinished batches are looked at without a nudge (expired leases, other writers). */
  pollMs?: number;
  /** The poll's timers (a fake clock in tests). */
  timers?: PollTimers;
  /** Streamed batches' files (spool.ts): read when their item runs, removed when it is finished. */
  spool?: BatchSpool;
  /**
   * Spooled files held in memory at once (default: twice the cores, what the analysis pool can
   * use): items past it wait before reading theirs, so the plan's item concurrency (up to 32 a
   * batch, 64 a server) does not become 64 files of up to 20 MB waiting for two workers.
   */
  filesInFlight?: number;
}

/** A counting semaphore: `take()` resolves when one of `n` places is free; `give()` frees one. */
function places(n: number): { take(signal: AbortSignal): Promise<void>; give(): void } {
  let free = n;
  const waiting: Array<() => void> = [];
  return {
    take(signal) {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const go = (): void => {
          signal.removeEventListener('abort', stop);
          resolve();
        };
        const stop = (): void => {
          const i = waiting.indexOf(go);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal.reason);
        };
        waiting.push(go);
        signal.addEventListener('abort', stop, { once: true });
      });
    },
    give() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

/** What the runner's poll needs of the timers. */
export interface PollTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

const realTimers: PollTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
};

/** The longest wait between looks at the queue while the store keeps failing. */
export const POLL_BACKOFF_CAP_MS = 60_000;

/**
 * The wait before the next look at the queue: the poll interval while the store answers; after
 * `failures` failed looks in a row (the database away), 1, 2, 4 … s up to POLL_BACKOFF_CAP_MS —
 * soon at first, so a short outage costs little, then seldom, so a long one does not fill the
 * log with the same error every few seconds (issue 28). A nudge (a new batch, a cancel) still
 * looks at once.
 */
export function nextPollMs(failures: number, pollMs: number): number {
  if (failures === 0) return pollMs;
  return Math.min(POLL_BACKOFF_CAP_MS, 1_000 * 2 ** (failures - 1));
}

const call = (engine: Engine, kind: VerificationKind, body: never, opts: { plan: AuthInfo['plan']; signal: AbortSignal; inputFile?: string }): Promise<VerificationResult> => {
  switch (kind) {
    case 'claim':
      return engine.verifyClaim(body, opts);
    case 'business':
      return engine.verifyBusiness(body, opts);
    case 'media':
      return engine.verifyMedia(body, opts);
    case 'document':
      return engine.verifyDocument(body, opts);
  }
};

const TERMINAL = new Set(['completed', 'partial', 'cancelled']);
const terminalOf = (b: BatchRow): 'completed' | 'partial' | 'cancelled' => (b.cancelled > 0 ? 'cancelled' : b.failed > 0 ? 'partial' : 'completed');

const STOPPING = Symbol('stopping');
const CANCELLED = Symbol('cancelled');

const authOf = (b: BatchRow & { plan?: string }, plan: string): AuthInfo => ({
  accountId: b.account_id,
  keyId: b.key_id,
  keyPrefix: b.key_prefix,
  plan: plan as AuthInfo['plan'],
  environment: b.environment,
});

export function createBatchRunner(d: BatchRunnerDeps) {
  const owner = `run_${randomBase62(16)}`;
  const maxConcurrency = d.maxConcurrency ?? SERVER_MAX_CONCURRENCY;
  const leaseMs = d.leaseMs ?? ITEM_LEASE_MS;
  const inflight = new Map<string, Map<number, AbortController>>();
  const running = new Set<Promise<void>>();
  const reservations = new Map<string, QuotaHold>();
  const holdChain = new Map<string, Promise<void>>();
  const listeners = new Map<string, Set<() => void>>();
  let total = 0;
  let state: 'idle' | 'running' | 'stopped' = 'idle';
  let pumping = false;
  let again = false;
  let renewTimer: NodeJS.Timeout | undefined;
  let pollTimer: unknown;
  /** Looks at the queue that failed in a row (the poll backs off, see nextPollMs). */
  let failures = 0;
  const timers = d.timers ?? realTimers;

  const nowMs = (): number => d.clock.now().getTime();
  const files = places(d.filesInFlight ?? 2 * availableParallelism());
  const spoolOf = (): BatchSpool => {
    if (!d.spool) throw new VerityError('UNAVAILABLE', 'This server has no batch spool for the file of this item');
    return d.spool;
  };

  function notify(batchId: string): void {
    for (const f of listeners.get(batchId) ?? []) f();
  }

  /**
   * Holds the credits of the batch's unfinished items (live only), re-taken as items settle;
   * holds of one batch are changed one at a time.
   */
  function hold(b: BatchRow, plan: string): Promise<void> {
    const prior = holdChain.get(b.id) ?? Promise.resolve();
    const next = prior.then(async () => {
      const old = reservations.get(b.id);
      reservations.delete(b.id);
      if (old) await d.ledger.release(old);
      if (b.environment !== 'live' || state === 'stopped') return;
      // Read again: a pump may hold for a row read just before the batch ended (the hold would leak).
      const fresh = await d.store.get({ accountId: b.account_id, environment: b.environment }, b.id);
      if (!fresh || TERMINAL.has(fresh.status)) return;
      const remaining = fresh.credits_reserved - fresh.credits_settled;
      if (remaining <= 0) return;
      try {
        // Tagged with the batch: on a shared store every process running it holds ONE amount.
        const h = await d.ledger.reserve(authOf(b, plan), remaining, b.id);
        if (h) reservations.set(b.id, h);
      } catch {
        // The quota shrank (a plan change) since the batch was accepted: the batch keeps running on
        // the promise it was given; other requests see less headroom through usage only.
      }
    });
    const settled = next.catch(() => undefined);
    holdChain.set(b.id, settled);
    void settled.then(() => {
      if (holdChain.get(b.id) === settled) holdChain.delete(b.id);
    });
    return settled;
  }

  async function dropHold(batchId: string): Promise<void> {
    await holdChain.get(batchId);
    const h = reservations.get(batchId);
    reservations.delete(batchId);
    if (h) await d.ledger.release(h);
  }

  async function finalize(b: BatchRow): Promise<void> {
    // The event is built from the row as read now; the step re-checks it inside the commit.
    const seen = await d.store.get({ accountId: b.account_id, environment: b.environment }, b.id);
    if (!seen || TERMINAL.has(seen.status)) return;
    const now = d.clock.now();
    const nowIso = now.toISOString();
    const final: BatchRow = { ...seen, status: terminalOf(seen), completed_at: nowIso };
    const info: BatchFinishedInfo = { accountId: b.account_id, environment: b.environment, batch: batchEventData(final), now };
    const step = d.store.finalizeStep(seen, nowIso);
    try {
      // (commitFailure is the server store's "outbox + hook" commit; nothing is charged here.)
      await d.server.commitFailure({
        outbox: d.hooks.eventsAfterBatch?.(info) ?? [],
        sqliteHook: (db) => {
          step.sqlite?.(db);
          d.hooks.afterBatch?.(db, info);
        },
        pgHook: step.postgres && (async (tx) => void (await step.postgres!(tx))),
      });
    } catch (err) {
      if (err instanceof StaleBatchWrite) return; // items still running, or counts moved: a later pump ends it
      throw err;
    }
    await dropHold(b.id);
    // Files of items that never ran (cancelled) go with the batch.
    await d.spool?.dropBatch(b.id).catch((err: unknown) => d.log.error({ err, batch_id: b.id }, 'batch spool folder could not be removed'));
    notify(b.id);
  }

  async function runItem(b: BatchRow, plan: string, item: ClaimedItem, ac: AbortController): Promise<void> {
    const kind = b.type;
    const auth = authOf(b, plan);
    let outcome: ItemOutcome;
    let result: VerificationResult | undefined;
    let error: VerityError | undefined;
    const request = JSON.parse(item.request) as Record<string, unknown>;
    // A streamed batch's file waits in the spool; the analysis reads it there (VerifyOptions.inputFile):
    // this process never holds the bytes of a photo.
    const spooled = request[SPOOLED] === true;
    delete request[SPOOLED];
    let holding = false;
    try {
      if (spooled) {
        await files.take(ac.signal);
        holding = true;
      }
      const inputFile = spooled ? await spoolOf().file(b.id, item.index) : undefined;
      try {
        result = await call(d.engines[b.environment], kind, request as never, { plan: auth.plan, signal: ac.signal, ...(inputFile !== undefined ? { inputFile } : {}) });
      } finally {
        if (holding) files.give();
        holding = false;
      }
      outcome = { status: 'succeeded', result: JSON.stringify(result), credits: result.credits_used };
    } catch (err) {
      if (holding) files.give();
      if (ac.signal.aborted && ac.signal.reason === STOPPING) {
        await d.store.release(owner, [item]);
        return;
      }
      if (ac.signal.aborted && ac.signal.reason === CANCELLED) outcome = { status: 'cancelled' };
      else {
        error = toVerityError(err);
        if (error.code === 'INTERNAL_ERROR') d.log.error({ err: error.cause ?? err, batch_id: b.id, index: item.index }, 'batch item failed');
        outcome = { status: 'failed', error: { code: error.code, message: error.message } };
      }
    }
    const ref = { batch_id: b.id, custom_id: item.custom_id };
    const now = d.clock.now();
    const step = d.store.finishStep(item, outcome, now.toISOString());
    let after: BatchRow | undefined;
    try {
      if (outcome.status === 'succeeded') {
        const r = result!;
        const info = (usage: { before: number; after: number }): VerificationRecordedInfo => ({
          accountId: auth.accountId,
          environment: auth.environment,
          kind,
          result: r,
          creditsUsed: r.credits_used,
          usageBefore: usage.before,
          usageAfter: usage.after,
          monthlyQuota: PLAN_LIMITS[auth.plan].monthlyCredits,
          now,
          batch: ref,
        });
        // The charge, the item's result and its events: one transaction (the server store's commit).
        await d.server.commitCharge({
          accountId: auth.accountId,
          environment: auth.environment,
          period: periodOf(now),
          credits: r.credits_used,
          nowMs: now.getTime(),
          outbox: d.hooks.eventsAfterVerification && ((usage, o) => d.hooks.eventsAfterVerification!(info(usage), o)),
          sqliteHook: (db, usage) => {
            if (step.sqlite) after = step.sqlite(db);
            d.hooks.afterVerification?.(db, info(usage));
          },
          pgHook: step.postgres && (async (tx) => void (after = await step.postgres!(tx))),
        });
      } else {
        const info: VerificationFailedInfo | undefined =
          outcome.status === 'failed' ? { accountId: auth.accountId, environment: auth.environment, kind, requestId: verificationId(kind), error: error!, now, batch: ref } : undefined;
        await d.server.commitFailure({
          outbox: info && d.hooks.eventsAfterFailure ? d.hooks.eventsAfterFailure(info) : [],
          sqliteHook: (db) => {
            if (step.sqlite) after = step.sqlite(db);
            if (info) d.hooks.afterFailure?.(db, info);
          },
          pgHook: step.postgres && (async (tx) => void (after = await step.postgres!(tx))),
        });
      }
    } catch (err) {
      if (err instanceof StaleBatchWrite) return; // another worker finished it: nothing charged or sent twice
      throw err;
    }
    if (spooled) await spoolOf().dropItem(b.id, item.index);
    if (after) {
      if (reservations.has(b.id)) void hold(after, plan);
      notify(b.id);
    }
  }

  function start(b: BatchRow, plan: string, item: ClaimedItem): void {
    const ac = new AbortController();
    let mine = inflight.get(b.id);
    if (!mine) inflight.set(b.id, (mine = new Map()));
    mine.set(item.index, ac);
    total++;
    const p = runItem(b, plan, item, ac)
      .catch((err: unknown) => d.log.error({ err, batch_id: b.id, index: item.index }, 'batch item could not be recorded'))
      .finally(() => {
        mine.delete(item.index);
        if (mine.size === 0 && inflight.get(b.id) === mine) inflight.delete(b.id);
        total--;
        running.delete(p);
        void pump();
      });
    running.add(p);
  }

  /** Looks at every unfinished batch and starts what the limits allow; calls while busy coalesce. */
  async function pump(): Promise<void> {
    if (state !== 'running') return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        for (const b of await d.store.active()) {
          if (state !== 'running') return;
          const mine = inflight.get(b.id)?.size ?? 0;
          if (b.environment === 'live' && !reservations.has(b.id) && !holdChain.has(b.id)) void hold(b, b.plan);
          if (b.status === 'cancelling') {
            if (mine === 0) {
              await d.store.cancel({ accountId: b.account_id, environment: b.environment }, b.id, d.clock.now().toISOString());
              await finalize(b);
            }
            continue;
          }
          const free = Math.min(limitsFor(b.plan).itemConcurrency - mine, maxConcurrency - total);
          if (free <= 0) continue;
          const now = nowMs();
          const items = await d.store.claim(b.id, owner, free, now, now + leaseMs);
          if (items.length === 0) {
            if (mine === 0) await finalize(b);
            continue;
          }
          for (const item of items) start(b, b.plan, item);
        }
      } while (again && state === 'running');
      failures = 0;
    } catch (err) {
      failures++;
      d.log.error({ err, failures, retry_in_ms: nextPollMs(failures, d.pollMs ?? 5_000) }, 'batch runner could not read the queue');
    } finally {
      pumping = false;
      schedulePoll();
    }
  }

  /** The next look at the queue without a nudge, from the end of this one (see nextPollMs). */
  function schedulePoll(): void {
    if (pollTimer !== undefined) timers.clearTimeout(pollTimer);
    pollTimer = undefined;
    if (state !== 'running') return;
    pollTimer = timers.setTimeout(() => {
      pollTimer = undefined;
      void pump();
    }, nextPollMs(failures, d.pollMs ?? 5_000));
  }

  return {
    owner,
    /** Hands claims of a previous process back, then runs every unfinished batch. */
    async start(): Promise<void> {
      if (state !== 'idle') return;
      state = 'running';
      await d.store.recover(owner);
      // Folders of batches that ended while no server ran them, and uploads a crash cut off.
      if (d.spool) {
        const live = new Set((await d.store.active()).map((b) => b.id));
        await d.spool.sweep(live, nowMs()).catch((err: unknown) => d.log.error({ err }, 'batch spool sweep failed'));
      }
      renewTimer = setInterval(() => {
        if (total > 0) d.store.renew(owner, nowMs() + leaseMs).catch((err: unknown) => d.log.error({ err }, 'batch lease renewal failed'));
      }, Math.max(1_000, Math.floor(leaseMs / 3)));
      renewTimer.unref();
      void pump();
    },
    /** Aborts the items in flight, hands their claims back and waits for them to settle. */
    async stop(): Promise<void> {
      if (state === 'stopped') return;
      state = 'stopped';
      clearInterval(renewTimer);
      if (pollTimer !== undefined) timers.clearTimeout(pollTimer);
      pollTimer = undefined;
      for (const m of inflight.values()) for (const ac of m.values()) ac.abort(STOPPING);
      await Promise.allSettled([...running]);
      await Promise.allSettled([...holdChain.values()]);
      for (const h of reservations.values()) await d.ledger.release(h).catch(() => undefined);
      reservations.clear();
      for (const id of [...listeners.keys()]) notify(id);
    },
    get stopped(): boolean {
      return state === 'stopped';
    },
    /** A new batch: its credits were held by the route (402 before it was stored). */
    adopt(batchId: string, h: QuotaHold | undefined): void {
      if (h) reservations.set(batchId, h);
      void pump();
    },
    async cancel(scope: BatchScope, id: string): Promise<BatchRow | undefined> {
      const row = await d.store.cancel(scope, id, d.clock.now().toISOString());
      if (!row) return undefined;
      if (row.status === 'cancelling') {
        for (const ac of inflight.get(id)?.values() ?? []) ac.abort(CANCELLED);
        notify(id);
        void pump();
      }
      return row;
    },
    /** Calls `f` whenever an item of the batch finishes or the batch ends; returns the unsubscribe. */
    subscribe(batchId: string, f: () => void): () => void {
      let set = listeners.get(batchId);
      if (!set) listeners.set(batchId, (set = new Set()));
      set.add(f);
      return () => {
        set.delete(f);
        if (set.size === 0 && listeners.get(batchId) === set) listeners.delete(batchId);
      };
    },
    pump,
  };
}

export type BatchRunner = ReturnType<typeof createBatchRunner>;
