/**
 * Live media verification (SPEC 2.4, 4.3): offline analysis of an image or video, provenance
 * from the known-media index and C2PA ingredients, and the documented score combination
 * (docs/media.md "Scores").
 */
import { notMeasuredWarning } from '../../api/not-measured.js';
import { fileDigest, sha256Hex } from '../file-digest.js';
import { VerityError } from '../../api/errors.js';
import type { MediaRequest } from '../../api/requests.js';
import type { Store } from '../../store/local/database.js';
import type { AnalysisEvidence, Authenticity, DimensionProducers, Dimensions, MediaResult, MediaVideo, ProvenanceItem, Watermark } from '../../api/results.js';
import { loadBinary } from '../inputs.js';
import { clamp01, noisyOr, round3 } from '../scoring.js';
import type { Computed, EnginePorts, VerifyOptions } from '../types.js';
import { analyzeImage, assembleAnalysis, type ImageAnalysis, type PixelCoverage } from './analyze-image.js';
import { readC2pa } from './c2pa.js';
import { detectMediaType } from './detect-type.js';
import { c2paSourceSignal, declaresAi } from './forensics/metadata-signals.js';
import type { Signal } from './forensics/types.js';
import { findInMediaIndex, type MediaIndexMatch } from './media-index.js';
import { c2paVerdict } from './score.js';
import { withTimeBudget } from './time-budget.js';
import { loadTrustAnchors } from './trust.js';
import type { VideoFramesResult } from './video-frames.js';
import type { DecoderError } from './ffmpeg.js';

const VIDEO_BUDGET_MS = 30_000;
/** Of the video budget, what the decoder runs may take (the rest: C2PA, metadata, scoring). */
const DECODE_BUDGET_MS = 25_000;

/** Why a video's pixels were not read, for the warning and the human output. */
export const NO_DECODER_WARNING =
  'Video pixels not analysed: no video decoder (ffmpeg and ffprobe) was found on PATH (or media.ffmpeg is "none"); the reading rests on container metadata and C2PA only';

/**
 * Video: container metadata, C2PA, and the frames (video-frames.ts) when ffmpeg is available.
 * Without a decoder the result says so (a warning, `video.pixels_analysed: false`) and keeps the
 * metadata-only reading; it never reports a pixel score it did not compute.
 */
