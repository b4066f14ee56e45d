import type { ClaimResult, Verdict } from '../../api/results.js';
import type { Output } from '../output.js';
import { authorityCell, dimensions, headline, meta, table, type Tone } from './common.js';

const TONE: Record<Verdict, Tone> = { true: 'good', false: 'bad', conflicting: 'warn', unverifiable: 'neutral' };

export function renderClaim(r: ClaimResult, out: Output): string {
  const lines = [headline(out, 'Verdict', r.verdict, TONE[r.verdict], r.trust_score), dimensions(out, r.dimensions), meta(out, r)];
  if (r.evidence.length === 0) lines.push('', out.style.dim('No evidence was found.'));
  else {
    lines.push('', out.style.bold(`Evidence (${r.evidence.length})`));
    const rows = r.evidence.map((e, i) => [
      String(i + 1),
      e.source,
      e.supports_claim ? out.style.green('supports') : out.style.red('refutes'),
      authorityCell(e.authority_score),
      `${e.snippet}\n${out.style.dim(e.url)}`,
    ]);
    lines.push(table(out, ['#', 'Source', 'Stance', 'Auth.', 'Evidence'], rows, [2, 18, 8, 5]));
  }
  return lines.join('\n');
}
