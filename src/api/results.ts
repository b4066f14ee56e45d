import { z } from 'zod';
import { AUTHENTICITIES, COMPANY_STATUSES, MANIPULATION_FLAGS, VERDICTS } from './enums.js';
import { VERIFICATION_ID } from './ids.js';

/** A score in [0, 1] (SPEC 2: "Scores are JSON numbers in 0.0 to 1.0 inclusive"). */
export const Score = z.number().min(0).max(1);
/** ISO 8601 UTC timestamp, e.g. 2026-11-22T03:04:05.000Z. */
export const Timestamp = z.iso.datetime({ offset: true });
/** ISO 8601 calendar date YYYY-MM-DD. */
export const DateOnly = z.iso.date();

export { AUTHENTICITIES, COMPANY_STATUSES, MANIPULATION_FLAGS, VERDICTS } from './enums.js';
export type { Authenticity, CompanyStatus, ManipulationFlag, Verdict } from './enums.js';

export const Dimensions = z.object({
  source_authority: Score,
  cross_reference: Score,
  recency: Score,
  llm_analysis: Score,
});
export type Dimensions = z.infer<typeof Dimensions>;

/**
 * Additive extension (DESIGN.md "every number says what produced it"): for each dimension, a
 * short plain-language name of what produced the number, e.g. `llm_analysis: "local stance
 * model"`, `"NLI model"`, `"LLM"`, `"name match"`; `recency: "no dated evidence"`. Human output
 * labels the dimension with it; SPEC's numbers stay where they are.
 */
export const DimensionProducers = z
  .object({
    source_authority: z.string().max(80),
    cross_reference: z.string().max(80),
    recency: z.string().max(80),
    llm_analysis: z.string().max(80),
  })
  .partial();
export type DimensionProducers = z.infer<typeof DimensionProducers>;

/** SPEC 2.1 common fields. `warnings` is our additive extension (DESIGN.md). */
const common = {
  trust_score: Score,
  dimensions: Dimensions,
  latency_ms: z.number().nonnegative(),
  credits_used: z.number().nonnegative(),
  warnings: z.array(z.string()).optional(),
  dimension_producers: DimensionProducers.optional(),
};
const idOf = (tag: string) =>
  z.string().regex(VERIFICATION_ID).refine((s) => s.startsWith(`vrf_${tag}_`), `must start with vrf_${tag}_`);

// ---- claim (SPEC 2.2)
export const ClaimEvidence = z.object({
  source: z.string(),
  url: z.string(),
  snippet: z.string(),
  supports_claim: z.boolean(),
  authority_score: Score,
  retrieved_at: Timestamp,
  /**
   * Additive: the stance the passage was given. `neutral` items appear only on `unverifiable`
   * results: the closest passages read, so that what was looked at is shown (their
   * supports_claim is false).
   */
  stance: z.enum(['supports', 'refutes', 'neutral']).optional(),
});
export const ClaimResult = z.object({
  id: idOf('clm'),
  ...common,
  verdict: z.enum(VERDICTS),
  evidence: z.array(ClaimEvidence),
});

// ---- business (SPEC 2.3). `finding` on evidence is an additive extension: what the source said.
export const Officer = z.object({ name: z.string(), role: z.string(), appointed_on: DateOnly.nullable() });
export const Filing = z.object({ type: z.string(), filed_at: DateOnly, url: z.string() });
/**
 * Additive: what one registry said, as fields (the HTML report puts sources side by side).
 * `role`: `basis` (the record the result is built on), `corroborating` (the same entity in another
 * source) or `alternative` (a different entity with a similar name). `agrees`/`disagrees` name
 * the fields compared with the basis record.
 */
export const BUSINESS_FIELDS = ['legal_name', 'status', 'incorporation_date', 'jurisdiction', 'registration_number'] as const;
export const RegistryFacts = z.object({
  role: z.enum(['basis', 'corroborating', 'alternative']),
  name: z.string(),
  registration_number: z.string().nullable(),
  jurisdiction: z.string().nullable(),
  status: z.enum(COMPANY_STATUSES).nullable(),
  raw_status: z.string().nullable(),
  incorporation_date: z.string().nullable(),
  as_of: z.string(),
  agrees: z.array(z.enum(BUSINESS_FIELDS)),
  disagrees: z.array(z.enum(BUSINESS_FIELDS)),
});
export const BusinessEvidence = z.object({
  source: z.string(),
  url: z.string(),
  authority_score: Score,
  finding: z.string().optional(),
  record: RegistryFacts.optional(),
});
export type RegistryFacts = z.infer<typeof RegistryFacts>;
export const BusinessResult = z.object({
  id: idOf('biz'),
  ...common,
  status: z.enum(COMPANY_STATUSES),
  legal_name: z.string(),
  registration_number: z.string(),
  jurisdiction: z.string(),
  incorporation_date: DateOnly.nullable(),
  officers: z.array(Officer).optional(),
  filings: z.array(Filing).optional(),
  evidence: z.array(BusinessEvidence),
});

