/**
 * Live document verification (SPEC 2.5, 4.4): PDF, DOCX, images and raw text, offline. Input is
 * typed by content; each format's analyser reports findings, cross-checks and metadata; images
 * (whole or embedded) go through the media engine's image analysis; a C2PA manifest becomes the
 * `watermark`; the text goes to the AI-text detector; score.ts turns it all into the result.
 * A time budget bounds the whole analysis: what did not finish in time is named in `warnings`.
 */
import { notMeasuredWarning } from '../../api/not-measured.js';
import { fileDigest } from '../file-digest.js';
import { VerityError } from '../../api/errors.js';
import type { DocumentRequest } from '../../api/requests.js';
import type { AnalysisEvidence, DimensionProducers, DocumentResult, Watermark } from '../../api/results.js';
import { round3 } from '../scoring.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';
import { analyzeAiText, prepareAiTextDetector } from './ai-text/analyze.js';
import { Budget, DEFAULT_BUDGET_MS } from './budget.js';
import { resolveDocumentInput } from './input.js';
import { emptyAnalysis, plainFindingSummary, type FormatAnalysis, type Finding } from './report.js';
import { documentScores } from './score.js';
import { detectTruncation, type Truncation } from './truncation.js';

/** Evidence items returned, most severe first (the rest are summarised in one line). */
export const MAX_EVIDENCE = 40;

export interface DocumentEngineOptions {
  /** Whole-analysis time budget in ms (default 20 s). */
  budgetMs?: number;
}

type EmbeddedImageRun = Promise<{ findings: Finding[]; warnings: string[] }>;

async function analyseByKind(
  kind: string,
  bytes: Buffer,
  text: string | undefined,
  req: DocumentRequest,
  ports: EnginePorts,
  budget: Budget,
  startImages: (images: { bytes: Buffer; label: string }[]) => void,
  startC2pa: () => void,
): Promise<FormatAnalysis> {
  const now = ports.clock.now();
  switch (kind) {
    case 'pdf': {
      // The extraction thread starts first: its start-up and pdf.js compile overlap the module
      // loading and structure reading below; it is stopped here whatever happens.
      const pdfReader = (await import('./extraction-thread.js')).preparePdfReader(ports.codeCacheDir, ports.pdfThread);
      try {
        // While pdf.js reads (the text of the first pages, ~0.1 s), this thread would idle: the
        // AI-text detector, which runs as soon as the text arrives, builds its tables meanwhile.
        return await (await import('./pdf/analyze.js')).analyzePdf(bytes, now, budget, {
          onImages: startImages,
          trustAnchors: await documentTrustAnchors(ports),
          onC2paCandidate: startC2pa,
          pdfReader,
          simpleReader: ports.config.document?.pdf_reader !== 'pdfjs',
          codeCacheDir: ports.codeCacheDir,
          whilePdfJsReads: prepareAiTextDetector,
        });
      } finally {
        pdfReader.discard();
      }
    }
    case 'docx':
      return (await import('./docx/analyze.js')).analyzeDocx(bytes, now, budget, { onImages: startImages, trustAnchors: await documentTrustAnchors(ports) });
    case 'image':
      return (await import('./image.js')).analyzeImageDocument(bytes, ports, { checkDeepfakes: req.check_deepfakes, checkWatermarks: req.check_watermarks }, budget);
    default: {
      const a = emptyAnalysis('text');
      a.text = text ?? '';
      a.provenance = 0.5;
      a.findings.push({ source: 'text_input', finding: `plain text, ${a.text.length} characters: no file metadata, signatures or revisions exist to check`, authority: 0.3, severity: 0 });
      return a;
    }
  }
}

/** `document.trust_anchors`, read once per path (trust-store.ts); a bad entry is a warning, not a failure. */
async function documentTrustAnchors(ports: EnginePorts): Promise<{ anchors: import('./signing/trust-store.js').TrustAnchors; warnings: string[] }> {
  const warnings: string[] = [];
  const { loadDocumentTrustAnchors } = await import('./signing/trust-store.js');
  return { anchors: loadDocumentTrustAnchors(ports.config, warnings), warnings };
}

/** What the C2PA reading adds to the analysis; applied after the format's own findings, in that order. */
interface C2paOutcome {
  findings: Finding[];
  warnings: string[];
  watermark?: Watermark;
  provenance?: (p: number) => number;
}

