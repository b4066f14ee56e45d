/**
 * Row shapes both stores read back the same way, and their mapping to the wire contract: kept here
 * so the SQLite and PostgreSQL stores share it without importing each other.
 */
import type { Webhook } from '../../api/webhooks.js';
import { secretHint } from '../../domain/signature.js';

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  events: string;
  secret: string;
  created_at: string;
}

export function toWebhook(r: EndpointRow, withSecret = false): Webhook {
  const w: Webhook = {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as Webhook['events'],
    created_at: r.created_at,
    secret_hint: secretHint(r.secret),
  };
  if (withSecret) w.secret = r.secret;
  return w;
}