// ---- watermark (SPEC 2.4/2.5: inner fields "not shown"; ours, documented in the README)
export const C2paStatus = z.object({
  code: z.string(),
  explanation: z.string().nullable(),
  /** `failure` invalidates the manifest; `informational` does not (e.g. timeStamp.malformed). */
  kind: z.enum(['success', 'informational', 'failure']),
});
export const C2paAction = z.object({
  action: z.string(),
  digital_source_type: z.string().nullable(),
  software_agent: z.string().nullable(),
  when: z.string().nullable(),
});
export const C2paIngredient = z.object({
  title: z.string().nullable(),
  format: z.string().nullable(),
  relationship: z.string().nullable(),
  validation_state: z.string().nullable(),
});
export const Watermark = z.object({
  /** `c2pa` for Content Credentials. */
  type: z.enum(['c2pa']),
  /**
   * `trusted`: valid and signed by a configured trust anchor; `valid`: cryptographically valid,
   * signer unknown; `invalid`: a failure status; `unreadable`: present but not verifiable here
   * (remote manifest offline, pre-release format, unsupported algorithm).
   */
  validation_state: z.enum(['trusted', 'valid', 'invalid', 'unreadable']),
  claim_generator: z.string().nullable(),
  signer: z.string().nullable(),
  signed_at: z.string().nullable(),
  actions: z.array(C2paAction),
  ingredients: z.array(C2paIngredient),
  status: z.array(C2paStatus),
  remote_manifest_url: z.string().nullable(),
});
export type Watermark = z.infer<typeof Watermark>;

// ---- media (SPEC 2.4)
export const ProvenanceItem = z.object({ url: z.string(), first_seen: Timestamp, source: z.string() });
export const Gps = z.object({ lat: z.number(), lon: z.number(), alt: z.number().nullable() });
export const MediaMetadata = z.object({
  width: z.number(),
  height: z.number(),
  format: z.string(),
  exif: z.object({
    make: z.string().nullable(),
    model: z.string().nullable(),
    datetime_original: z.string().nullable(),
    gps: Gps.nullable(),
  }),
});
/**
 * `summary` is an additive extension: the finding in plain words for people ("the compression
 * pattern is the same across the whole image"); `finding` keeps the technical statement
 * ("grid phase (0,0) everywhere"). Human output shows the summary first and the finding with
 * --verbose; JSON always has both.
 */
/** A rectangle in original-image pixels (stored orientation: EXIF rotation not applied). */
export const PixelRegion = z.object({
  x: z.number().int().nonnegative(),
  y: z.number().int().nonnegative(),
  width: z.number().int().nonnegative(),
  height: z.number().int().nonnegative(),
});
export type PixelRegion = z.infer<typeof PixelRegion>;
/**
 * `region` is an additive extension: for a finding that names a region of the image (a pasted
 * JPEG-grid cluster, a low-noise group), its bounding box in original-image pixels.
 */
export const AnalysisEvidence = z.object({ source: z.string(), finding: z.string(), authority_score: Score, summary: z.string().optional(), region: PixelRegion.optional() });
/** One pixel analysis over the tile grid (docs/media.md "Tile maps"). */
export const TileMap = z.object({
  /** Row-major (cols × rows) scores in 0..1, 2 decimals; null where the tile was not measured. */
  scores: z.array(Score.nullable()),
  /** Indices (into scores) of the tiles the analysis marked. */
  marked: z.array(z.number().int().nonnegative()),
});
/**
 * Additive extension: the coordinates pictures need (the HTML report's heat maps). The pixel
 * analyzers look at `analysed` (the whole image up to 4096×4096, else a centred crop), cut into
 * `tile`×`tile` tiles, `cols` × `rows` of them; tile i covers x = analysed.x + (i % cols)·tile,
 * y = analysed.y + ⌊i / cols⌋·tile. Present when the pixels were analysed.
 */
