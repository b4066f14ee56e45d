import { describe, expect, it } from 'vitest';
import { ErrorBody, ERROR_CATALOGUE, toVerityError, VerityError } from '../../../src/api/errors.js';
import { eventId, kindOfId, randomBase62, verificationId, webhookId, EVENT_ID, VERIFICATION_ID, WEBHOOK_ID } from '../../../src/api/ids.js';
import { EventEnvelope, WebhookConfig } from '../../../src/api/webhooks.js';
import { z } from 'zod';

describe('ids (DESIGN.md)', () => {
  it('vrf_{clm|biz|med|doc}_<base62>, wh_…, we_…, unique', () => {
    for (const [kind, tag] of [['claim', 'clm'], ['business', 'biz'], ['media', 'med'], ['document', 'doc']] as const) {
      const id = verificationId(kind);
      expect(id).toMatch(new RegExp(`^vrf_${tag}_[0-9A-Za-z]{20}$`));
      expect(VERIFICATION_ID.test(id)).toBe(true);
      expect(kindOfId(id)).toBe(kind);
    }
    expect(EVENT_ID.test(eventId())).toBe(true);
    expect(WEBHOOK_ID.test(webhookId())).toBe(true);
    expect(kindOfId('vrf_xyz_abc')).toBeUndefined();
    const many = new Set(Array.from({ length: 2000 }, () => randomBase62(12)));
    expect(many.size).toBe(2000);
  });
});

describe('webhook configuration (SPEC 2.6) and envelope (SPEC 6.2)', () => {
  it('https url, at least one known event, secret ≥ 32 characters', () => {
    const ok = { url: 'https://hooks.example.com/verity', events: ['verification.completed'], secret: 's'.repeat(32) };
    expect(WebhookConfig.safeParse(ok).success).toBe(true);
    expect(WebhookConfig.safeParse({ ...ok, secret: 's'.repeat(31) }).success).toBe(false);
    expect(WebhookConfig.safeParse({ ...ok, url: 'http://hooks.example.com/' }).success).toBe(false);
    expect(WebhookConfig.safeParse({ ...ok, url: 'http://127.0.0.1:9000/hook' }).success).toBe(true);
    expect(WebhookConfig.safeParse({ ...ok, events: [] }).success).toBe(false);
    expect(WebhookConfig.safeParse({ ...ok, events: ['verification.started'] }).success).toBe(false);
  });

  it('envelope: wh_ id, known type, timestamp, data object', () => {
    const ok = { id: eventId(), type: 'credit.threshold', created_at: '2026-01-01T00:00:00Z', data: { percent: 75 } };
    expect(EventEnvelope.safeParse(ok).success).toBe(true);
    expect(EventEnvelope.safeParse({ ...ok, id: 'evt_1' }).success).toBe(false);
    expect(EventEnvelope.safeParse({ ...ok, created_at: 'yesterday' }).success).toBe(false);
  });
});

describe('error bodies (SPEC 7, DESIGN.md)', () => {
  it('every catalogue code makes a body that validates, with docs on 401 and required_plan on 403', () => {
    for (const code of Object.keys(ERROR_CATALOGUE) as Array<keyof typeof ERROR_CATALOGUE>) {
      const e = new VerityError(code, 'm', code === 'FORBIDDEN' ? { requiredPlan: 'business' } : {});
      const body = e.toBody();
      expect(ErrorBody.safeParse(body).success, code).toBe(true);
      expect(e.status).toBe(ERROR_CATALOGUE[code].status);
    }
    expect(new VerityError('UNAUTHORIZED', 'no key').toBody().error.docs).toMatch(/^https:\/\//);
    expect(new VerityError('FORBIDDEN', 'plan', { requiredPlan: 'business' }).toBody().error.required_plan).toBe('business');
  });

  it('zod errors become VALIDATION_FAILED naming each field; anything else INTERNAL_ERROR without internals', () => {
    const r = z.object({ claim: z.string() }).safeParse({});
    const e = toVerityError(r.error);
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details?.[0]?.field).toBe('claim');
    const internal = toVerityError(new Error('ECONNRESET at /secret/path'));
    expect(internal.code).toBe('INTERNAL_ERROR');
    expect(internal.message).not.toContain('/secret/path');
    expect(VerityError.fromBody(e.toBody()).details).toEqual(e.details);
  });
});
