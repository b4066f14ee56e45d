/**
 * Row shapes both stores read back the same way, and their mapping to the wire contract: kept here
 * so the SQLite and PostgreSQL stores share it without importing each other.
 */
import { z } from 'zod';
import { webhookId } from '../../api/ids.js';
import { WebhookConfig, webhookSecretFor, type SignatureSchemeName, type Webhook } from '../../api/webhooks.js';
import { secretHint } from '../../domain/signature.js';
import { generateStandardSecret, ROTATION_OVERLAP_MS } from '../../domain/standard-webhooks.js';
import { generateSecretValue } from '../../domain/webhook-secret.js';

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
  signature_scheme: SignatureSchemeName;
  /** Standard scheme, after a rotation: the secret that also signs until previous_secret_until (ms). */
  previous_secret: string | null;
  previous_secret_until: number | null;
}

export function toWebhook(r: EndpointRow, withSecret = false): Webhook {
  const w: Webhook = {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as Webhook['events'],
    created_at: r.created_at,
    secret_hint: secretHint(r.secret),
    signature_scheme: r.signature_scheme,
  };
  if (r.previous_secret !== null && r.previous_secret_until !== null) w.previous_secret_expires_at = new Date(Number(r.previous_secret_until)).toISOString();
  if (withSecret) w.secret = r.secret;
  return w;
}

/** A generated secret in the scheme's format (docs/webhooks.md: the secret follows the scheme). */
export const generatedSecret = (scheme: SignatureSchemeName): string => (scheme === 'standard' ? generateStandardSecret() : generateSecretValue());

/** A new endpoint's row from a registration body (validated here, the same for both stores). */
export function newEndpointRow(scope: string, input: unknown, now: Date): EndpointRow {
  const cfg = WebhookConfig.parse(input);
  return {
    id: webhookId(),
    account_id: scope,
    url: cfg.url,
    events: JSON.stringify([...new Set(cfg.events)]),
    secret: cfg.secret ?? generatedSecret(cfg.signature_scheme),
    created_at: now.toISOString(),
    signature_scheme: cfg.signature_scheme,
    previous_secret: null,
    previous_secret_until: null,
  };
}

/**
 * The row after a rotation to `secret` (given: checked against the scheme; else generated). A
 * `standard` endpoint keeps signing with the old secret too for ROTATION_OVERLAP_MS (a second
 * `v1,` signature); a `verity` one switches at once (one signature per header).
 */
export function rotatedRow(row: EndpointRow, secret: string | undefined, nowMs: number): EndpointRow {
  // Parsed as a field, so a refusal names `secret` (the route's VALIDATION_FAILED details).
  if (secret !== undefined) z.object({ secret: webhookSecretFor(row.signature_scheme) }).parse({ secret });
  const standard = row.signature_scheme === 'standard';
  return {
    ...row,
    secret: secret ?? generatedSecret(row.signature_scheme),
    previous_secret: standard ? row.secret : null,
    previous_secret_until: standard ? nowMs + ROTATION_OVERLAP_MS : null,
  };
}

/** The claim's secrets for one attempt: the current one, then the previous one while its overlap lasts. */
export function signingSecrets(r: { secret: string; previous_secret: string | null; previous_secret_until: number | string | null }, nowMs: number): string[] {
  return r.previous_secret !== null && r.previous_secret_until !== null && Number(r.previous_secret_until) > nowMs ? [r.secret, r.previous_secret] : [r.secret];
}
