/**
 * The delivery schedule (DESIGN.md, our reading of SPEC 6.4): the first attempt at once, then
 * five retries after 10 s, 1 min, 10 min, 1 h and 6 h — six attempts in all — then `failed`,
 * kept for replay. Success is a 2xx answered within 10 s.
 */
export const RETRY_DELAYS_MS = [10_000, 60_000, 600_000, 3_600_000, 21_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const RESPONSE_DEADLINE_MS = 10_000;

/** Time from an event's creation to its last possible scheduled attempt: 7 h 11 min 10 s. */
export const RETRY_HORIZON_MS = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);

/**
 * SPEC 6.4.5: at most 10 events per second per endpoint. Enforced as a sliding window — never
 * more than 10 starts in any window of 1 s (+ 20 ms so network jitter cannot make the endpoint
 * see 11) — with at least 50 ms between starts, so a backlog goes out evenly, not in bursts.
 */
export const RATE_PER_SECOND = 10;
export const RATE_WINDOW_MS = 1_020;
export const MIN_GAP_MS = 50;
/**
 * Requests in flight to one endpoint at once. With the 100 ms gap this caps an endpoint's rate at
 * min(10/s, 4 / latency): full speed up to 400 ms per answer, then slower as the endpoint slows.
 */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;
/** A claimed delivery not finished by then (worker died) becomes due again. Deadline + margin. */
export const LEASE_MS = 30_000;

/** When attempt `attempt` (1-based) failed at `at`, the next is due then — or never (undefined). */
export function nextAttemptAt(attempt: number, at: number): number | undefined {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? undefined : at + delay;
}
