import type { Authenticity, MediaResult } from '../../api/results.js';
import type { Output } from '../output.js';
import { analysisEvidence, watermarkLine } from './analysis.js';
import { dimensions, field, headline, meta, type Tone } from './common.js';

const TONE: Record<Authenticity, Tone> = { authentic: 'good', likely_authentic: 'good', suspicious: 'warn', manipulated: 'bad' };

export function renderMedia(r: MediaResult, out: Output): string {
  const m = r.metadata;
  const exif = [m.exif.make, m.exif.model].filter(Boolean).join(' ');
  const gps = m.exif.gps ? `${m.exif.gps.lat.toFixed(5)}, ${m.exif.gps.lon.toFixed(5)}` : null;
  const lines = [
    headline(out, 'Authenticity', r.authenticity.replace('_', ' '), TONE[r.authenticity], r.trust_score),
    field(out, 'Deepfake', `${r.deepfake_score.toFixed(2)} ${out.style.dim('probability')}`),
    field(out, 'Image', `${m.format} ${m.width}×${m.height}${exif ? ` · ${exif}` : ''}${m.exif.datetime_original ? ` · ${m.exif.datetime_original}` : ''}${gps ? ` · GPS ${gps}` : ''}`),
    watermarkLine(out, r.watermark),
    field(out, 'Provenance', r.provenance_source ?? out.style.dim('no known earlier appearance')),
    dimensions(out, r.dimensions),
    meta(out, r),
  ];
  for (const p of r.provenance) lines.push(field(out, '', `${out.style.dim(p.first_seen)} ${p.source} ${p.url}`));
  return [...lines, ...analysisEvidence(out, r.evidence)].join('\n');
}
