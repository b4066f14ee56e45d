import { notMeasured } from '../../api/not-measured.js';
import type { DocumentResult } from '../../api/results.js';
import type { Output } from '../output.js';
import { DOCUMENT_TRUST, isoTime } from '../trust-words.js';
import { analysisEvidence, watermarkLine } from './analysis.js';
import { dimensions, field, headline, meta, simulatedNotice, type Tone } from './common.js';


export function renderDocument(r: DocumentResult, out: Output): string {
  const flagged = r.manipulation_flags.length > 0;
  const verdict = flagged ? 'flagged' : 'no flags';
  const tone: Tone = flagged ? (r.trust_score < 0.4 ? 'bad' : 'warn') : 'good';
  const m = r.metadata;
  const unmeasured = notMeasured(r.warnings);
  const lines = [
    ...simulatedNotice(out, r.warnings),
    ...headline(out, 'Document', verdict, tone, r.trust_score, DOCUMENT_TRUST),
    field(out, 'Flags', flagged ? r.manipulation_flags.map((f) => out.style.red(f)).join(', ') : out.style.dim('none')),
    field(
      out,
      'AI text',
      unmeasured.has('ai_generated_probability')
        ? out.style.dim(`not measured (${unmeasured.get('ai_generated_probability')})`)
        : `${r.ai_generated_probability.toFixed(2)} ${out.style.dim('probability that the text was machine-written')}`,
    ),
    field(
      out,
      'Metadata',
      `${m.page_count} page${m.page_count === 1 ? '' : 's'} · producer ${m.producer || out.style.dim('unknown')} · author ${m.author ?? out.style.dim('none')} · created ${m.created_at ? isoTime(m.created_at) : out.style.dim('unknown')}`,
    ),
    watermarkLine(out, r.watermark),
    dimensions(out, r.dimensions, r.dimension_producers, r.warnings),
    meta(out, r),
  ];
  return [...lines, ...analysisEvidence(out, r.evidence)].join('\n');
}
