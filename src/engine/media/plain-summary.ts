/**
 * Plain-language summaries of media evidence (the additive `summary` field of AnalysisEvidence):
 * what a person needs to know, without the analyzer's numbers. The technical `finding` stays as
 * it is — the human output shows it under --verbose, and --json always carries both. A summary
 * says what an analyzer saw, never more than its finding does; an analyzer without a rule here
 * keeps its finding alone.
 *
 * A probability above 0 does not mean "found an alteration": `capture` signals report consistency
 * with a camera original (a matching EXIF thumbnail, camera quantization tables), and several
 * `manipulation` signals are weak, routine readings (a later ModifyDate, libjpeg tables that many
 * cameras also write). So each rule reads the signal's kind, its strength and which of the
 * analyzer's outcomes it is, and words only that outcome.
 */
import type { Watermark } from '../../api/results.js';
import type { Signal } from './forensics/types.js';

/** The signal reports evidence for its own hypothesis of this kind (not a `capture` consistency reading). */
const reports = (s: Signal, kind: Signal['kind']): boolean => s.kind === kind && s.probability > 0;

/**
 * The strength from which score.ts raises a signal's flag (image_manipulated, inconsistent_timestamps…).
 * Below it a manipulation signal is a weak hint the verdict does not act on alone, and a summary
 * must not word it as a finding.
 */
const FLAG_THRESHOLD = 0.3;