export const MediaForensics = z.object({
  tile: z.number().int().positive(),
  cols: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
  analysed: PixelRegion,
  /** forensics.jpeg_grid: how far each tile's strongest foreign block-grid phase stands out; marked = the modal foreign phase pair. */
  jpeg_grid: TileMap.optional(),
  /** forensics.noise_residual: how much cleaner each tile is than the image's noise model; marked = low-noise outliers. */
  noise: TileMap.optional(),
});
export type MediaForensics = z.infer<typeof MediaForensics>;
/**
 * Additive: the analysed file's SHA-256 and size in bytes, so a report can check that the file it
 * embeds is the one this result describes. Absent when no file was read (a URL in the sandbox).
 */
export const FileDigest = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().nonnegative() });
/**
 * Additive (issue 30): how a video's frames were read. `decoder` null = no decoder was available
 * and `pixels_analysed` false: the verdict rests on container metadata and C2PA only. `sampled`:
 * the frames the image forensics read, with how much each stands out (0..1); `ranges`: the frames
 * and times a temporal or per-frame signal names.
 */
export const MediaVideo = z.object({
  decoder: z.string().nullable(),
  pixels_analysed: z.boolean(),
  frames_total: z.number().int().nonnegative(),
  frames_decoded: z.number().int().nonnegative(),
  duration_s: z.number().nonnegative().nullable(),
  fps: z.number().nonnegative().nullable(),
  keyframes: z.number().int().nonnegative(),
  sampled: z.array(z.object({ index: z.number().int().nonnegative(), time_s: z.number(), keyframe: z.boolean(), score: Score, noise_sigma: z.number().nullable() })),
  ranges: z.array(z.object({ start_s: z.number(), end_s: z.number(), first_frame: z.number().int().nonnegative(), last_frame: z.number().int().nonnegative(), analyzer: z.string(), probability: Score })),
});
export type MediaVideo = z.infer<typeof MediaVideo>;
export const MediaResult = z.object({
  id: idOf('med'),
  ...common,
  authenticity: z.enum(AUTHENTICITIES),
  deepfake_score: Score,
  provenance: z.array(ProvenanceItem),
  /** Earliest known source; null when no appearance is known (SPEC says string; null is our honest "unknown"). */
  provenance_source: z.string().nullable(),
  watermark: Watermark.nullable(),
  metadata: MediaMetadata,
  evidence: z.array(AnalysisEvidence),
  /** Additive: per-tile maps of the pixel analyses (MediaForensics). */
  forensics: MediaForensics.optional(),
  /** Additive: the analysed file (FileDigest). */
  file: FileDigest.optional(),
  /** Additive: the frames of a video (MediaVideo). */
  video: MediaVideo.optional(),
});

// ---- document (SPEC 2.5)
export const DocumentMetadata = z.object({
  author: z.string().nullable(),
  created_at: z.string().nullable(),
  producer: z.string(),
  page_count: z.number().int().nonnegative(),
});
/**
 * Additive extension (docs/document.md, Signatures): one entry per PDF signature, document
 * time-stamp or DOCX package signature. `integrity` is the cryptography (broken → the
 * `signature_forgery` flag); `trust` is who signed, decided apart from it (an untrusted or
 * self-signed signer is not forgery).
 */
export const SignatureSummary = z.object({
  /** PDF: the signature field's name; DOCX: the signature part's path. */
  field: z.string().nullable(),
  kind: z.enum(['signature', 'document_timestamp']),
  /** Subject of the signer's (or time-stamping authority's) certificate. */
  signer: z.string().nullable(),
  /** The signing time: a document time-stamp's genTime, else the time the signer claims. */
  signed_at: z.string().nullable(),
  integrity: z.enum(['valid', 'broken', 'unknown']),
  trust: z.enum(['trusted', 'untrusted', 'expired', 'revoked', 'unknown']),
  algorithm: z.string().nullable(),
  digest_algorithm: z.string().nullable(),
  /** A signature time-stamp token (CMS unsigned attribute), when present. */
  timestamp: z
    .object({
      time: z.string().nullable(),
      integrity: z.enum(['valid', 'broken', 'unknown']),
      authority: z.string().nullable(),
      trust: z.enum(['trusted', 'untrusted', 'expired', 'revoked', 'unknown']),
    })
    .nullable(),
  /** PDF: the signed ranges reach the end of the file (nothing was appended after signing). */
  covers_whole_document: z.boolean(),
  /** What failed (integrity broken), at most 5. */
  problems: z.array(z.string()),
  /** Why integrity or trust is unknown, and remarks that are not failures, at most 5. */
  notes: z.array(z.string()),
  /** Additive (PDF): the revision whose end the signed bytes reach (null: they end mid-revision). */
  revision: z.number().int().nonnegative().nullable().optional(),
  /** Additive (PDF): where the signed bytes end (ByteRange offset + length of its second range). */
  signed_bytes: z.number().int().nonnegative().optional(),
});
export type SignatureSummary = z.infer<typeof SignatureSummary>;

