/**
 * How the analyzers' signals become scores (documented in docs/media.md):
 *
 * - manipulationScore = noisy-OR over independent evidence of the `manipulation` signals'
 *   probabilities, and 0.97 when the C2PA hard binding or claim signature does not match (the
 *   pixels or manifest changed after signing). Signals of one `group` (e.g. `reencoding`: libjpeg
 *   tables, a later ModifyDate and an editor's Software tag all come from one re-save) are
 *   correlated, so a group contributes only its strongest member; noisy-OR then combines groups
 *   and ungrouped signals. Independent weak signals add up; correlated ones do not.
 * - deepfakeScore = noisy-OR of the `synthetic` signals, over a 0.03 base rate. A declared
 *   generator (metadata or C2PA digitalSourceType) is strong (0.85–0.97); the spectral check is
 *   weak (≤ 0.4).
 * - `capture` signals do not lower these probabilities (metadata is forgeable); they raise trust in
 *   verify.ts when nothing else fired.
 * - flags: a signal's flag is raised when its probability ≥ 0.3 (metadata_stripped at any level).
 */
import type { AnalysisEvidence, Watermark } from '../../api/results.js';
import { noisyOr, round3 } from '../scoring.js';
/** A finding about an image, shared by the analysis (analyze-image.ts) and this scoring. */
export type ImageFlag = 'image_manipulated' | 'deepfake' | 'metadata_stripped' | 'inconsistent_timestamps';
import type { Signal } from './forensics/types.js';
import { plainSummary, watermarkSummary } from './plain-summary.js';

/** Failure codes that mean content or manifest changed after signing (C2PA 2.x §15 validation). */
const TAMPER_CODES = /^(assertion\.[A-Za-z]+Hash\.mismatch|assertion\.hashedURI\.mismatch|claimSignature\.mismatch|assertion\.(dataHash|bmffHash|boxesHash|collectionHash)\.(mismatch|malformed)|assertion\.missing|claim\.missing)$/;

export const DEEPFAKE_BASE_RATE = 0.03;

export interface C2paVerdict {
  tampered: boolean;
  failures: string[];
}

export function c2paVerdict(w: Watermark | null): C2paVerdict {
  if (!w) return { tampered: false, failures: [] };
  const failures = w.status.filter((s) => s.kind === 'failure').map((s) => s.code);
  return { tampered: w.validation_state === 'invalid' && failures.some((c) => TAMPER_CODES.test(c)), failures };
}

export function watermarkEvidence(w: Watermark | null): AnalysisEvidence {
  return { ...technicalWatermarkEvidence(w), summary: watermarkSummary(w, c2paVerdict(w).tampered) };
}

function technicalWatermarkEvidence(w: Watermark | null): AnalysisEvidence {
  if (!w)
    return { source: 'c2pa', finding: 'No C2PA manifest (Content Credentials) in the file', authority_score: 0.5 };
  const v = c2paVerdict(w);
  const who = w.signer ? `signed by ${w.signer}${w.signed_at ? ` at ${w.signed_at}` : ''}` : 'signer unknown';
  const gen = w.claim_generator ? `, made with ${w.claim_generator}` : '';
  const acts = w.actions.length ? `; actions: ${[...new Set(w.actions.map((a) => a.action))].join(', ')}` : '';
  switch (w.validation_state) {
    case 'trusted':
      return { source: 'c2pa', finding: `Valid C2PA manifest ${who}${gen}; the signer chains to a configured trust anchor${acts}`, authority_score: 0.95 };
    case 'valid':
      return { source: 'c2pa', finding: `Cryptographically valid C2PA manifest ${who}${gen}; the signer is not in the configured trust list (unknown signer)${acts}`, authority_score: 0.8 };
    case 'invalid':
      return {
        source: 'c2pa',
        finding: v.tampered
          ? `C2PA validation failed (${v.failures.join(', ')}): the content or manifest was changed after signing`
          : `C2PA manifest invalid (${v.failures.join(', ') || 'failure'}) ${who}${credentialOnlyNote(w)}`,
        authority_score: 0.95,
      };
    case 'unreadable':
      return {
        source: 'c2pa',
        finding: `C2PA manifest present but not verifiable here: ${w.status.map((s) => s.explanation ?? s.code).join('; ')}${w.remote_manifest_url ? ` (${w.remote_manifest_url})` : ''}`,
        authority_score: 0.6,
      };
  }
}

/**
 * When only the signing credential fails (expired, revoked, untrusted) and the claim signature
 * verifies, say so: the c2patool reports beside the c2pa-org public test files (an older build)
 * read at least one such file (a Nikon camera's) as `claimSignature.mismatch`; current c2pa-rs
 * verifies the signature and reports the credential (docs/media.md "c2patool differences").
 */
function credentialOnlyNote(w: Watermark): string {
  const failures = w.status.filter((s) => s.kind === 'failure').map((s) => s.code);
  if (!failures.length || !failures.every((c) => c.startsWith('signingCredential.'))) return '';
  if (!w.status.some((s) => s.kind === 'success' && s.code === 'claimSignature.validated')) return '';
  const expired = failures.includes('signingCredential.expired');
  return `: the claim signature itself verifies; the signing certificate is the problem${expired ? ' (expired, and no trusted time-stamp shows the manifest was signed while it was valid)' : ''}, not the content (older c2patool builds reported claimSignature.mismatch for such a file; current c2pa-rs, following the C2PA 2.x rules, verifies the signature)`;
}

export interface ImageScores {
  manipulationScore: number;
  deepfakeScore: number;
  flags: ImageFlag[];
  evidence: AnalysisEvidence[];
}

/** One probability per independent piece of evidence: the strongest of each group, every ungrouped signal. */
export function independentProbabilities(signals: Signal[]): number[] {
  const grouped = new Map<string, number>();
  const out: number[] = [];
  for (const s of signals) {
    if (!s.group) out.push(s.probability);
    else grouped.set(s.group, Math.max(grouped.get(s.group) ?? 0, s.probability));
  }
  return [...out, ...grouped.values()];
}

export function combineImageScores(signals: Signal[], watermark: Watermark | null): ImageScores {
  const v = c2paVerdict(watermark);
  const manipulation = noisyOr([...independentProbabilities(signals.filter((s) => s.kind === 'manipulation')), v.tampered ? 0.97 : 0]);
  const deepfake = noisyOr([DEEPFAKE_BASE_RATE, ...independentProbabilities(signals.filter((s) => s.kind === 'synthetic'))]);
  const flags = new Set<ImageFlag>();
  for (const s of signals) if (s.flag && (s.probability >= 0.3 || s.flag === 'metadata_stripped')) flags.add(s.flag);
  if (v.tampered) flags.add('image_manipulated');
  if (deepfake >= 0.5) flags.add('deepfake');
  const evidence: AnalysisEvidence[] = [watermarkEvidence(watermark)];
  // Fired signals first, strongest first; then the analyzers that looked and found nothing.
  const ordered = [...signals].sort((a, b) => b.probability * b.confidence - a.probability * a.confidence);
  for (const s of ordered) {
    const summary = plainSummary(s);
    evidence.push({ source: s.analyzer, finding: s.finding, authority_score: round3(s.confidence), ...(summary ? { summary } : {}), ...(s.region ? { region: s.region } : {}) });
  }
  return { manipulationScore: round3(manipulation), deepfakeScore: round3(deepfake), flags: [...flags], evidence };
}
