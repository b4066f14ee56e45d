/**
 * The warning line a person sees while the remote client waits to retry: without it, a spinner
 * turned for up to a minute with no word of why (issue 32). Scripts (--json, --quiet) still get it
 * on stderr, which they do not parse.
 */
import type { RetryNotice } from '../client/remote-engine.js';
import { humanDuration } from './durations.js';

export function retryLine(n: RetryNotice): string {
  const wait = n.waitMs <= 0 ? 'now' : n.waitMs < 1000 ? `in ${Math.round(n.waitMs)} ms` : `in ${humanDuration(n.waitMs / 1000)}`;
  const what =
    n.status !== undefined
      ? `the service at ${n.host} answered ${n.status} (${n.error.message.replace(/\.$/, '')})`
      : `${n.error.message.replace(/\.$/, '')}`;
  return `${what}; retrying ${wait} (attempt ${n.attempt} of ${n.maxAttempts})`;
}
