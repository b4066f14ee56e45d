import type { ClaimResult, Verdict } from '../../api/results.js';
import type { Output } from '../output.js';
import { claimTrustMeaning } from '../trust-words.js';
import { AUTHORITY_COLUMN, authority, dimensions, evidenceSection, headline, meta, simulatedNotice, sourceWidth, type Tone } from './common.js';

const TONE: Record<Verdict, Tone> = { true: 'good', false: 'bad', conflicting: 'warn', unverifiable: 'neutral' };

export function renderClaim(r: ClaimResult, out: Output): string {
  const lines = [
    ...simulatedNotice(out, r.warnings),
    ...headline(out, 'Verdict', r.verdict, TONE[r.verdict], r.trust_score, claimTrustMeaning(r.verdict, r.trust_score)),
    dimensions(out, r.dimensions, r.dimension_producers, r.warnings),
    meta(out, r),
  ];
  if (r.evidence.length === 0) lines.push('', out.style.dim('No evidence was found.'));
  lines.push(
    ...evidenceSection(
      out,
      'Evidence',
      [{ header: 'Stance', width: 8 }, { header: 'Source', width: sourceWidth(r.evidence.map((e) => e.source)) }, AUTHORITY_COLUMN],
      'Passage',
      r.evidence.map((e) => {
        const stance = e.stance === 'neutral' ? out.style.dim('neutral') : e.supports_claim ? out.style.green('supports') : out.style.red('refutes');
        return {
          head: `${stance}  ${out.style.bold(e.source)} · ${authority(out, e.authority_score)}`,
          cells: [stance, e.source, e.authority_score.toFixed(2)],
          text: e.snippet,
          url: e.url,
        };
      }),
    ),
  );
  return lines.join('\n');
}
