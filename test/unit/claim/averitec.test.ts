import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { conclude, scoreHits } from '../../../src/engine/claim/assess.js';
import type { ClaimHit } from '../../../src/sources/claim-types.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';

interface Answer { answer: string; answer_type: string; boolean_explanation?: string; source_url?: string }
interface Item { claim: string; label: string; questions?: { question: string; answers?: Answer[] }[] }
const LABELS: Record<string, string> = { Supported: 'true', Refuted: 'false', 'Not Enough Evidence': 'unverifiable', 'Conflicting Evidence/Cherrypicking': 'conflicting' };

describeFixtures('claim verdicts on AVeriTeC dev (shared fixture)', () => {
  // The shipped weights were fitted on three domains, this one included; the held-out
  // (leave-one-domain-out) figures are in docs/claim.md. What must hold here is the shape the old
  // model lacked: it answered `false` for most claims and never abstained.
  it('abstains on most not-enough-evidence claims, does not default to false, and its false verdicts are mostly right', () => {
    const data = JSON.parse(readFileSync(fixture('claims', 'averitec-dev.json'), 'utf8')) as Item[];
    const now = new Date('2021-01-01T00:00:00Z');
    const gold: string[] = [];
    const pred: string[] = [];
    for (const c of data) {
      const hits: ClaimHit[] = (c.questions ?? []).flatMap((q) =>
        (q.answers ?? []).map((a) => ({
          source: 'local' as const,
          url: a.source_url ?? '',
          title: q.question,
          // As scripts/eval-claims.mjs builds it: the question, its answer, a yes/no's explanation.
          text: [q.question.trim().replace(/\?*$/, '?'), a.answer.trim(), a.answer_type === 'Boolean' ? (a.boolean_explanation ?? '').trim() : '']
            .join(' ')
            .replace(/\s+/g, ' ')
            .trim(),
          published_at: null,
          publisher: null,
        })),
      );
      gold.push(LABELS[c.label]!);
      pred.push(conclude(scoreHits(c.claim, hits, { limit: 20 }), { now, retrievedAt: now.toISOString(), maxEvidence: 20 }).verdict);
    }
    const precision = (v: string): number => gold.filter((g, i) => g === v && pred[i] === v).length / (pred.filter((x) => x === v).length || 1);
    const nei = gold.map((g, i) => (g === 'unverifiable' ? pred[i] : null)).filter((x) => x !== null);
    expect(nei.filter((p) => p === 'unverifiable').length / nei.length).toBeGreaterThan(1 / 3);
    expect(pred.filter((p) => p === 'false').length / pred.length).toBeLessThan(0.5);
    expect(precision('false')).toBeGreaterThan(0.6);
    expect(pred.filter((p) => p === 'true').length).toBeGreaterThan(0);
  });
});
