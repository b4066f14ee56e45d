/**
 * What each kind's trust score is, in words that match the number (issue 32 item 4), shared by
 * the human output and the HTML report:
 * - claims: the chance that the claim is TRUE (a confident `false` has a low score);
 * - companies: how far the registry record confirms a live company matching the name given, and
 *   why the score is below what its four dimensions give (status, disagreements, ambiguity);
 * - media and documents: how far the checks found the file to be what it appears to be.
 * Also the small facts both renderings word the same way: video or image, EXIF times as ISO.
 */
import type { BusinessResult, CompanyStatus, Verdict } from '../api/results.js';
import { AMBIGUITY_PENALTY, NUMBER_MISMATCH_PENALTY, STATUS_FACTOR, TRUST_WEIGHTS } from '../engine/business/trust-weights.js';

export const CLAIM_TRUST = 'Trust: the chance that the claim is true, from 0 to 1 (not the strength of the evidence).';

const pct = (x: number): string => `${Math.round(x * 100)} %`;

/** What this claim's number says, in words, for its verdict. */
export function claimTrustMeaning(verdict: Verdict, trust: number): string {
  switch (verdict) {
    case 'false':
      return `${CLAIM_TRUST} ${trust.toFixed(2)} means the claim is likely false: about a ${pct(1 - trust)} chance that it is false.`;
    case 'true':
      return `${CLAIM_TRUST} ${trust.toFixed(2)} means the claim is likely true.`;
    case 'conflicting':
      return `${CLAIM_TRUST} Strong sources disagree, so it stays near the middle.`;
    case 'unverifiable':
      return `${CLAIM_TRUST} The evidence does not lean far enough either way to call it.`;
  }
}

export const BUSINESS_TRUST =
  'Trust: how far the registry record confirms a live company matching the name you gave, from 0 to 1.';

const STATUS_WORDS: Record<CompanyStatus, string> = {
  active: 'active',
  inactive: 'not trading (inactive)',
  liquidation: 'in liquidation',
  dissolved: 'dissolved: the record confirms a company that no longer exists',
};

/**
 * Why a company's trust is below what its four dimensions give, or null when it is not: the
 * status factor first, then what the evidence says took the rest (docs/business.md formula).
 */
export function businessTrustWhy(r: Pick<BusinessResult, 'trust_score' | 'dimensions' | 'status' | 'evidence'>): string | null {
  const d = r.dimensions;
  const w = TRUST_WEIGHTS;
  const base = (d.source_authority * w.source_authority + d.cross_reference * w.cross_reference + d.recency * w.recency + d.llm_analysis * w.name_match) / (w.source_authority + w.cross_reference + w.recency + w.name_match);
  if (r.trust_score >= base - 0.005) return null;
  const factor = STATUS_FACTOR[r.status];
  const parts: string[] = [];
  // A score above base × factor was not made by this formula (the sandbox's are drawn from bands):
  // name the status as the reason without a factor that would not add up.
  if (factor < 1 && r.trust_score > base * factor + 0.005) return `Why ${r.trust_score.toFixed(2)}: the four numbers below give ${base.toFixed(2)}; the company is ${STATUS_WORDS[r.status]}, which lowers it.`;
  // A no-break space keeps "× 0.50" together when the line wraps.
  if (factor < 1) parts.push(`the company is ${STATUS_WORDS[r.status]} (×\u00a0${factor.toFixed(2)})`);
  const rest = base * factor - r.trust_score;
  if (rest > 0.005) {
    const text = r.evidence.map((e) => e.finding).join('\n');
    const why: string[] = [];
    if (/DISAGREES/.test(text)) why.push('the registries disagree on some facts (see the evidence)');
    if (/alternative match/.test(text)) why.push(`another company has a similar name (−\u00a0${AMBIGUITY_PENALTY.toFixed(2)})`);
    if (/is not this company's/.test(text)) why.push(`the registration number given is not this company's (−\u00a0${NUMBER_MISMATCH_PENALTY.toFixed(2)})`);
    parts.push(why.length ? why.join('; ') : `problems found in the evidence (−\u00a0${rest.toFixed(2)})`);
  }
  return `Why ${r.trust_score.toFixed(2)}: the four numbers below give ${base.toFixed(2)}; ${parts.join('; ')}.`;
}

export const MEDIA_TRUST = 'Trust: how far the checks found the file to be what it appears to be, from 0 to 1, made from the four numbers below.';

export const DOCUMENT_TRUST =
  'Trust: how far the checks found the document free of signs of tampering or machine generation, from 0 to 1, made from the four numbers below.';

/** Formats `metadata.format` names for video (detect-type.ts); everything else is an image. */
const VIDEO_FORMATS = new Set(['mp4', 'mov', '3gp', 'm4v', 'quicktime']);
export const isVideoFormat = (format: string): boolean => VIDEO_FORMATS.has(format.toLowerCase());

/**
 * An EXIF-style time (`2026:05:17 20:41:09`, optionally with an offset) as ISO 8601
 * (`2026-05-17T20:41:09`), as documents print theirs. Anything else is returned unchanged: the
 * JSON keeps the value as read.
 */
export function isoTime(s: string): string {
  const m = /^(\d{4}):(\d\d):(\d\d)[ T](\d\d:\d\d:\d\d(?:\.\d+)?)(Z|[+-]\d\d:?\d\d)?$/.exec(s.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}${m[5] ?? ''}` : s;
}

/** EXIF-style times inside a finding's text, as ISO 8601 (display only: the JSON keeps the text). */
export const isoTimesIn = (text: string): string => text.replace(/\b(\d{4}):(\d\d):(\d\d) (\d\d:\d\d:\d\d)\b/g, '$1-$2-$3T$4');
