/** Media and document evidence share one shape: analyzer, finding, authority. */
import type { AnalysisEvidence, Watermark } from '../../api/results.js';
import type { Output } from '../output.js';
import { authorityCell, field, table } from './common.js';

export function analysisEvidence(out: Output, evidence: AnalysisEvidence[]): string[] {
  if (evidence.length === 0) return ['', out.style.dim('No findings.')];
  return [
    '',
    out.style.bold(`Evidence (${evidence.length})`),
    table(out, ['Analyzer', 'Auth.', 'Finding'], evidence.map((e) => [e.source, authorityCell(e.authority_score), e.finding]), [26, 5]),
  ];
}

export function watermarkLine(out: Output, w: Watermark | null): string {
  if (!w) return field(out, 'C2PA', out.style.dim('none found'));
  const state =
    w.validation_state === 'trusted' || w.validation_state === 'valid'
      ? out.style.green(w.validation_state)
      : w.validation_state === 'invalid'
        ? out.style.red(w.validation_state)
        : out.style.yellow(w.validation_state);
  const who = [w.signer && `signed by ${w.signer}`, w.claim_generator && `with ${w.claim_generator}`].filter(Boolean).join(' ');
  return field(out, 'C2PA', `${state}${who ? ` · ${who}` : ''}`);
}
