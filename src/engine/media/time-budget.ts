/**
 * A time budget for one analysis, so no file can hang the process: the work gets an AbortSignal
 * that fires at the deadline (or when the caller aborts), and the caller gets a 422 at the deadline
 * even if a native step has not returned yet (libvips has its own time-out as well).
 */
import { VerityError } from '../../api/errors.js';

export async function withTimeBudget<T>(ms: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  outer?.throwIfAborted();
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new VerityError('UNPROCESSABLE_CONTENT', `Analysis stopped after ${Math.round(ms / 1000)} s: the file takes too long to decode`);
      controller.abort(err);
      reject(err);
    }, ms);
    timer.unref?.();
  });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), deadline, aborted]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}
