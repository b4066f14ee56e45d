/**
 * Plain-language summaries of media evidence (the additive `summary` field of AnalysisEvidence):
 * what a person needs to know, without the analyzer's numbers. The technical `finding` stays as
 * it is — the human output shows it under --verbose, and --json always carries both. A summary
 * says what an analyzer saw, never more than its finding does; an analyzer without a rule here
 * keeps its finding alone.
 */
import type { Watermark } from '../../api/results.js';
import type { Signal } from './forensics/types.js';

const fired = (s: Signal): boolean => s.probability > 0;

/** One sentence for a signal, or undefined when there is nothing plainer to say than its finding. */
export function plainSummary(s: Signal): string | undefined {
  switch (s.analyzer) {
    case 'forensics.jpeg_grid':
      return fired(s)
        ? 'Part of the image was compressed differently from the rest, as happens when a region is pasted in from another JPEG.'
        : 'The JPEG compression pattern is the same across the image.';
    case 'forensics.noise_residual':
      return fired(s)
        ? 'One region’s fine-grain noise differs from the rest of the image, as it can when a region is pasted in or retouched.'
        : 'The fine-grain noise is consistent across the image.';
    case 'forensics.jpeg_quantization':
      return fired(s)
        ? 'The JPEG compression settings are those of editing or sharing software, not of a camera: the file was saved again.'
        : 'The JPEG compression settings do not point to a re-save by software.';
    case 'forensics.upsampling_spectrum':
      return fired(s)
        ? 'The pixels carry a regular pattern left by enlarging the image, common in resized and generated images.'
        : 'No sign that the image was enlarged.';
    case 'forensics.exif_thumbnail':
      return fired(s)
        ? 'The small preview stored in the metadata shows a different picture from the image itself: the image was changed after the preview was made.'
        : 'The preview stored in the metadata matches the image.';
    case 'forensics.video_frames':
      return 'Video frames are not analysed here; the verdict rests on the file’s metadata and Content Credentials.';
    case 'metadata.ai_generator':
      return fired(s) ? `The file’s metadata names an AI image generator${s.generator ? ` (${s.generator})` : ''}.` : 'No AI-generator settings in the metadata.';
    case 'c2pa.digital_source_type':
      return fired(s) ? 'The Content Credentials declare the image as made or changed by AI.' : undefined;
    case 'metadata.editing_software':
      return fired(s) ? 'The metadata names editing software that saved the image after it was taken.' : 'No editing software is named in the metadata.';
    case 'metadata.timestamps':
      return fired(s) ? 'The dates in the metadata disagree with each other.' : 'The dates in the metadata agree with each other.';
    case 'metadata.camera':
      if (s.kind === 'capture' && fired(s)) return 'The metadata names the camera and the time the photo was taken (metadata can be forged).';
      if (s.kind === 'manipulation') return 'The camera metadata was removed, as editors and sharing sites often do, or never written.';
      return 'Little or no camera metadata.';
    case 'metadata.container':
      return fired(s) ? 'The video file names the camera or phone that recorded it.' : 'The video file does not name a recording device.';
    default:
      return undefined;
  }
}

/** The summary of the Content Credentials (C2PA) evidence line. */
export function watermarkSummary(w: Watermark | null, tampered: boolean): string {
  if (!w) return 'No Content Credentials (C2PA) in the file.';
  switch (w.validation_state) {
    case 'trusted':
      return 'Content Credentials from a trusted signer are intact.';
    case 'valid':
      return 'Content Credentials are intact, but the signer is not in your trust list.';
    case 'invalid':
      return tampered ? 'The Content Credentials no longer match the file: it was changed after signing.' : 'The Content Credentials are broken.';
    case 'unreadable':
      return 'The file carries Content Credentials that cannot be checked here.';
  }
}
