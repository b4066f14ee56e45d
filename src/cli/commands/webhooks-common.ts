/** What the `verity webhooks …` commands share: the registry in either mode, secrets, rendering. */
import { VerityError } from '../../api/errors.js';
import type { EventType, Webhook } from '../../api/webhooks.js';
import type { WebhookRegistry } from '../webhooks-embedded.js';
import type { TestEventResult } from '../../webhooks/service.js';
import type { CliRuntime } from '../runtime.js';

/** The registry of the remote service, or the local one in the embedded store. */
export async function registry(rt: CliRuntime): Promise<WebhookRegistry> {
  const connection = await rt.connection();
  if (connection.mode === 'embedded') {
    const { embeddedRegistry } = await import('../webhooks-embedded.js');
    return embeddedRegistry(rt.ctx.paths, rt.ctx.interrupted);
  }
  const [{ callRemote }, { userAgent }, { retryLine }] = await Promise.all([
    import('../../client/remote-engine.js'),
    import('../../engine/default-ports.js'),
    import('../retry-notice.js'),
  ]);
  const opts = { baseUrl: connection.baseUrl, apiKey: connection.key?.value, userAgent: userAgent(), onRetry: (n: Parameters<typeof retryLine>[0]) => rt.out.warn(retryLine(n)) };
  const signal = rt.ctx.interrupted;
  const enc = encodeURIComponent;
  return {
    add: (config) => callRemote(opts, 'POST', '/webhooks', config, signal),
    list: async () => (await callRemote<{ data: Webhook[] }>(opts, 'GET', '/webhooks', undefined, signal)).data,
    remove: (id) => callRemote(opts, 'DELETE', `/webhooks/${enc(id)}`, undefined, signal),
    rotate: (id, secret) => callRemote(opts, 'POST', `/webhooks/${enc(id)}/rotate-secret`, secret === undefined ? {} : { secret }, signal),
    test: (id, type?: EventType) => callRemote(opts, 'POST', `/webhooks/${enc(id)}/test`, type ? { type } : {}, signal),
    deliveries: (id, limit) => callRemote(opts, 'GET', `/webhooks/${enc(id)}/deliveries${limit ? `?limit=${limit}` : ''}`, undefined, signal),
    replay: (eventId, webhookId) =>
      callRemote(opts, 'POST', `/events/${enc(eventId)}/replay`, webhookId ? { webhook_id: webhookId } : {}, signal),
    close() {},
  };
}

export async function withRegistry<T>(rt: CliRuntime, f: (r: WebhookRegistry) => Promise<T>): Promise<T> {
  const r = await registry(rt);
  try {
    return await f(r);
  } finally {
    r.close();
  }
}

/** `--secret <value|->` or `--secret-file <path>`; undefined when neither is given. */
export async function secretOption(rt: CliRuntime, o: { secret?: string | string[]; secretFile?: string | string[] }): Promise<string | undefined> {
  const secret = Array.isArray(o.secret) ? o.secret[0] : o.secret;
  const file = Array.isArray(o.secretFile) ? o.secretFile[0] : o.secretFile;
  if (secret !== undefined && file !== undefined)
    throw new VerityError('VALIDATION_FAILED', 'Give the secret with --secret or --secret-file, not both');
  if (file !== undefined) return (await import('../../webhooks/secrets.js')).readSecretFile(file);
  if (secret === '-') return (await rt.takeStdin('the secret')).toString('utf8').replace(/\r?\n$/, '');
  return secret;
}

export function idArgument(value: string | undefined, prefix: 'we_' | 'wh_', what: string): string {
  if (!value || !value.startsWith(prefix))
    throw new VerityError('VALIDATION_FAILED', `Expected a ${what} id (${prefix}…), got "${value ?? ''}"`, {
      details: [{ field: what === 'webhook' ? 'webhook-id' : 'event-id', issue: `must start with ${prefix}` }],
    });
  return value;
}

export function renderWebhook(w: Webhook): string {
  // An older server answers without signature_scheme: its deliveries are verity-signed.
  const scheme = w.signature_scheme === 'standard' ? 'standard (webhook-id, webhook-timestamp, webhook-signature)' : 'verity (X-Service-Signature)';
  const overlap = w.previous_secret_expires_at ? `\n  previous secret also signs until ${w.previous_secret_expires_at}` : '';
  return `${w.id}  ${w.url}\n  events: ${w.events.join(', ')}\n  signature: ${scheme}\n  secret: ${w.secret_hint}  created ${w.created_at}${overlap}`;
}

export function renderTest(r: TestEventResult): string {
  const a = r.attempt;
  if (!a) return `${r.type} ${r.event_id}: queued; the first attempt did not finish in time (see \`verity webhooks deliveries\`)`;
  const what = a.ok ? `delivered: HTTP ${a.status_code}` : `failed: ${a.error}`;
  return `${r.type} ${r.event_id} ${what} (${a.latency_ms} ms)`;
}
