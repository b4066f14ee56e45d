/** Media and document evidence share one shape: analyzer, finding, authority. */
import type { AnalysisEvidence, Watermark } from '../../api/results.js';
import type { Output } from '../output.js';
import { isoTimesIn } from '../trust-words.js';
import { AUTHORITY_COLUMN, authority, evidenceSection, field, sourceWidth } from './common.js';

/** What each analyzer looks at, in words; its id (`source`) stays in --verbose and JSON. */
const ANALYZERS: Record<string, string> = {
  c2pa: 'Content Credentials (C2PA)',
  'forensics.jpeg_grid': 'JPEG block grid (regions pasted from another image)',
  'forensics.jpeg_quantization': 'JPEG compression tables (camera or software that saved the file)',
  'forensics.exif_thumbnail': 'embedded thumbnail against the image',
  'forensics.noise_residual': 'sensor noise pattern',
  'forensics.upsampling_spectrum': 'resampling traces (enlarged or generated)',
  'forensics.video_frames': 'video frames',
  'metadata.ai_generator': 'metadata naming an AI generator',
  'metadata.camera': 'camera metadata',
  'metadata.timestamps': 'timestamps in the metadata',
  'metadata.editing_software': 'editing software in the metadata',
  'metadata.container': 'file container',
  'provenance.media_index': 'earlier appearances (media index)',
  image_analysis: 'image analysis',
  embedded_image: 'images inside the document',
  pdf_revisions: 'PDF revisions (changes saved after the first version)',
  docx_signature: 'Word document signature',
  docx_tracked_changes: 'tracked changes',
  docx_comments: 'comments',
  ai_text_stylometry: 'AI-written text (writing style)',
  llm_logprobs: 'AI-written text (language model)',
  text_input: 'plain text input',
  document_analysis: 'document analysis',
  input: 'input',
  verdict: 'overall',
  sandbox: 'sandbox',
};

export const analyzerName = (source: string): string => ANALYZERS[source] ?? source.replace(/[._]/g, ' ');

export function analysisEvidence(out: Output, evidence: AnalysisEvidence[]): string[] {
  if (evidence.length === 0) return ['', out.style.dim('No findings.')];
  const names = evidence.map((e) => analyzerName(e.source));
  return evidenceSection(
    out,
    'Findings',
    [{ header: 'Check', width: sourceWidth(names) }, AUTHORITY_COLUMN],
    'Finding',
    evidence.map((e, i) => ({
      head: `${out.style.bold(names[i]!)} · ${authority(out, e.authority_score)}`,
      cells: [names[i]!, e.authority_score.toFixed(2)],
      // Plain words first; the technical statement under --verbose (always in --json).
      text: isoTimesIn(e.summary ?? e.finding),
      detail: e.summary ? `${e.source}: ${isoTimesIn(e.finding)}` : `analyzer ${e.source}`,
    })),
  );
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
