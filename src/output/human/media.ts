import { notMeasured } from '../../api/not-measured.js';
import type { Authenticity, MediaResult } from '../../api/results.js';
import type { Output } from '../output.js';
import { isoTime, isVideoFormat, MEDIA_TRUST } from '../trust-words.js';
import { analysisEvidence, watermarkLine } from './analysis.js';
import { dimensions, field, headline, meta, simulatedNotice, type Tone } from './common.js';
import { link } from './layout.js';

const TONE: Record<Authenticity, Tone> = { authentic: 'good', likely_authentic: 'good', suspicious: 'warn', manipulated: 'bad' };


export function renderMedia(r: MediaResult, out: Output): string {
  const m = r.metadata;
  const unmeasured = notMeasured(r.warnings);
  const video = isVideoFormat(m.format);
  const exif = [m.exif.make, m.exif.model].filter(Boolean).join(' ');
  const gps = m.exif.gps ? `${m.exif.gps.lat.toFixed(5)}, ${m.exif.gps.lon.toFixed(5)}` : null;
  const lines = [
    ...simulatedNotice(out, r.warnings),
    ...headline(out, 'Authenticity', r.authenticity.replace('_', ' '), TONE[r.authenticity], r.trust_score, MEDIA_TRUST),
    field(
      out,
      'Deepfake',
      unmeasured.has('deepfake_score')
        ? out.style.dim(`not measured (${unmeasured.get('deepfake_score')})`)
        : `${r.deepfake_score.toFixed(2)} ${out.style.dim('probability that a generative model made or changed it')}`,
    ),
    field(
      out,
      video ? 'Video' : 'Image',
      `${m.format} ${m.width && m.height ? `${m.width}×${m.height}` : out.style.dim('size not read')}${exif ? ` · ${exif}` : ''}${m.exif.datetime_original ? ` · ${video ? 'recorded' : 'taken'} ${isoTime(m.exif.datetime_original)}` : ''}${gps ? ` · GPS ${gps}` : ''}`,
    ),
    watermarkLine(out, r.watermark),
    field(out, 'Provenance', r.provenance_source ?? out.style.dim('no known earlier appearance')),
    dimensions(out, r.dimensions, r.dimension_producers, r.warnings),
    meta(out, r),
  ];
  // The file's own Content Credentials (its signing, its ingredients) are its history, not places
  // it was seen before: only index or web matches are "earlier appearances".
  const own = r.provenance.filter((p) => p.url.startsWith('c2pa:'));
  const seen = r.provenance.filter((p) => !p.url.startsWith('c2pa:'));
  if (own.length) {
    lines.push('', out.style.bold('History in its Content Credentials'));
    for (const p of own) lines.push(`  ${p.first_seen.slice(0, 10)}  ${p.url === 'c2pa:active_manifest' ? `signed by ${p.source.replace(/^c2pa:/, '')}` : `ingredient ${p.url.replace(/^c2pa:ingredient\//, '')} (${p.source.replace(/^c2pa_ingredient:/, '')})`}`);
  }
  if (seen.length) {
    lines.push('', out.style.bold(`Earlier appearances (${seen.length})`));
    for (const p of seen) lines.push(`  ${p.first_seen.slice(0, 10)}  ${p.source}`, `    ${link(out, p.url)}`);
  }
  return [...lines, ...analysisEvidence(out, r.evidence)].join('\n');
}
