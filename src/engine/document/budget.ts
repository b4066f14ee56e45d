/**
 * A time budget for one document analysis, so no file can hang the process: each stage races
 * its work against what is left of the budget (and the caller's abort signal) and reports a
 * timeout as a warning instead of waiting. Work that cannot be interrupted (pdf.js inside one
 * call) is abandoned, and its resources are released by the stage's own cleanup.
 */
export const DEFAULT_BUDGET_MS = 20_000;

export class Budget {
  private readonly deadline: number;
  constructor(
    ms: number,
    readonly signal?: AbortSignal,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = this.now() + ms;
  }

  remaining(): number {
    return Math.max(0, this.deadline - this.now());
  }

  expired(): boolean {
    return this.remaining() <= 0 || !!this.signal?.aborted;
  }

  /** Resolves to the stage's value, or to `{ timedOut: true }` when the budget runs out first. */
  async run<T>(work: Promise<T>): Promise<{ value: T; timedOut: false } | { timedOut: true }> {
    if (this.signal?.aborted) throw this.signal.reason ?? new Error('aborted');
    if (this.remaining() <= 0) {
      work.catch(() => undefined);
      return { timedOut: true };
    }
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<{ timedOut: true }>((resolve, reject) => {
      timer = setTimeout(() => resolve({ timedOut: true }), this.remaining());
      if (this.signal) {
        onAbort = () => reject(this.signal!.reason ?? new Error('aborted'));
        this.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      return await Promise.race([work.then((value) => ({ value, timedOut: false as const })), stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) this.signal?.removeEventListener('abort', onAbort);
      // A lost race must not leave an unhandled rejection behind.
      work.catch(() => undefined);
    }
  }
}

/**
 * Caps on decompressed bytes (issue 12: a 4 MB PDF whose streams inflate to 4 GB). Flate can
 * expand ~1000:1, so the compressed size says nothing; every inflation is cut off by zlib itself
 * once it has produced the cap (Node's `maxOutputLength`), never after the fact.
 */
export const INFLATE_LIMITS = {
  /** One stream may inflate to at most this many bytes. */
  perStreamBytes: 64 * 1024 * 1024,
  /** All streams of one document together. */
  documentBytes: 256 * 1024 * 1024,
} as const;

/** Counts what one document has inflated so far against INFLATE_LIMITS (or test-sized limits). */
export class InflateBudget {
  used = 0;
  /** Set when a cap stopped an inflation: names the cap, for the warning. */
  exceeded: string | undefined;
  constructor(readonly limits: { perStreamBytes: number; documentBytes: number } = INFLATE_LIMITS) {}

  /** The budget again from its structured clone (a structure read on the extraction thread: extraction-thread.ts). */
  static restore(clone: Pick<InflateBudget, 'limits' | 'used' | 'exceeded'>): InflateBudget {
    const b = new InflateBudget({ perStreamBytes: clone.limits.perStreamBytes, documentBytes: clone.limits.documentBytes });
    b.used = clone.used;
    b.exceeded = clone.exceeded;
    return b;
  }

  /** The most the next stream may produce. */
  nextCap(): number {
    return Math.max(0, Math.min(this.limits.perStreamBytes, this.limits.documentBytes - this.used));
  }

  note(produced: number, capped: boolean, perStreamHit: boolean): void {
    this.used += produced;
    if (capped && !this.exceeded)
      this.exceeded = perStreamHit
        ? `a stream inflates past the ${mb(this.limits.perStreamBytes)} per-stream decompression cap`
        : `the document's streams inflate past the ${mb(this.limits.documentBytes)} per-document decompression cap`;
  }
}

const mb = (n: number): string => (n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${n} bytes`);
