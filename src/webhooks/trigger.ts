/** `verity webhooks trigger`: one signed sample event of any type, sent once, for testing receivers. */
import type { EventType } from '../api/webhooks.js';
import { envelope, sampleData } from '../domain/events.js';
import { RESPONSE_DEADLINE_MS } from '../domain/delivery-schedule.js';
import { standardHeaders, type SignatureScheme } from '../domain/standard-webhooks.js';
import { ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, sign } from '../domain/signature.js';

export interface TriggerResult {
  event_id: string;
  type: EventType;
  url: string;
  status: number | null;
  latency_ms: number;
  body_start: string;
  error?: string;
}

export async function triggerEvent(
  url: string,
  secret: string,
  type: EventType,
  userAgent: string,
  signal?: AbortSignal,
  scheme: SignatureScheme = 'verity',
): Promise<TriggerResult> {
  const { request } = await import('undici');
  const ev = envelope(type, sampleData(type, new Date()), new Date());
  const body = JSON.stringify(ev);
  const started = Date.now();
  try {
    const res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': userAgent,
        ...(scheme === 'standard' ? standardHeaders([secret], ev.id, Date.now(), body) : { [SIGNATURE_HEADER]: sign(secret, body) }),
        [EVENT_ID_HEADER]: ev.id,
        [EVENT_TYPE_HEADER]: type,
        [ATTEMPT_HEADER]: '1',
      },
      body,
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(RESPONSE_DEADLINE_MS)]) : AbortSignal.timeout(RESPONSE_DEADLINE_MS),
    });
    const text = await res.body.text();
    return { event_id: ev.id, type, url, status: res.statusCode, latency_ms: Date.now() - started, body_start: text.slice(0, 200) };
  } catch (err) {
    const e = err as { code?: string; name?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code;
    const error =
      e.name === 'TimeoutError' ? `no answer within ${RESPONSE_DEADLINE_MS / 1000} s` : code === 'ECONNREFUSED' ? 'connection refused' : `network error (${code ?? (err as Error).message})`;
    return { event_id: ev.id, type, url, status: null, latency_ms: Date.now() - started, body_start: '', error };
  }
}
