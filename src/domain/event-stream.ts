/**
 * The event stream's wire format (issue 29, /work/notes/stream-protocol.md, docs/webhooks.md
 * "Event stream"): Server-Sent Events framing and the stream's own messages. Pure: no I/O, no clock.
 *
 * Every `data:` line is one JSON object; JSON.stringify never emits a raw line break, so a message
 * can never be split or forged by the content of an event (a body with "\n\nevent: …" inside is
 * escaped as part of the JSON string).
 */
import { randomBase62 } from '../api/ids.js';

/** How long events stay resumable (Last-Event-ID) after they were logged: 24 hours. */
export const STREAM_RETENTION_SECONDS = 86_400;
/** A comment line this often keeps proxies and clients from timing out an idle stream. */
export const STREAM_PING_MS = 15_000;
/** Unsent bytes one stream may hold in the server's memory before it is cut (the client resumes). */
export const STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Open streams per account, in one serve process. */
export const STREAM_MAX_PER_ACCOUNT = 20;
/** The reconnection delay the stream asks EventSource clients for. */
export const STREAM_RETRY_MS = 1_000;
/**
 * Different `route`s one session may report results for (null counts as one). With one result per
 * (session, event, route) and only for events of the account's log, a session's results are bounded
 * by the events streamed × this — the report-back route is not counted against the key's rate limit.
 */
export const STREAM_ROUTES_PER_SESSION = 20;
/** How often a process renews its open streams: the scope's logging, and the session's last_seen. */
export const STREAM_RENEW_MS = 60_000;
/** Sessions / results per session listed. */
export const STREAM_SESSIONS_LISTED = 20;
export const STREAM_RESULTS_LISTED = 20;

export const streamSessionId = (): string => `lss_${randomBase62(24)}`;

/** One SSE message: optional id and event name, one JSON data line, a blank line. */
export function sseMessage(m: { id?: string; event?: string; retry?: number; data: unknown }): string {
  let out = '';
  if (m.retry !== undefined) out += `retry: ${m.retry}\n`;
  if (m.id !== undefined) out += `id: ${oneLine(m.id)}\n`;
  if (m.event !== undefined) out += `event: ${oneLine(m.event)}\n`;
  return `${out}data: ${JSON.stringify(m.data)}\n\n`;
}

/** A comment line (keep-alive): ignored by every SSE client. */
export const SSE_PING = ': ping\n\n';

/** Ids and names come from our own tables, but a line break in one must never end the field. */
const oneLine = (s: string): string => s.replace(/[\r\n]/g, '');

export interface SessionMessage {
  session_id: string;
  secret: string;
  signature_scheme: 'verity';
  environment: string;
  events: readonly string[];
  retention_seconds: number;
  resumed_after: string | null;
}

export type MissedReason = 'expired' | 'unknown_event';

/**
 * The `missed` message: the events after `after` are no longer retained (or the id is not one of
 * this account's and environment's logged events); the stream continues with the oldest retained.
 * Endpoints keep their events (webhook_events are not purged), so the replay command names how to
 * have one sent again to a registered endpoint.
 */
export function missedMessage(after: string, reason: MissedReason, oldestRetained: string | null): Record<string, unknown> {
  return {
    after,
    reason,
    oldest_retained: oldestRetained,
    replay: 'verity webhooks replay EVENT_ID [--webhook WEBHOOK_ID]   (for each missed event a registered endpoint received; verity webhooks deliveries WEBHOOK_ID lists them)',
  };
}

/** The body of one event message: the delivery's headers and exact body. */
export function eventMessage(e: { id: string; type: string; created_at: string; body: string }, headers: Record<string, string>): string {
  return sseMessage({ id: e.id, event: e.type, data: { id: e.id, type: e.type, created_at: e.created_at, headers, body: e.body } });
}

export type SessionState = 'open' | 'closed' | 'lost';

/**
 * A session as `GET /v1/events/stream/sessions` shows it. Its process renews `last_seen` every
 * `renewMs` (on a keep-alive tick, so up to `pingMs` late); a session not closed and not seen for
 * twice that, plus a tick, belonged to a process that was killed (or lost its database): `lost`,
 * with `closed_at` = its last sign of life.
 */
export function sessionState<S extends { closed_at: string | null; last_seen_at: string }>(
  s: S,
  nowMs: number,
  lostAfterMs: number,
): S & { state: SessionState } {
  if (s.closed_at !== null) return { ...s, state: 'closed' };
  if (nowMs - Date.parse(s.last_seen_at) > lostAfterMs) return { ...s, closed_at: s.last_seen_at, state: 'lost' };
  return { ...s, state: 'open' };
}