/**
 * Additive extension (PDF, docs/document.md "Revision timeline"): one entry per revision (0 is
 * the original file, 1… incremental updates), oldest first, at most 200 (the newest).
 */
export const RevisionEntry = z.object({
  index: z.number().int().nonnegative(),
  /** Byte range of the revision in the file. */
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  /** Indices into `signatures` whose signed bytes end at this revision. */
  signatures: z.array(z.number().int().nonnegative()),
  /** What the revision defines, counted by kind ("1 signature, 1 form value"). */
  changes: z.string(),
  /** Up to 10 of its changed objects in words. */
  changed: z.array(z.string()),
  /** For revisions after a signature: the most permissive kind of permitted update it needed. */
  level: z.enum(['none', 'lta_updates', 'form_filling', 'annotations']).nullable(),
  /** Indices into `signatures` that this revision's changes break (not permitted after signing). */
  breaks: z.array(z.number().int().nonnegative()),
  /** Why, at most 5. */
  reasons: z.array(z.string()),
});
export type RevisionEntry = z.infer<typeof RevisionEntry>;
/** One window of the analysed prose and what the AI-text model made of it (see `AiTextSummary`). */
export const AiTextPassage = z.object({
  /** Character offsets into the analysed text (the prose the detector read: layout lines dropped, whitespace collapsed). */
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  /** The window's text, at most 300 characters. */
  excerpt: z.string().max(300),
  /** The same calibrated stylometric model applied to this window alone (≥ 50 words unless the whole text is shorter). */
  probability: Score,
  /** The 1–3 features that pushed this window most towards AI, in plain words (empty only if none did). */
  cues: z.array(z.string()).max(3),
});
/**
 * Additive: the AI-text reading behind `ai_generated_probability`, with up to 5 passages (sentence
 * windows, most machine-like first) that reports can highlight. Present only when AI-text analysis
 * ran and had enough prose to measure.
 */
export const AiTextSummary = z.object({
  probability: Score,
  words: z.number().int().nonnegative(),
  flagged: z.boolean(),
  passages: z.array(AiTextPassage).max(5),
});

export const DocumentResult = z.object({
  id: idOf('doc'),
  ...common,
  ai_generated_probability: Score,
  manipulation_flags: z.array(z.enum(MANIPULATION_FLAGS)),
  watermark: Watermark.nullable(),
  metadata: DocumentMetadata,
  evidence: z.array(AnalysisEvidence),
  /** Additive: present when the document carries signatures (SignatureSummary). */
  signatures: z.array(SignatureSummary).optional(),
  /** Additive (PDF with incremental updates or signatures): the revision timeline (RevisionEntry). */
  revisions: z.array(RevisionEntry).optional(),
  /** Additive: the AI-text probability's passages (AiTextSummary); absent when the analysis did not run. */
  ai_text: AiTextSummary.optional(),
  /** Additive: the analysed file (FileDigest); absent for raw text. */
  file: FileDigest.optional(),
});

export type ClaimEvidence = z.infer<typeof ClaimEvidence>;
export type ClaimResult = z.infer<typeof ClaimResult>;
export type Officer = z.infer<typeof Officer>;
export type Filing = z.infer<typeof Filing>;
export type BusinessEvidence = z.infer<typeof BusinessEvidence>;
export type BusinessResult = z.infer<typeof BusinessResult>;
export type ProvenanceItem = z.infer<typeof ProvenanceItem>;
export type MediaMetadata = z.infer<typeof MediaMetadata>;
export type AnalysisEvidence = z.infer<typeof AnalysisEvidence>;
export type MediaResult = z.infer<typeof MediaResult>;
export type DocumentMetadata = z.infer<typeof DocumentMetadata>;
export type DocumentResult = z.infer<typeof DocumentResult>;
export type AiTextPassage = z.infer<typeof AiTextPassage>;
export type AiTextSummary = z.infer<typeof AiTextSummary>;

export type VerificationResult = ClaimResult | BusinessResult | MediaResult | DocumentResult;
