import type { ClaimResult, Verdict } from '../../api/results.js';
import type { Output } from '../output.js';
import { authority, dimensions, evidenceList, headline, meta, simulatedNotice, type Tone } from './common.js';

const TONE: Record<Verdict, Tone> = { true: 'good', false: 'bad', conflicting: 'warn', unverifiable: 'neutral' };

export const CLAIM_TRUST = 'Trust: how strongly the sources found back this verdict, from 0 to 1, made from the four numbers below.';

export function renderClaim(r: ClaimResult, out: Output): string {
  const lines = [
    ...simulatedNotice(out, r.warnings),
    ...headline(out, 'Verdict', r.verdict, TONE[r.verdict], r.trust_score, CLAIM_TRUST),
    dimensions(out, r.dimensions, r.dimension_producers),
    meta(out, r),
  ];
  if (r.evidence.length === 0) lines.push('', out.style.dim('No evidence was found.'));
  lines.push(
    ...evidenceList(
      out,
      'Evidence',
      r.evidence.map((e) => ({
        head: `${e.stance === 'neutral' ? out.style.dim('neutral (read, takes no side)') : e.supports_claim ? out.style.green('supports') : out.style.red('refutes')}  ${out.style.bold(e.source)} · ${authority(out, e.authority_score)}`,
        text: e.snippet,
        url: e.url,
      })),
    ),
  );
  return lines.join('\n');
}
