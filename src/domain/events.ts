/**
 * Event envelopes (SPEC 6.2) and the `data` of each event type.
 *
 * `verification.completed` carries SPEC 6.2's fields for every kind. For non-claim kinds
 * `verdict` carries the kind's main result — business `status`, media `authenticity`, document
 * `ai_generated` / `flagged` / `clean` — and each evidence item's `supports_claim` means "supports
 * the reported verdict" (always true: the chain is the verdict's own evidence); items without an
 * address have `url: ""` and keep their `finding` as an additive field. A claim's evidence items
 * that took no side (`stance: "neutral"`, listed on `unverifiable` results) are left out.
 */
import { eventId, kindOfId, type VerificationKind } from '../api/ids.js';
import type { VerificationResult } from '../api/results.js';
import type { z } from 'zod';
import type { CreditThresholdData as CreditThresholdSchema, EventEnvelope, EventType, VerificationFailedData } from '../api/webhooks.js';

export function envelope(type: EventType, data: Record<string, unknown>, now: Date, id = eventId()): EventEnvelope {
  return { id, type, created_at: now.toISOString(), data };
}

/** Document verdict: AI-generated when probability ≥ 0.5 or the text flag is set; else flagged/clean. */
export function documentVerdict(r: { ai_generated_probability: number; manipulation_flags: readonly string[] }): string {
  if (r.ai_generated_probability >= 0.5 || r.manipulation_flags.includes('ai_generated_text')) return 'ai_generated';
  return r.manipulation_flags.length ? 'flagged' : 'clean';
}

export function verdictOf(kind: VerificationKind, r: VerificationResult): string {
  const o = r as unknown as Record<string, unknown>;
  switch (kind) {
    case 'claim':
      return String(o.verdict);
    case 'business':
      return String(o.status);
    case 'media':
      return String(o.authenticity);
    case 'document':
      return documentVerdict(o as unknown as Parameters<typeof documentVerdict>[0]);
  }
}

export interface CompletedData {
  request_id: string;
  request_type: VerificationKind;
  trust_score: number;
  verdict: string;
  evidence: Array<{ source: string; url: string; supports_claim: boolean; authority_score: number; finding?: string }>;
  latency_ms: number;
}

export function completedData(result: VerificationResult): CompletedData {
  const kind = kindOfId(result.id);
  if (!kind) throw new TypeError(`not a verification id: ${result.id}`);
  // SPEC 6.2's evidence items support or refute: the passages an `unverifiable` claim merely read
  // (stance `neutral`) are in the result, not in the event, where supports_claim: false would read
  // as "refutes".
  const items = (result.evidence as Array<Record<string, unknown>>).filter((e) => e.stance !== 'neutral');
  const evidence = items.map((e) => {
    const item: CompletedData['evidence'][number] = {
      source: String(e.source),
      url: typeof e.url === 'string' ? e.url : '',
      supports_claim: typeof e.supports_claim === 'boolean' ? e.supports_claim : true,
      authority_score: Number(e.authority_score),
    };
    if (typeof e.finding === 'string') item.finding = e.finding;
    return item;
  });
  return {
    request_id: result.id,
    request_type: kind,
    trust_score: result.trust_score,
    verdict: verdictOf(kind, result),
    evidence,
    latency_ms: result.latency_ms,
  };
}

/** `verification.failed` (SPEC: "not shown"): the error body's code and message, never internals. */
export type FailedData = z.infer<typeof VerificationFailedData>;

/** `credit.threshold` (SPEC: "not shown"). */
export type CreditThresholdData = z.infer<typeof CreditThresholdSchema>;

export const CREDIT_THRESHOLDS = [75, 90, 100] as const;

/** Every threshold crossed (a single large request can cross 75 and 90 at once). */
export function crossedThresholds(before: number, after: number, quota: number): Array<(typeof CREDIT_THRESHOLDS)[number]> {
  if (!(quota > 0)) return [];
  return CREDIT_THRESHOLDS.filter((t) => before * 100 < t * quota && after * 100 >= t * quota);
}

/** A sample `batch.*` data object in the shape the server sends (src/api/batches.ts BatchEventData). */
function sampleBatch(id: string, status: 'completed' | 'partial', succeeded: number, failed: number, now: Date): Record<string, unknown> {
  const at = now.toISOString();
  const total = succeeded + failed;
  return {
    batch_id: id,
    status,
    request_type: 'claim',
    total,
    succeeded,
    failed,
    cancelled: 0,
    credits_used: succeeded,
    created_at: at,
    completed_at: at,
    metadata: null,
    results_url: `/v1/batches/${id}/results`,
    sample: true,
  };
}

/** Sample data for `verity webhooks trigger` and test events: realistic, clearly marked. */
export function sampleData(type: EventType, now: Date): Record<string, unknown> {
  switch (type) {
    case 'verification.completed':
      return {
        request_id: 'vrf_clm_SampleTriggerEvent0001',
        request_type: 'claim',
        trust_score: 0.91,
        verdict: 'true',
        evidence: [
          {
            source: 'wikipedia',
            url: 'https://en.wikipedia.org/wiki/Eiffel_Tower',
            supports_claim: true,
            authority_score: 0.8,
          },
        ],
        latency_ms: 412,
        sample: true,
      };
    case 'verification.failed':
      return {
        request_id: 'vrf_doc_SampleTriggerEvent0002',
        request_type: 'document',
        error: { code: 'UNPROCESSABLE_CONTENT', message: 'The PDF is truncated: no cross-reference table' },
        sample: true,
      };
    case 'batch.completed':
      return sampleBatch('bat_SampleTriggerEvent0003', 'completed', 3, 0, now);
    case 'batch.partial':
      return sampleBatch('bat_SampleTriggerEvent0004', 'partial', 2, 1, now);
    case 'credit.threshold':
      return { threshold: 90, usage: 900, quota: 1000, percent: 90, period: now.toISOString().slice(0, 7), sample: true };
  }
}
