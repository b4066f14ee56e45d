/**
 * The running account of a batch — counts, failures, gate hits, rate — fed one result line at a
 * time (from the embedded runner or from a service's results stream) and turned into the summary.
 */
import type { VerityError } from '../api/errors.js';
import { EXIT } from '../api/exit-codes.js';
import { idempotencyKey, type BatchItem, type ItemType } from './items.js';
import { gateView, type JournalEntry, type ResultLine } from './journal.js';
import { exitCodeOf, gateReasons, type BatchGates, type BatchSummary, type GateHit } from './outcome.js';
import type { ProgressCounts } from './progress.js';

/** One kind's line of the summary table: counts, and how its results came out (verdicts, statuses, …). */
export interface TypeCounts {
  items: number;
  succeeded: number;
  failed: number;
  gateHits: number;
  /** Outcome word → items: `true`/`false`/… for claims, statuses, authenticities, `flagged`/`no flags`. */
  outcomes: Record<string, number>;
}

/** The one word a result comes out as, for the summary: verdict, status, authenticity or flags. */
export function outcomeWord(view: Record<string, unknown>): string | null {
  for (const k of ['verdict', 'status', 'authenticity'] as const) if (typeof view[k] === 'string') return (view[k] as string).replace(/_/g, ' ');
  if (Array.isArray(view.manipulation_flags)) return view.manipulation_flags.length ? 'flagged' : 'no flags';
  return null;
}

export class BatchTally {
  succeeded = 0;
  failed = 0;
  resumed = 0;
  doneThisRun = 0;
  readonly failures: BatchSummary['failures'] = [];
  readonly gateHits: GateHit[] = [];
  private readonly started: number;
  /** Counts per kind of item, in the order kinds first appear in the input. */
  readonly byType = new Map<ItemType, TypeCounts>();

  constructor(
    readonly total: number,
    private readonly gates: BatchGates,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.started = now();
  }

  /** Items --resume found succeeded but whose input has changed since (they run again). */
  readonly changed: BatchItem[] = [];

  /**
   * Items that succeeded in an earlier run (--resume): counted, and gated, but not run again.
   * An item whose input is in the line itself (no file to read) must also have the journal's
   * idempotency key: a custom_id like `line-12` may name another request after an edit.
   * Returns the items still to run.
   */
  resume(items: readonly BatchItem[], earlier: ReadonlyMap<string, JournalEntry>): BatchItem[] {
    const todo: BatchItem[] = [];
    for (const item of items) this.kind(item.type).items++;
    for (const item of items) {
      const e = earlier.get(item.custom_id);
      if (e?.status !== 'succeeded') {
        todo.push(item);
        continue;
      }
      if (!item.file && e.idempotency_key && e.idempotency_key !== idempotencyKey(item.type, item.request)) {
        this.changed.push(item);
        todo.push(item);
        continue;
      }
      this.resumed++;
      this.succeeded++;
      this.counted(item.type, e.gateView ?? {}, e.gateView ? gateReasons(e.gateView, this.gates) : [], item);
    }
    return todo;
  }

  add(line: ResultLine): void {
    this.doneThisRun++;
    if (line.status === 'succeeded') {
      this.succeeded++;
      const view = gateView(line.result ?? {});
      this.counted(line.type, view, gateReasons(view, this.gates), line);
    } else {
      this.failed++;
      this.kind(line.type).failed++;
      this.failures.push({ custom_id: line.custom_id, line: line.line, error: line.error ?? { code: 'INTERNAL_ERROR', message: 'no error given' } });
    }
  }

  private kind(type: ItemType): TypeCounts {
    let k = this.byType.get(type);
    if (!k) this.byType.set(type, (k = { items: 0, succeeded: 0, failed: 0, gateHits: 0, outcomes: {} }));
    return k;
  }

  private counted(type: ItemType, view: Record<string, unknown>, reasons: string[], at: { custom_id: string; line?: number }): void {
    const k = this.kind(type);
    k.succeeded++;
    const word = outcomeWord(view);
    if (word) k.outcomes[word] = (k.outcomes[word] ?? 0) + 1;
    if (reasons.length) {
      k.gateHits++;
      this.gateHits.push({ custom_id: at.custom_id, ...(at.line === undefined ? {} : { line: at.line }), reasons });
    }
  }

  progress(): ProgressCounts {
    return {
      done: this.succeeded + this.failed,
      total: this.total,
      succeeded: this.succeeded,
      failed: this.failed,
      doneThisRun: this.doneThisRun,
      elapsedMs: this.now() - this.started,
    };
  }

  summary(o: { out?: string; stoppedBy?: VerityError; interrupted?: boolean } = {}): BatchSummary {
    const elapsed = this.now() - this.started;
    const byLine = (a: { line?: number }, b: { line?: number }): number => (a.line ?? 0) - (b.line ?? 0);
    const s: BatchSummary = {
      total: this.total,
      succeeded: this.succeeded,
      failed: this.failed,
      resumed: this.resumed,
      not_run: this.total - this.succeeded - this.failed,
      failures: [...this.failures].sort(byLine),
      gate: {
        set: this.gates.failOn.size > 0 || this.gates.minTrust !== undefined,
        passed: this.gateHits.length === 0,
        failed_items: [...this.gateHits].sort(byLine),
      },
      ...(o.out ? { out: o.out } : {}),
      elapsed_ms: Math.round(elapsed),
      items_per_second: elapsed > 0 ? Math.round((this.doneThisRun / (elapsed / 1000)) * 10) / 10 : 0,
      exit_code: 0,
    };
    s.exit_code = o.interrupted ? EXIT.interrupted : exitCodeOf(s, o.stoppedBy);
    return s;
  }
}