async function readDocumentC2pa(bytes: Buffer, mime: string, ports: EnginePorts, budget: Budget): Promise<C2paOutcome> {
  const out: C2paOutcome = { findings: [], warnings: [] };
  const { readC2pa } = await import('../media/c2pa.js');
  const { loadTrustAnchors } = await import('../media/trust.js');
  const run = await budget.run(readC2pa(bytes, mime, { trustAnchorsPem: loadTrustAnchors(ports.config, out.warnings), signal: budget.signal }));
  if (run.timedOut) {
    out.warnings.push('the C2PA manifest was not read within the time budget');
    return out;
  }
  const w = run.value;
  if (!w) return out;
  out.watermark = w;
  const failures = w.status.filter((s) => s.kind === 'failure').map((s) => s.code);
  // trainedAlgorithmicMedia or compositeWithTrainedAlgorithmicMedia: the file declares that a
  // generative model made it or a part of it (Adobe Express with Firefly images, for one).
  const ai = w.actions.find((x) => x.digital_source_type && /(^|\/)(trainedAlgorithmicMedia|compositeWithTrainedAlgorithmicMedia)$/.test(x.digital_source_type));
  const base = `C2PA manifest by ${w.claim_generator ?? 'an unknown generator'}, signer ${w.signer ?? 'unknown'}${w.signed_at ? `, signed ${w.signed_at}` : ''}: ${w.validation_state}`;
  if (w.validation_state === 'invalid')
    out.findings.push({ source: 'c2pa', finding: `${base} (${failures.join(', ') || 'validation failed'}): the file no longer matches what was signed`, authority: 0.9, flag: 'signature_forgery', severity: 0.75 });
  else out.findings.push({ source: 'c2pa', finding: `${base}${w.actions.length ? `; actions ${w.actions.map((x) => x.action).join(', ')}` : ''}`, authority: w.validation_state === 'unreadable' ? 0.4 : 0.9, severity: 0 });
  if (ai) {
    const composite = /compositeWithTrainedAlgorithmicMedia$/.test(ai.digital_source_type!);
    // The `deepfake` flag: the document's own Content Credentials say generated media is in it.
    // Not `ai_generated_text`, which is about the words (the detector's reading, below).
    out.findings.push({
      source: 'c2pa',
      finding: `the manifest declares ${ai.action} with digitalSourceType ${ai.digital_source_type}: ${composite ? 'the document contains content made with a generative model' : 'content made with a generative model'}`,
      authority: w.validation_state === 'invalid' ? 0.6 : 0.9,
      flag: 'deepfake',
      severity: 0.3,
      summary: composite
        ? 'The document’s own Content Credentials declare that part of it was made with a generative AI model.'
        : 'The document’s own Content Credentials declare that it was made with a generative AI model.',
    });
  }
  if (w.validation_state === 'trusted') out.provenance = (p) => Math.max(p, 0.95);
  else if (w.validation_state === 'valid') out.provenance = (p) => Math.max(p, 0.8);
  else if (w.validation_state === 'invalid') out.provenance = (p) => Math.min(p, 0.1);
  return out;
}

/**
 * A truncated file gives a partial result only when something before the cut was readable (text,
 * pages, metadata); otherwise 422. Conclusions that need the missing tail are withdrawn: a PDF's
 * Info dictionary sits in the trailer at the end, so "no metadata" in a cut file is not evidence
 * of stripping. The cap on trust is applied in score.ts.
 */
function applyTruncation(a: FormatAnalysis, t: Truncation): void {
  const read: string[] = [];
  const words = a.text.trim() ? a.text.trim().split(/\s+/).length : 0;
  if (words > 0) read.push(`${words} words of text`);
  if (a.metadata.page_count > 0 && a.format === 'pdf') read.push(`a page count (${a.metadata.page_count})`);
  const meta = [a.metadata.author && 'author', a.metadata.created_at && 'creation date', a.metadata.producer !== 'unknown' && 'producer'].filter(Boolean);
  if (meta.length) read.push(`metadata (${meta.join(', ')})`);
  if (read.length === 0)
    throw new VerityError('UNPROCESSABLE_CONTENT', `${t.evidence}, and nothing before the cut could be read (no text, pages or metadata): there is nothing to verify`);
  const stripped = a.findings.filter((f) => f.flag === 'metadata_stripped');
  if (stripped.length) {
    a.findings = a.findings.filter((f) => f.flag !== 'metadata_stripped');
    a.provenance = 0.5;
  } else a.provenance = Math.min(a.provenance, 0.5);
  a.findings.push({ source: 'document_integrity', finding: `${t.evidence}; read before the cut: ${read.join(', ')}`, authority: 0.9, severity: 0 });
  a.warnings.unshift(`partial result: ${t.evidence}. Only ${read.join(', ')} could be read; not checked: ${t.unchecked.join(', ')}${stripped.length ? ' (so a missing Info/XMP is not reported as stripped metadata)' : ''}. trust_score is capped at 0.4`);
}

/** Plain names of what produced each dimension (the additive `dimension_producers` field). */
function producersOf(kind: string, a: FormatAnalysis, llm: string, partial: boolean): DimensionProducers {
  const signed = a.findings.some((f) => /_signature$/.test(f.source));
  const source =
    kind === 'text' ? 'none (plain text has no provenance)'
    : partial ? 'truncated file: provenance unknown'
    : [signed && 'digital signature', a.watermark && 'C2PA manifest', kind === 'image' ? 'image analysis' : 'file metadata'].filter(Boolean).join(' + ');
  return {
    source_authority: source,
    cross_reference: a.checks.length ? `${a.checks.length} metadata cross-check(s)` : 'no cross-checks possible',
    recency: a.metadata.created_at || a.findings.some((f) => f.flag === 'inconsistent_timestamps') ? 'file dates' : 'no dates',
    llm_analysis: llm,
  };
}

