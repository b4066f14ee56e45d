/**
 * What the serve e2e tests that cut the database need from a request: its status, Retry-After and
 * error code, when it arrived and how long it took (a failure to answer is status 0), and a poll
 * that waits for a condition under a bound — never for time itself.
 */
export interface Answer {
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  message: string | undefined;
  /** When the answer arrived (performance.now()) and how long it took. */
  at: number;
  ms: number;
  error?: string;
}

export async function timedCall(url: string, init: RequestInit, boundMs: number): Promise<Answer> {
  const t = performance.now();
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
    const body = (await r.json().catch(() => undefined)) as { error?: { code?: string; message?: string } } | undefined;
    return { status: r.status, retryAfter: r.headers.get('retry-after'), code: body?.error?.code, message: body?.error?.message, at: performance.now(), ms: performance.now() - t };
  } catch (err) {
    return { status: 0, retryAfter: null, code: undefined, message: undefined, at: performance.now(), ms: performance.now() - t, error: String(err) };
  }
}

/** Polls `check` until it holds or `ms` pass (a bound, never a wait for time itself). */
export async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}
