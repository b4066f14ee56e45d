import { z } from 'zod';
import { EVENT_ID, WEBHOOK_ID } from './ids.js';
import { EVENT_TYPES } from './enums.js';
import { Score, Timestamp } from './results.js';
import { standardSecretKey } from '../webhooks-verify/index.js';

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

/**
 * How deliveries to an endpoint are signed: `verity` (default) is SPEC 6.3's
 * `X-Service-Signature: sha256=<hex>`; `standard` is Standard Webhooks (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64>`), docs/webhooks.md "Standard Webhooks".
 */
export const SignatureSchemeSchema = z.enum(['verity', 'standard']);
export type SignatureSchemeName = z.infer<typeof SignatureSchemeSchema>;

const SecretText = z
  .string()
  .min(WEBHOOK_SECRET_MIN, `must be at least ${WEBHOOK_SECRET_MIN} characters`)
  .max(WEBHOOK_SECRET_MAX, `must be at most ${WEBHOOK_SECRET_MAX} characters`);

/** A secret for an endpoint of this scheme: any 32–256 characters (verity), `whsec_` + base64 of 24–64 bytes (standard). */
export function webhookSecretFor(scheme: SignatureSchemeName): z.ZodType<string> {
  if (scheme === 'verity') return SecretText;
  return SecretText.superRefine((s, ctx) => {
    const k = standardSecretKey(s);
    if ('problem' in k) ctx.addIssue({ code: 'custom', message: `${k.problem} (signature_scheme "standard"; omit it to have one generated)` });
  });
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
    secret: SecretText.optional(),
    signature_scheme: SignatureSchemeSchema.default('verity'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.secret === undefined || c.signature_scheme === 'verity') return;
    const r = webhookSecretFor(c.signature_scheme).safeParse(c.secret);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['secret'] });
  });
export type WebhookConfigInput = z.input<typeof WebhookConfig>;

/** Response of POST /v1/webhooks (SPEC: "not shown"). `secret` only at creation/rotation. */
export const Webhook = z.object({
  id: z.string().regex(WEBHOOK_ID),
  url: z.string(),
  events: z.array(z.enum(EVENT_TYPES)),
  created_at: Timestamp,
  secret_hint: z.string(),
  secret: z.string().optional(),
  signature_scheme: SignatureSchemeSchema,
  /** Standard scheme after a rotation: deliveries carry a second signature by the previous secret until then. */
  previous_secret_expires_at: Timestamp.optional(),
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

/** `verification.failed` data (SPEC: "not shown"): the API error's code and message, never internals. */
export const VerificationFailedData = z.object({
  request_id: z.string().nullable(),
  request_type: z.enum(['claim', 'business', 'media', 'document']),
  error: z.object({ code: z.string(), message: z.string() }),
});

/** `credit.threshold` data: the threshold crossed (75, 90, 100 % of the monthly quota), live usage only. */
export const CreditThresholdData = z.object({
  threshold: z.union([z.literal(75), z.literal(90), z.literal(100)]),
  usage: z.number(),
  quota: z.number(),
  percent: z.number(),
  period: z.string(),
});

export const EventEnvelope = z.object({
  id: z.string().regex(EVENT_ID),
  type: z.enum(EVENT_TYPES),
  created_at: Timestamp,
  data: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;