/** One sentence for a signal, or undefined when there is nothing plainer to say than its finding. */
export function plainSummary(s: Signal): string | undefined {
  switch (s.analyzer) {
    case 'forensics.jpeg_grid':
      if (!reports(s, 'manipulation')) {
        // Two probability-0 outcomes are not "the same pattern everywhere": the test could not run,
        // or foreign-phase tiles were found but scattered at the image's own rate.
        if (/too weak to test/.test(s.finding)) return 'The compression pattern was too faint to test for regions compressed differently from the rest (a high-quality or never-compressed image).';
        if (/occur across the image/.test(s.finding))
          return 'Scattered blocks with a different compression pattern occur all over the image, as scene texture and processing cause; no region stands out from the rest.';
        return 'The JPEG compression pattern is the same across the image.';
      }
      // The `reencoding` outcomes are whole-image readings (a second grid over most of the frame,
      // a grid off the 8-pixel lattice, JPEG blocks in a PNG): a crop or conversion, not a paste.
      return s.group === 'reencoding'
        ? 'The whole image was JPEG-compressed before it was last saved (after a crop, shift or format conversion); this says nothing about changes to its content.'
        : 'Part of the image was compressed differently from the rest, as happens when a region is pasted in from another JPEG.';
    case 'forensics.noise_residual':
      return reports(s, 'manipulation')
        ? 'One region’s fine-grain noise differs from the rest of the image, as it can when a region is pasted in or retouched, or simply in a very flat area of the scene; weak on its own.'
        : 'The fine-grain noise is consistent across the image.';
    case 'forensics.jpeg_quantization':
      if (s.kind === 'capture')
        return 'The JPEG compression settings are of the kind camera firmware writes (Photoshop writes such tables too), not the standard ones of common software.';
      if (!reports(s, 'manipulation')) return 'The JPEG compression settings do not point to a re-save by software.';
      // Standard libjpeg tables: with a camera named in EXIF the analyzer cannot tell the camera's
      // own encoder (many compacts and phones use these tables) from a re-save, and says so.
      return /names a camera/.test(s.finding)
        ? 'The JPEG compression settings are the standard ones of common software, which many cameras and phones also use, so they do not tell where the file was last written.'
        : 'The JPEG compression settings are the standard ones of common software and no camera is named: the file was last written by software (an editor, converter or web service), which says nothing about changes to its content.';
    case 'forensics.upsampling_spectrum':
      return reports(s, 'synthetic')
        ? 'The pixels carry a regular pattern left by enlarging the image, common in resized and generated images.'
        : 'No sign that the image was enlarged.';
    case 'forensics.exif_thumbnail':
      if (s.kind === 'capture') return 'The preview stored in the metadata matches the image.';
      if (s.flag === 'image_manipulated' && s.probability >= FLAG_THRESHOLD)
        return 'The small preview stored in the metadata shows a different picture from the image itself: the image was changed after the preview was made.';
      if (/cannot be decoded/.test(s.finding)) return 'The file has a small preview in its metadata, but it cannot be read.';
      if (reports(s, 'manipulation'))
        return 'The small preview stored in the metadata differs somewhat from the image: it was cropped, rotated or retouched after the preview was made, or the camera framed the preview differently.';
      return undefined;
    case 'forensics.video_frames':
      // Frames are read when a decoder (ffmpeg) is there; the finding says when they were not.
      if (/^Pixels not analysed/.test(s.finding)) return 'The video’s frames were not read here; the verdict rests on the file’s metadata and Content Credentials.';
      if (s.probability >= FLAG_THRESHOLD) return 'The same low-noise region persists across neighbouring video frames, as a pasted or masked object would.';
      return s.probability > 0
        ? 'Some sampled video frames have a low-noise region, but it does not persist from frame to frame: weak, usually scene texture.'
        : 'The sampled video frames were read by the image forensics; no region stands out.';
    case 'metadata.ai_generator':
      if (reports(s, 'synthetic')) return `The file’s metadata names an AI image generator${s.generator ? ` (${s.generator})` : ''}.`;
      if (reports(s, 'capture')) return 'The metadata declares the image a camera capture (a self-declaration, not verified).';
      // A generator chunk that could not be read (damaged, a zlib bomb) is not "none found".
      return /could not be read|were not read/.test(s.finding) ? 'No AI-generator settings in the metadata that could be read; some of it could not be read.' : 'No AI-generator settings in the metadata.';
    case 'c2pa.digital_source_type':
      return reports(s, 'synthetic') ? 'The Content Credentials declare the image as made or changed by AI.' : undefined;
    case 'metadata.editing_software':
      if (!reports(s, 'manipulation')) return 'No editing software is named in the metadata.';
      // The analyzer's own split: pixel editors weigh ≥ 0.3; raw developers and captioning blocks less.
      return s.probability >= FLAG_THRESHOLD
        ? 'The metadata names editing software that saved the image after it was taken.'
        : 'The metadata carries traces of a raw developer or of a metadata or captioning tool: weak evidence of any change to the content.';
    case 'metadata.timestamps':
      // timestampSignal gives an impossible order (modified before taken, taken in the future,
      // signed before taken) 0.35 with the inconsistent_timestamps flag, and a ModifyDate later than
      // the capture time, routine for transfer, rotation and captioning tools, 0.05. Only the
      // first is a disagreement: the threshold is the one at which score.ts raises that flag.
      if (reports(s, 'manipulation') && s.probability >= FLAG_THRESHOLD)
        // One date against the clock (a capture time in the future) is not two dates disagreeing.
        return /in the future/.test(s.finding) && !/;/.test(s.finding)
          ? 'A date in the metadata lies in the future: the camera clock was wrong, or the date was changed.'
          : 'The dates in the metadata disagree with each other (modified before taken, or signed before taken).';
      if (reports(s, 'manipulation'))
        return 'The modification date is later than the capture date, as is routine when photos are copied off a camera, rotated or captioned; the dates do not contradict each other.';
      return 'The dates in the metadata agree with each other.';
    case 'metadata.camera':
      if (reports(s, 'capture')) return 'The metadata names the camera and the time the photo was taken (metadata can be forged).';
      if (s.kind === 'manipulation') return 'The camera metadata was removed, as editors and sharing sites often do, or never written.';
      return 'Little or no camera metadata.';
    case 'metadata.container':
      return reports(s, 'capture') ? 'The video file names the camera or phone that recorded it.' : 'The video file does not name a recording device.';
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
