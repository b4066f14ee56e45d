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