async function analyzeVideo(bytes: Buffer, mime: string, format: string, req: MediaRequest, ports: EnginePorts, signal?: AbortSignal): Promise<ImageAnalysis> {
  return withTimeBudget(VIDEO_BUDGET_MS, signal, async (sig) => {
    // The video modules load for a video only: an image's verification needs none of them (the
    // decoder's brings node:child_process).
    const [{ readVideoMetadata }, { containerSignals }, { analyzeVideoFrames }, ffmpeg] = await Promise.all([
      import('./video.js'),
      import('./video-container.js'),
      import('./video-frames.js'),
      import('./ffmpeg.js'),
    ]);
    const warnings: string[] = [];
    const vm = readVideoMetadata(bytes, format);
    if (!vm.metadata.width) warnings.push('No video track header found: the container may be truncated or fragmented');
    const decoder = ffmpeg.findDecoder(ports.config);
    const framesP: Promise<VideoFramesResult | DecoderError | null> = decoder
      ? analyzeVideoFrames(bytes, decoder, { signal: sig, timeoutMs: DECODE_BUDGET_MS, checkDeepfakes: req.check_deepfakes }).catch((err: unknown) => {
          if (err instanceof ffmpeg.DecoderError) return err;
          throw err;
        })
      : Promise.resolve(null);
    framesP.catch(() => undefined);
    const watermark = req.check_watermarks
      ? await readC2pa(bytes, mime, { trustAnchorsPem: loadTrustAnchors(ports.config, warnings), signal: sig })
      : null;
    const frames = await framesP;
    sig.throwIfAborted();
    // A truncated container: its frames (and any hash binding over them) are not all there.
    let incomplete = vm.truncated
      ? `the container is truncated (${vm.truncated}): the video is incomplete and what is missing was not checked`
      : !vm.hasMoov ? 'the container has no movie header (moov): tracks, duration and capture metadata could not be read' : null;
    if (incomplete && !watermark && !vm.metadata.width && !vm.metadata.exif.datetime_original)
      throw new VerityError('UNPROCESSABLE_CONTENT', `Nothing in this video can be analysed: ${incomplete}`);
    const signals: Signal[] = [];
    const { make, model, datetime_original } = vm.metadata.exif;
    signals.push({
      analyzer: 'metadata.container',
      kind: 'capture',
      probability: make && model ? 0.4 : 0,
      confidence: 0.3,
      finding: `${format.toUpperCase()} container (brand ${vm.brand ?? 'unknown'}${vm.durationS !== null ? `, ${vm.durationS} s` : ''}): ${make || model ? `recorded with ${[make, model].filter(Boolean).join(' ')}` : 'no camera make/model'}${datetime_original ? `, created ${datetime_original}` : ''}${vm.software ? `, software ${vm.software}` : ''}`,
    });
    const decoded = frames && !(frames instanceof ffmpeg.DecoderError) ? frames : null;
    signals.push(...containerSignals(vm, decoded?.container ?? null));
    if (req.check_deepfakes) {
      const c2 = c2paSourceSignal(watermark);
      if (c2) signals.push(c2);
    }
    let pixels: PixelCoverage = 'none';
    if (decoded) {
      pixels = decoded.partial || decoded.frames_decoded < decoded.frames_total * 0.9 ? 'partial' : 'full';
      // The spectral (AI) check is a deepfake signal: only with deepfake checks on (it is computed then only).
      signals.push(...decoded.signals);
      warnings.push(...decoded.warnings);
      if (decoded.partial) incomplete = incomplete ? `${incomplete}; ${decoded.partial}` : decoded.partial;
      if (!vm.metadata.width) {
        vm.metadata.width = decoded.width;
        vm.metadata.height = decoded.height;
      }
    } else if (frames instanceof ffmpeg.DecoderError) {
      if (frames.reason === 'aborted') sig.throwIfAborted();
      warnings.push(`Video pixels not analysed: ${frames.message}; the reading rests on container metadata and C2PA only`);
      // A decoder that is there but cannot read the frames is a broken or hostile file, as an
      // undecodable image is: the analysis did not run in full.
      incomplete ??= `the frames could not be decoded (${frames.message}): editing traces in the pixels were not checked`;
    } else warnings.push(NO_DECODER_WARNING);
    if (!decoded)
      signals.push({
        analyzer: 'forensics.video_frames',
        kind: 'manipulation',
        probability: 0,
        confidence: 0.1,
        finding: `Pixels not analysed: ${frames instanceof ffmpeg.DecoderError ? `the decoder could not read the frames (${frames.message})` : 'no video decoder (ffmpeg) is available here'}; no frame-level forensics, the judgement rests on container metadata and C2PA`,
      });
    const video: MediaVideo = decoded
      ? {
          decoder: decoded.decoder,
          pixels_analysed: true,
          frames_total: decoded.frames_total,
          frames_decoded: decoded.frames_decoded,
          duration_s: decoded.duration_s,
          fps: decoded.fps,
          keyframes: decoded.keyframes,
          sampled: decoded.sampled,
          ranges: decoded.ranges,
        }
      : { decoder: null, pixels_analysed: false, frames_total: 0, frames_decoded: 0, duration_s: vm.durationS, fps: null, keyframes: 0, sampled: [], ranges: [] };
    return {
      ...assembleAnalysis({
        metadata: vm.metadata,
        details: {
          exif: vm.metadata.exif, software: vm.software, creatorTool: null, digitalSourceType: null, createDate: null,
          modifyDate: null, history: [], text: {}, textAll: {}, warnings: [], textNotChecked: null, userComment: null, hasExif: !!(make || model), tagCount: 0, error: null, stealth: null,
        },
        mime,
        watermark,
        signals,
        perceptualHash: null,
        warnings,
        incomplete,
        pixels,
      }),
      video,
    };
  });
}

/** The time ranges of a video that its signals name, strongest first, for the verdict line. */
function standsOut(v: MediaVideo | undefined): string {
  const named = (v?.ranges ?? []).filter((r) => r.probability >= 0.3).sort((a, b) => b.probability - a.probability);
  if (!named.length) return '';
  const t = (r: MediaVideo['ranges'][number]): string => (r.end_s - r.start_s < 0.005 ? `${r.start_s.toFixed(2)} s` : `${r.start_s.toFixed(2)}–${r.end_s.toFixed(2)} s`);
  return `; stands out: ${named.slice(0, 4).map((r) => `${t(r)} (frames ${r.first_frame}–${r.last_frame}, ${r.analyzer})`).join(', ')}${named.length > 4 ? `, and ${named.length - 4} more` : ''}`;
}