export async function verifyDocument(req: DocumentRequest, ports: EnginePorts, opts: VerifyOptions, engineOpts: DocumentEngineOptions = {}): Promise<Computed<DocumentResult>> {
  const budget = new Budget(engineOpts.budgetMs ?? DEFAULT_BUDGET_MS, opts.signal);
  const input = await resolveDocumentInput(req, ports, opts.signal, opts.inputBytes);

  // Independent stages run concurrently (C2PA, embedded images, pdf.js text); their
  // results are merged below in a fixed order, so the output does not depend on which ends first.
  // The C2PA reader starts only when the PDF analysis finds that the file may carry a manifest
  // (pdf/c2pa-scan.ts): compiling and running the wasm costs ~0.35 s and finds nothing elsewhere.
  let c2paRun: Promise<C2paOutcome> | undefined;
  const startC2pa = (): void => {
    if (c2paRun || !req.check_watermarks || input.kind !== 'pdf') return;
    c2paRun = readDocumentC2pa(input.bytes, 'application/pdf', ports, budget).catch((err: unknown) => ({
      findings: [],
      warnings: [`C2PA not checked: ${err instanceof Error ? err.message : String(err)}`],
    }));
  };
  let imageRun: EmbeddedImageRun | undefined;
  const startImages = (images: { bytes: Buffer; label: string }[]): void => {
    if (imageRun || images.length === 0) return;
    imageRun = import('./image.js').then((m) => m.analyzeEmbeddedImages(images, ports, req.check_deepfakes, budget));
    imageRun.catch(() => undefined);
  };

  const a = await analyseByKind(input.kind, input.bytes, input.text, req, ports, budget, startImages, startC2pa);
  a.warnings.unshift(...input.warnings);

  if (c2paRun) {
    const c = await c2paRun;
    if (c.watermark) a.watermark = c.watermark;
    a.findings.push(...c.findings);
    a.warnings.push(...c.warnings);
    if (c.provenance) a.provenance = c.provenance(a.provenance);
  }
  startImages(a.images);
  if (imageRun) {
    const r = await imageRun;
    a.findings.push(...r.findings);
    a.warnings.push(...r.warnings);
  }

  const truncation = detectTruncation(input.kind, input.bytes);
  if (truncation) applyTruncation(a, truncation);

  const ai = await analyzeAiText(a.text, { config: ports.config, http: ports.http, signal: opts.signal });
  a.findings.push(...ai.findings);
  if (input.kind !== 'text' && a.text.trim().length === 0)
    a.warnings.push('the document has no extractable text (scanned, image-only or unreadable); AI-text detection was not possible');
  else a.warnings.push(...ai.warnings);

  if (budget.signal?.aborted) throw new VerityError('UNAVAILABLE', 'the document analysis was cancelled');
  const { trust, dimensions, flags } = documentScores({
    findings: a.findings,
    checks: a.checks,
    provenance: a.provenance,
    hasDates: !!a.metadata.created_at,
    aiProbability: ai.probability,
    enoughText: ai.enoughText,
    partial: !!truncation,
  });

  const ordered = [...a.findings].sort((x, y) => y.severity - x.severity || y.authority - x.authority);
  const evidence: AnalysisEvidence[] = ordered.slice(0, MAX_EVIDENCE).map((f) => {
    const summary = plainFindingSummary(f);
    return { source: f.source, finding: f.finding, authority_score: round3(f.authority), ...(summary ? { summary } : {}) };
  });
  if (ordered.length > MAX_EVIDENCE) evidence.push({ source: 'document_analysis', finding: `${ordered.length - MAX_EVIDENCE} further informational finding(s) omitted`, authority_score: 0.1 });

  const result: Computed<DocumentResult> = {
    trust_score: trust,
    dimensions,
    ai_generated_probability: round3(ai.probability),
    manipulation_flags: flags,
    watermark: a.watermark,
    metadata: a.metadata,
    evidence,
    dimension_producers: producersOf(input.kind, a, ai.producer, !!truncation),
  };
  if (a.signatures?.length) result.signatures = a.signatures;
  if (a.revisions?.length) result.revisions = a.revisions;
  if (ai.enoughText) result.ai_text = { probability: round3(ai.probability), words: ai.words, flagged: ai.flagged, passages: ai.passages };
  // Numbers with nothing behind them: SPEC's neutral value stays, and the warnings say so.
  if (result.dimension_producers?.recency === 'no dates') a.warnings.push(notMeasuredWarning('recency', 'no dates in the file', dimensions.recency));
  if (a.checks.length === 0) a.warnings.push(notMeasuredWarning('cross_reference', 'no metadata cross-checks possible', dimensions.cross_reference));
  if (!ai.enoughText) {
    const why = ai.words === 0 ? 'no text to read' : `${ai.words} words: too short to judge`;
    a.warnings.push(notMeasuredWarning('ai_generated_probability', why, result.ai_generated_probability), notMeasuredWarning('llm_analysis', why, dimensions.llm_analysis));
  }
  if (req.source !== 'raw') result.file = fileDigest(input.bytes);
  const warnings = [...new Set(a.warnings)];
  if (warnings.length) result.warnings = warnings;
  return result;
}
