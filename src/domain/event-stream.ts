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
/** Results kept per session, and sessions / results per session listed. */
export const STREAM_RESULTS_KEPT = 100;
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