/** Provenance timeline: index matches, then C2PA manifest and ingredients, earliest first. */
function buildProvenance(matches: MediaIndexMatch[], w: Watermark | null): ProvenanceItem[] {
  const items: ProvenanceItem[] = matches.map((m) => ({ url: m.url, first_seen: m.first_seen, source: m.source }));
  const signedMs = w?.signed_at ? Date.parse(w.signed_at) : NaN;
  if (w && w.validation_state !== 'unreadable' && w.validation_state !== 'invalid' && Number.isFinite(signedMs)) {
    const at = new Date(signedMs).toISOString();
    items.push({ url: 'c2pa:active_manifest', first_seen: at, source: `c2pa:${w.signer ?? 'unknown signer'}` });
    // An ingredient existed no later than the manifest that cites it.
    for (const ing of w.ingredients)
      items.push({ url: `c2pa:ingredient/${ing.title ?? 'untitled'}`, first_seen: at, source: `c2pa_ingredient:${ing.relationship ?? 'componentOf'}` });
  }
  return items.sort((a, b) => a.first_seen.localeCompare(b.first_seen));
}

const CAPTURE_ACTIONS = new Set(['c2pa.created']);
const EDIT_ACTIONS = /^c2pa\.(edited|color_adjustments|cropped|filtered|drawing|placed|removed|resized|transcoded|orientation|converted|repackaged)/;

function strongest(signals: Signal[], kind: Signal['kind']): string | null {
  const s = signals.filter((x) => x.kind === kind && x.probability > 0).sort((x, y) => y.probability - x.probability)[0];
  return s ? `${s.analyzer} ${s.probability}` : null;
}

export interface MediaJudgement {
  authenticity: Authenticity;
  trust: number;
  dimensions: Dimensions;
  /** What produced each dimension's number (the additive `dimension_producers` field). */
  producers: DimensionProducers;
  reason: string;
  /** Pixels not analysed only for a missing codec, with a valid C2PA hard binding over the bytes. */
  boundByC2pa: boolean;
}

/** Highest trust an analysis that could not run in full may give (issue 13). */
export const INCOMPLETE_TRUST_CAP = 0.4;
/** Trust cap when only a missing codec stopped pixel analysis and a valid C2PA binding covers the bytes. */
export const CODEC_MISSING_TRUST_CAP = 0.6;

/** Trust cap for an intact image too small for the pixel analyzers (a limitation, issue 30). */
export const TOO_SMALL_TRUST_CAP = 0.6;

/** `manipulation` at or above this makes a file `suspicious`; every weak heuristic alone stays below it. */
export const SUSPICIOUS_MANIPULATION = 0.3;
export const SUSPICIOUS_DEEPFAKE = 0.5;

/**
 * The documented combination (docs/media.md "Scores"). `manipulated` needs cryptographic proof
 * (a C2PA hard-binding or signature failure); forensic heuristics, however many agree, can only
 * make a file `suspicious`, because each of them has innocent explanations. An unreadable manifest
 * (pre-release, remote, unknown algorithm) is neither support nor evidence against.
 */
