/**
 * Named analyzer over the JPEG quantization tables (see jpeg-structure.ts for the method).
 *
 * Calibration: exact IJG tables turn up in files straight from compact cameras and phones (Nikon
 * COOLPIX, Samsung in ../shared/fixtures) as well as in software re-saves, so they say "maybe
 * re-encoded", never "edited": probability 0.1, in the `reencoding` group so they do not add to an
 * editor's Software tag or a later ModifyDate, which usually come from the same re-save.
 */
import type { MetadataDetails } from '../metadata.js';
import { estimateQuality, type JpegStructure } from './jpeg-structure.js';
import type { Signal } from './types.js';

export function quantizationSignal(jpeg: JpegStructure, d: MetadataDetails): Signal | null {
  const q = estimateQuality(jpeg.tables);
  if (!q) return null;
  const camera = !!(d.exif.make || d.exif.model);
  const quality = `estimated quality ${q.quality} (IJG scale; mean table deviation ${q.meanError.toFixed(1)})`;
  if (q.standard && camera)
    return {
      analyzer: 'forensics.jpeg_quantization',
      kind: 'manipulation',
      probability: 0.1,
      confidence: 0.3,
      group: 'reencoding',
      finding: `Quantization tables are exactly libjpeg's standard tables at quality ${q.quality}, although EXIF names a camera (${[d.exif.make, d.exif.model].filter(Boolean).join(' ')}): either the camera uses the standard tables (many compact cameras and phones do) or software re-encoded the file after capture; a weak hint, not evidence of editing`,
    };
  if (q.standard)
    return {
      analyzer: 'forensics.jpeg_quantization',
      kind: 'manipulation',
      probability: 0.05,
      confidence: 0.3,
      group: 'reencoding',
      finding: `Quantization tables are libjpeg's standard tables at quality ${q.quality}: last written by software (editor, converter or web service), not straight from a camera`,
    };
  return {
    analyzer: 'forensics.jpeg_quantization',
    kind: 'capture',
    probability: camera ? 0.3 : 0.1,
    confidence: 0.3,
    finding: `Non-standard quantization tables, ${quality}: typical of camera firmware or Photoshop; consistent with ${camera ? 'the camera named in EXIF' : 'an original encoder'}`,
  };
}
