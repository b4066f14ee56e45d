/**
 * What every format analyser (PDF, DOCX, image, raw text) hands back to verify.ts, which turns it
 * into the SPEC 2.5 result. Findings carry a severity so the trust formula can weigh them.
 */
import type { DocumentMetadata, ManipulationFlag, RevisionEntry, SignatureSummary, Watermark } from '../../api/results.js';

export interface Finding {
  /** Analyzer name shown in the evidence chain, e.g. `pdf_signature`. */
  source: string;
  /** One sentence with the numbers a person can check. */
  finding: string;
  /** How directly checkable the finding is (cryptographic 0.95 … stylometric 0.4). */
  authority: number;
  /** The SPEC flag this finding raises, if any. */
  flag?: ManipulationFlag;
  /** How much the finding lowers trust, 0 (informational) … 1. */
  severity: number;
  /** The finding in plain words for people (the evidence's additive `summary`); see plainFindingSummary. */
  summary?: string;
}

/**
 * What a flagged finding means, in plain words: the human output shows this first and the
 * technical finding under --verbose (--json carries both). Unflagged findings keep their own text.
 */
const FLAG_SUMMARY: Record<ManipulationFlag, string> = {
  signature_forgery: 'A digital signature is broken, or the document was changed after signing in a way the signature does not allow.',
  inconsistent_timestamps: 'The document’s dates disagree with each other or with the clock.',
  metadata_stripped: 'The document’s metadata was removed or is missing.',
  ai_generated_text: 'The writing style is typical of AI-generated text: a statistical indication, not proof of how the text was written.',
  image_manipulated: 'An image in the document shows signs of editing.',
  deepfake: 'An image in the document shows signs of AI generation.',
};

export function plainFindingSummary(f: Finding): string | undefined {
  return f.summary ?? (f.flag && f.severity > 0 ? FLAG_SUMMARY[f.flag] : undefined);
}

/** A cross-check that was run: did two independent records agree? Feeds `cross_reference`. */
export interface ConsistencyCheck {
  name: string;
  agrees: boolean;
}

export interface FormatAnalysis {
  format: 'pdf' | 'docx' | 'image' | 'text';
  metadata: DocumentMetadata;
  /** Extracted text for the AI-text detector ('' when none). */
  text: string;
  findings: Finding[];
  checks: ConsistencyCheck[];
  watermark: Watermark | null;
  warnings: string[];
  /** Provenance strength 0…1 from signatures/C2PA/metadata (the `source_authority` dimension). */
  provenance: number;
  /** Embedded raster images (JPEG/PNG bytes) for the image analysis. */
  images: { bytes: Buffer; label: string }[];
  /** Per-signature integrity and trust (the result's additive `signatures` field); absent when unsigned. */
  signatures?: SignatureSummary[];
  /** PDF revision timeline (the result's additive `revisions` field); absent for other formats. */
  revisions?: RevisionEntry[];
}

/** Producer value when the file names none (SPEC 2.5 types `producer` as a string, never null). */
export const UNKNOWN_PRODUCER = 'unknown';

export function emptyAnalysis(format: FormatAnalysis['format']): FormatAnalysis {
  return {
    format,
    metadata: { author: null, created_at: null, producer: UNKNOWN_PRODUCER, page_count: 1 },
    text: '',
    findings: [],
    checks: [],
    watermark: null,
    warnings: [],
    provenance: 0.5,
    images: [],
  };
}
