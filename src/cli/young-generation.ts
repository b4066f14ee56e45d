/**
 * serve's young generation is sized for its traffic (issue 31; bin/run-bundle.js
 * keepYoungGenerationSmall): it starts held at V8's 1 MB semi-spaces, which streamed batch uploads
 * and analysis results pass through at no cost and which keep serve's memory down during a 1 GB
 * remote batch, and it is grown once, to the semi-spaces claims at thousands a second need, the
 * first time the server answers REQUESTS_TO_GROW requests within a second. A batch is one upload
 * and one results stream, far from that rate; any busy API use reaches it within its first second.
 */
import type { EventEmitter } from 'node:events';

/** Requests within one second that make serve grow its young generation. */
export const REQUESTS_TO_GROW = 100;

const GROW_HOOK = Symbol.for('verity.growYoungGeneration');

/**
 * Watches `server`'s requests (an http.Server) and calls `grow` once, at the REQUESTS_TO_GROW-th
 * request within a second (by `now`, in ms); then stops watching. Nothing to do without a hook
 * (bin/run-bundle.js registers it for `serve` where the V8 flag exists).
 */
export function growOnRequestRate(
  server: Pick<EventEmitter, 'on' | 'off'>,
  now: () => number = () => performance.now(),
  grow: unknown = (globalThis as Record<symbol, unknown>)[GROW_HOOK],
): void {
  if (typeof grow !== 'function') return;
  let from = now();
  let count = 0;
  const onRequest = (): void => {
    const t = now();
    if (t - from >= 1000) {
      from = t;
      count = 0;
    }
    if (++count < REQUESTS_TO_GROW) return;
    server.off('request', onRequest);
    (grow as () => void)();
  };
  server.on('request', onRequest);
}