export function judge(a: ImageAnalysis, matches: MediaIndexMatch[], searched = false): MediaJudgement {
  const w = a.watermark;
  const v = c2paVerdict(w);
  const m = a.manipulationScore;
  const d = a.deepfakeScore;
  const captureSigs = a.signals.filter((s) => s.kind === 'capture');
  const c2paSupport = w?.validation_state === 'trusted' ? 0.8 : w?.validation_state === 'valid' ? 0.5 : 0;
  const indexSupport = matches.some((x) => x.exact) ? 0.4 : matches.length ? 0.3 : 0;
  const support = noisyOr([...captureSigs.map((s) => s.probability * 0.6), c2paSupport, indexSupport]);
  let trust = (0.5 + 0.5 * support) * (1 - m) * (1 - d);
  if (w?.validation_state === 'invalid' && !v.tampered) trust *= 0.5;

  const capture = w?.actions.some((x) => CAPTURE_ACTIONS.has(x.action) && /digitalCapture$/.test(x.digital_source_type ?? ''));
  const edited = w?.actions.some((x) => EDIT_ACTIONS.test(x.action));
  const declared = a.signals.filter(declaresAi).sort((x, y) => y.probability - x.probability)[0];
  let authenticity: Authenticity;
  let reason: string;
  if (v.tampered) {
    authenticity = 'manipulated';
    trust = Math.min(trust, 0.05);
    reason = `C2PA validation failed (${v.failures.join(', ')})`;
  } else if (declared) {
    // The file says of itself that a model made it (its metadata or Content Credentials): not a
    // guess from forensics, so it is manipulated, as a failed C2PA binding is.
    authenticity = 'manipulated';
    trust = Math.min(trust, 0.1);
    reason = `the file declares AI generation (${declared.analyzer}: ${declared.declaredType ?? declared.generator})`;
  } else if (w?.validation_state === 'trusted' && capture && !edited && m < SUSPICIOUS_MANIPULATION && d < 0.3) {
    authenticity = 'authentic';
    trust = Math.max(trust, 0.9);
    reason = 'valid C2PA manifest from a trusted signer with a capture action and no edits';
  } else if (d >= SUSPICIOUS_DEEPFAKE || m >= SUSPICIOUS_MANIPULATION || w?.validation_state === 'invalid') {
    authenticity = 'suspicious';
    const top = strongest(a.signals, d >= SUSPICIOUS_DEEPFAKE ? 'synthetic' : 'manipulation');
    reason =
      d >= SUSPICIOUS_DEEPFAKE ? `declared or detected AI generation${top ? ` (${top})` : ''}`
        : m >= SUSPICIOUS_MANIPULATION ? `editing traces or forensic signals${top ? ` (strongest: ${top})` : ''}`
        : 'the C2PA manifest does not validate';
  } else {
    authenticity = 'likely_authentic';
    const weak = a.signals.filter((s) => s.kind !== 'capture' && s.probability > 0).length;
    reason =
      (captureSigs.some((s) => s.probability >= 0.4) ? 'consistent capture metadata' : 'little metadata to confirm it')
      + (weak ? `; ${weak} weak signal${weak > 1 ? 's' : ''} below the suspicion threshold` : '; no signals of editing or generation');
  }

  // An analysis that could not run never raises trust: a broken, undecodable or too-small input
  // is at best `suspicious`, with trust at most 0.4, whatever its metadata or manifest says.
  // One exception: the pixels are intact but this build lacks their codec (HEVC in HEIC), and a
  // valid C2PA manifest's hard binding covers those very bytes. The signer vouches for what we
  // could not look at, so the file is not "broken"; it stays at most likely_authentic with trust
  // capped at CODEC_MISSING_TRUST_CAP, and the warning still says what was not checked.
  const boundByC2pa = a.codecMissing && (w?.validation_state === 'valid' || w?.validation_state === 'trusted') && !(v?.failures.length);
  if (a.incomplete && boundByC2pa) {
    trust = Math.min(trust, CODEC_MISSING_TRUST_CAP);
    if (authenticity === 'authentic') {
      authenticity = 'likely_authentic';
      reason = `valid C2PA manifest whose hard binding covers the pixels, which this build cannot decode: ${a.incomplete}`;
    }
  } else if (a.incomplete) {
    trust = Math.min(trust, INCOMPLETE_TRUST_CAP);
    if (authenticity === 'authentic' || authenticity === 'likely_authentic') {
      authenticity = 'suspicious';
      reason = `the analysis could not run in full: ${a.incomplete}`;
    }
  }

  // Too small for the pixel analyzers (an intact thumbnail-sized picture): a limitation. The
  // metadata verdict stands, never above likely_authentic, with trust capped.
  if (a.tooSmall && !a.incomplete) {
    trust = Math.min(trust, TOO_SMALL_TRUST_CAP);
    if (authenticity === 'authentic') authenticity = 'likely_authentic';
    if (authenticity === 'likely_authentic') reason += '; too small to analyse the pixels (a limitation, not a finding)';
  }

  const tsSig = a.signals.find((s) => s.analyzer === 'metadata.timestamps');
  const hasDates = !!a.metadata.exif.datetime_original || !!w?.signed_at;
  const dimensions: Dimensions = {
    source_authority: round3(
      w?.validation_state === 'trusted' ? 0.95
        : w?.validation_state === 'valid' ? 0.7
        : w?.validation_state === 'invalid' ? 0.05
        : w?.validation_state === 'unreadable' ? 0.4
        : a.metadata.exif.make && a.metadata.exif.model ? 0.5 : 0.3,
    ),
    cross_reference: round3(matches.some((x) => x.exact) ? 0.9 : matches.length ? 0.75 : 0.5),
    recency: round3(tsSig ? 1 - tsSig.probability : hasDates ? 0.8 : 0.5),
    // No language model is used for media: this dimension carries the content (forensic) analysis.
    // An incomplete analysis found nothing because it could not look: at most neutral (0.5).
    // Pixels not analysed at all (a video without a decoder): no content score was computed, so
    // this stays at most neutral too, whatever the metadata-only scores say.
    llm_analysis: round3(a.incomplete || a.pixels === 'none' ? Math.min(0.5, (1 - m) * (1 - d)) : (1 - m) * (1 - d)),
  };
  const forensic = a.pixels === 'full' ? 'pixel forensics and metadata' : a.pixels === 'partial' ? 'pixel forensics on the decoded part, and metadata' : 'metadata only (pixels not analysed)';
  const producers: DimensionProducers = {
    source_authority:
      w?.validation_state === 'trusted' || w?.validation_state === 'valid' ? 'C2PA signature'
        : w?.validation_state === 'invalid' ? 'C2PA validation failure'
        : w?.validation_state === 'unreadable' ? 'unverifiable C2PA manifest'
        : a.metadata.exif.make && a.metadata.exif.model ? 'camera make/model in metadata' : 'no provenance data (default)',
    cross_reference: matches.length ? 'known-media index match' : searched ? 'known-media index (no match)' : 'not searched (default)',
    recency: tsSig ? 'metadata timestamp consistency' : hasDates ? 'capture or signing date present' : 'no dated metadata (default)',
    llm_analysis: forensic,
  };
  return { authenticity, trust: round3(clamp01(trust)), dimensions, producers, reason, boundByC2pa: !!(a.incomplete && boundByC2pa) };
}

