import { z } from 'zod';
import { EVENT_ID, WEBHOOK_ID } from './ids.js';
import { EVENT_TYPES } from './enums.js';
import { Score, Timestamp } from './results.js';

export { EVENT_TYPES } from './enums.js';
export type { EventType } from './enums.js';

export const WEBHOOK_SECRET_MIN = 32;
/** Caps (issue 19): a registration is small, so a caller cannot store megabytes per webhook. */
export const WEBHOOK_SECRET_MAX = 256;
export const WEBHOOK_URL_MAX = 2048;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** SPEC 2.6; https required, except http to loopback so `verity listen` works (DESIGN.md). */
export const WebhookConfig = z
  .object({
    url: z.string().max(WEBHOOK_URL_MAX, `must be at most ${WEBHOOK_URL_MAX} characters`).refine((s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
      } catch {
        return false;
      }
    }, 'must be an https URL (http only for loopback hosts)'),
    events: z
      .array(z.enum(EVENT_TYPES))
      .min(1, 'must subscribe to at least one event type')
      .max(EVENT_TYPES.length, `lists at most the ${EVENT_TYPES.length} event types`)
      .refine((a) => new Set(a).size === a.length, 'must not list an event type twice'),
    secret: z
      .string()
      .min(WEBHOOK_SECRET_MIN, `must be at least ${WEBHOOK_SECRET_MIN} characters`)
      .max(WEBHOOK_SECRET_MAX, `must be at most ${WEBHOOK_SECRET_MAX} characters`)
      .optional(),
  })
  .strict();
export type WebhookConfigInput = z.input<typeof WebhookConfig>;

/** Response of POST /v1/webhooks (SPEC: "not shown"). `secret` only at creation/rotation. */
export const Webhook = z.object({
  id: z.string().regex(WEBHOOK_ID),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  created_at: Timestamp,
  secret_hint: z.string(),
  secret: z.string().optional(),
});
export type Webhook = z.infer<typeof Webhook>;

/** SPEC 6.2 `verification.completed` data. For non-claim kinds `verdict` carries the kind's
 *  main result: business `status`, media `authenticity`, document `ai_generated`/`flagged`/`clean`
 *  (README "Events"). */
export const VerificationCompletedData = z.object({
  request_id: z.string(),
  request_type: z.enum(['claim', 'business', 'media', 'document']),
  trust_score: Score,
  verdict: z.string(),
  evidence: z.array(
    z.object({
      source: z.string(),
      url: z.string(),
      supports_claim: z.boolean(),
      authority_score: Score,
    }),
  ),
  latency_ms: z.number().nonnegative(),
});

export const EventEnvelope = z.object({
  id: z.string().regex(EVENT_ID),
  type: z.enum(EVENT_TYPES),
  created_at: Timestamp,
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;