/**
 * What the known-media look-up needs besides the perceptual hash: the file's SHA-256 and the open
 * store. Neither needs the pixels, so an image's analysis prepares them while libvips decodes
 * (`whileDecoding`), when the JavaScript thread would otherwise wait. Started once; a failure is
 * kept for the caller, which reports it where the look-up happens.
 */
function indexInputs(sha256: () => string, store: () => Promise<Store | null>): () => Promise<{ sha: string; store: Store | null }> {
  let started: Promise<{ sha: string; store: Store | null }> | undefined;
  return () => {
    if (!started) {
      started = (async () => ({ sha: sha256(), store: await store() }))();
      started.catch(() => undefined); // awaited by the look-up; this only stops an early failure being "unhandled"
    }
    return started;
  };
}

export async function verifyMedia(req: MediaRequest, ports: EnginePorts, opts: VerifyOptions): Promise<Computed<MediaResult>> {
  const input = await loadBinary(req, ports, opts.signal, 'file', opts);
  const type = await detectMediaType(input.bytes);
  // The file's SHA-256, computed once: the index look-up and the result's `file` both need it
  // (each hashed the whole file: ~1 ms per MB, 15 MB for a 4K PNG).
  let sha: string | undefined;
  const sha256 = (): string => (sha ??= sha256Hex(input.bytes));
  // A store that does not exist yet holds no known media: it is not created (nor SQLite loaded) to find that out.
  const lookup = req.check_provenance && ports.store ? indexInputs(sha256, ports.existingStore ?? ports.store) : null;
  // The perceptual hash serves only that look-up: not computed when there is no store to search
  // (for a photo over 4096 pixels on a side, the decode then reads only the analysed region: a
  // 24 MP JPEG's decode is ~15 % shorter, and no 24 MB plane is resized). A store created by
  // another process meanwhile is still searched, for the identical file only.
  const hashWanted = lookup !== null && !(ports.storeAbsent?.() ?? false);
  const analysis =
    type.kind === 'image'
      ? await analyzeImage(input.bytes, {
          checkDeepfakes: req.check_deepfakes,
          checkWatermarks: req.check_watermarks,
          ports,
          signal: opts.signal,
          ...(lookup ? { whileDecoding: () => void lookup() } : {}),
          perceptualHash: hashWanted,
        })
      : await analyzeVideo(input.bytes, type.mime, type.format, req, ports, opts.signal);

  const warnings = [...analysis.warnings];
  let matches: MediaIndexMatch[] = [];
  const evidence: AnalysisEvidence[] = [...analysis.evidence];
  if (req.check_provenance) {
    if (lookup) {
      try {
        const { sha, store } = await lookup();
        matches = store ? findInMediaIndex(store, sha, analysis.perceptualHash) : [];
      } catch (err) {
        if (err instanceof VerityError) throw err;
        warnings.push(`Known-media index not searched: ${err instanceof Error ? err.message : String(err)}`);
      }
    } else warnings.push('Known-media index not available: provenance comes from C2PA only');
    evidence.push({
      source: 'provenance.media_index',
      finding: matches.length
        ? `Known media: ${matches.map((x) => `${x.exact ? 'identical file' : `near-duplicate (pHash distance ${x.distance}/64)`} seen at ${x.url} (${x.source}) on ${x.first_seen.slice(0, 10)}`).join('; ')}`
        : 'No identical or near-duplicate file in the local known-media index (the web is not searched offline)',
      authority_score: matches.length ? 0.7 : 0.3,
    });
  }
  if (input.origin !== 'upload')
    evidence.push({ source: 'input', finding: `Downloaded from ${input.origin}`, authority_score: 0.2 });

  const j = judge(analysis, matches, req.check_provenance && !!ports.store);
  if (analysis.incomplete)
    warnings.unshift(
      j.boundByC2pa
        ? `Not checked: ${analysis.incomplete}; a valid C2PA hard binding covers these bytes, so trust is capped at ${CODEC_MISSING_TRUST_CAP} and the verdict at likely_authentic`
        : `Not checked: ${analysis.incomplete}; trust is capped at ${INCOMPLETE_TRUST_CAP} and the verdict at suspicious`,
    );
  // A deepfake probability with no pixels or declaration behind it is the base rate, not a reading.
  const declared = analysis.signals.some((x) => x.kind === 'synthetic' && x.probability > 0);
  const deepfakeUnread = req.check_deepfakes && analysis.pixels === 'none' && !declared;
  evidence.unshift({
    source: 'verdict',
    finding: `${j.authenticity}: ${j.reason}${standsOut(analysis.video)}; manipulation probability ${analysis.manipulationScore}, deepfake probability ${deepfakeUnread ? 'not measured (pixels not analysed)' : analysis.deepfakeScore}`,
    // How sure the verdict is: the strongest confidence among the signals that fired.
    authority_score: round3(Math.max(0.3, ...analysis.signals.filter((s) => s.probability > 0).map((s) => s.confidence))),
  });
  const provenance = req.check_provenance ? buildProvenance(matches, analysis.watermark) : [];
  const result: Computed<MediaResult> = {
    trust_score: j.trust,
    dimensions: j.dimensions,
    dimension_producers: j.producers,
    authenticity: j.authenticity,
    // With check_deepfakes off only the base rate remains: the score is reported, not measured (warning).
    deepfake_score: analysis.deepfakeScore,
    provenance,
    provenance_source: provenance[0]?.source ?? null,
    watermark: analysis.watermark,
    metadata: analysis.metadata,
    evidence,
  };
  if (analysis.forensics) result.forensics = analysis.forensics;
  result.file = fileDigest(input.bytes, sha256());
  if (analysis.video) result.video = analysis.video;
  if (!req.check_deepfakes) warnings.push('Deepfake detection was switched off (check_deepfakes: false): deepfake_score is not measured');
  // Numbers with nothing behind them: SPEC's value stays, and the warnings say so (api/not-measured.ts).
  if (!req.check_deepfakes) warnings.push(notMeasuredWarning('deepfake_score', 'deepfake detection switched off', result.deepfake_score));
  else if (deepfakeUnread)
    warnings.push(notMeasuredWarning('deepfake_score', type.kind === 'video' ? 'no video decoder: pixels not analysed' : 'pixels not analysed', result.deepfake_score));
  if (j.producers.recency === 'no dated metadata (default)') warnings.push(notMeasuredWarning('recency', 'no dated metadata', j.dimensions.recency));
  if (j.producers.cross_reference === 'not searched (default)') warnings.push(notMeasuredWarning('cross_reference', 'the known-media index was not searched', j.dimensions.cross_reference));
  if (warnings.length) result.warnings = warnings;
  return result;
}
