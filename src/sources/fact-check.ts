/**
 * Google Fact Check Tools API, `claims:search` (v1alpha1): ClaimReview records published by
 * fact-checking organisations. Needs an API key (config `sources.google_fact_check.api_key`).
 * https://developers.google.com/fact-check/tools/api/reference/rest/v1alpha1/claims/search
 */
import type { EngineConfig } from './types.js';
import { isRecord, requestJson, SourceNotConfigured, str, type ClaimHit, type ClaimQuery, type NormalizedRating, type SearchContext } from './claim-types.js';

export const FACT_CHECK_BASE_URL = 'https://factchecktools.googleapis.com/v1alpha1/claims:search';

/**
 * textualRating → stance. Publishers write free text; these are the common forms (PolitiFact's
 * Truth-O-Meter, Snopes, Full Fact, AFP, and Spanish, Portuguese, French, German, Italian, Dutch
 * desks). Keys are lowercase with punctuation removed. Exact matches first, then the patterns.
 */
export const RATING_TABLE: Record<string, Omit<NormalizedRating, 'text'>> = {
  true: { stance: 'supports', strength: 1 },
  correct: { stance: 'supports', strength: 1 },
  accurate: { stance: 'supports', strength: 1 },
  'mostly true': { stance: 'supports', strength: 0.7 },
  'mostly correct': { stance: 'supports', strength: 0.7 },
  'half true': { stance: 'mixed', strength: 0.5 },
  'half truth': { stance: 'mixed', strength: 0.5 },
  mixture: { stance: 'mixed', strength: 0.5 },
  mixed: { stance: 'mixed', strength: 0.5 },
  'partly true': { stance: 'mixed', strength: 0.5 },
  'partly false': { stance: 'refutes', strength: 0.6 },
  'partially false': { stance: 'refutes', strength: 0.6 },
  'needs context': { stance: 'mixed', strength: 0.4 },
  'missing context': { stance: 'mixed', strength: 0.4 },
  'lacks context': { stance: 'mixed', strength: 0.4 },
  'cherry picks': { stance: 'mixed', strength: 0.4 },
  exaggerated: { stance: 'refutes', strength: 0.5 },
  misleading: { stance: 'refutes', strength: 0.6 },
  'mostly false': { stance: 'refutes', strength: 0.8 },
  false: { stance: 'refutes', strength: 1 },
  incorrect: { stance: 'refutes', strength: 1 },
  wrong: { stance: 'refutes', strength: 1 },
  'not true': { stance: 'refutes', strength: 1 },
  'pants on fire': { stance: 'refutes', strength: 1 },
  'four pinocchios': { stance: 'refutes', strength: 1 },
  fake: { stance: 'refutes', strength: 1 },
  hoax: { stance: 'refutes', strength: 1 },
  fabricated: { stance: 'refutes', strength: 1 },
  scam: { stance: 'refutes', strength: 1 },
  'altered photo': { stance: 'refutes', strength: 0.9 },
  'altered image': { stance: 'refutes', strength: 0.9 },
  'manipulated media': { stance: 'refutes', strength: 0.9 },
  'false context': { stance: 'refutes', strength: 0.7 },
  miscaptioned: { stance: 'refutes', strength: 0.8 },
  misattributed: { stance: 'refutes', strength: 0.8 },
  satire: { stance: 'refutes', strength: 0.7 },
  unproven: { stance: 'neutral', strength: 0 },
  unverified: { stance: 'neutral', strength: 0 },
  unsupported: { stance: 'refutes', strength: 0.5 },
  'no evidence': { stance: 'refutes', strength: 0.6 },
  // es / pt / it
  verdadero: { stance: 'supports', strength: 1 },
  verdadeiro: { stance: 'supports', strength: 1 },
  vero: { stance: 'supports', strength: 1 },
  cierto: { stance: 'supports', strength: 1 },
  falso: { stance: 'refutes', strength: 1 },
  falsa: { stance: 'refutes', strength: 1 },
  engañoso: { stance: 'refutes', strength: 0.6 },
  enganoso: { stance: 'refutes', strength: 0.6 },
  fuorviante: { stance: 'refutes', strength: 0.6 },
  'en gran parte falso': { stance: 'refutes', strength: 0.8 },
  'parcialmente falso': { stance: 'refutes', strength: 0.6 },
  'verdadero pero': { stance: 'mixed', strength: 0.5 },
  'sin evidencia': { stance: 'refutes', strength: 0.6 },
  // fr
  vrai: { stance: 'supports', strength: 1 },
  faux: { stance: 'refutes', strength: 1 },
  trompeur: { stance: 'refutes', strength: 0.6 },
  'plutôt faux': { stance: 'refutes', strength: 0.8 },
  'partiellement faux': { stance: 'refutes', strength: 0.6 },
  infondé: { stance: 'refutes', strength: 0.7 },
  // de
  richtig: { stance: 'supports', strength: 1 },
  wahr: { stance: 'supports', strength: 1 },
  falsch: { stance: 'refutes', strength: 1 },
  irreführend: { stance: 'refutes', strength: 0.6 },
  'größtenteils falsch': { stance: 'refutes', strength: 0.8 },
  'teilweise falsch': { stance: 'refutes', strength: 0.6 },
  // nl
  waar: { stance: 'supports', strength: 1 },
  onwaar: { stance: 'refutes', strength: 1 },
  misleidend: { stance: 'refutes', strength: 0.6 },
};

/** Fallback patterns for longer ratings ("False. The photo shows…", "Mostly False"). Order matters. */
const RATING_PATTERNS: ReadonlyArray<readonly [RegExp, Omit<NormalizedRating, 'text'>]> = [
  [/\bpants on fire\b|\bpinocchios?\b/, { stance: 'refutes', strength: 1 }],
  [/\bmostly (false|incorrect|inaccurate)\b|\ben gran parte falso\b|\bgrößtenteils falsch\b|\bplutôt faux\b/, { stance: 'refutes', strength: 0.8 }],
  [/\bmostly (true|correct|accurate)\b/, { stance: 'supports', strength: 0.7 }],
  [/\b(half|partly|partially) (true|false|correct)\b|\bmixture\b|\bmixed\b/, { stance: 'mixed', strength: 0.5 }],
  [/\b(missing|needs|lacks) context\b|\bcherry/, { stance: 'mixed', strength: 0.4 }],
  [/\bmisleading\b|\bengañoso\b|\benganoso\b|\btrompeur\b|\birreführend\b|\bfuorviante\b|\bmisleidend\b|\bexaggerat/, { stance: 'refutes', strength: 0.6 }],
  [/\bunproven\b|\bunverified\b|\bundetermined\b|\bunclear\b|\bnot yet known\b/, { stance: 'neutral', strength: 0 }],
  [/\bsatir/, { stance: 'refutes', strength: 0.7 }],
  [/\b(false|fake|hoax|fabricated|incorrect|inaccurate|untrue|wrong|baseless|falso|falsa|faux|falsch|onwaar|bogus|debunked|no evidence)\b|\bnot true\b/, { stance: 'refutes', strength: 1 }],
  [/\b(true|correct|accurate|verdadero|verdadeiro|vrai|richtig|wahr|vero|waar)\b/, { stance: 'supports', strength: 1 }],
];

export function normalizeRating(textualRating: string): NormalizedRating {
  const key = textualRating
    .toLowerCase()
    .normalize('NFC')
    .replace(/[!"#$%&'()*+,./:;<=>?@[\\\]^_`{|}~¡¿“”‘’«»–—-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const exact = RATING_TABLE[key];
  if (exact) return { text: textualRating, ...exact };
  for (const [re, v] of RATING_PATTERNS) if (re.test(key)) return { text: textualRating, ...v };
  return { text: textualRating, stance: 'neutral', strength: 0 };
}

interface Review {
  publisher?: { name?: string; site?: string };
  url?: string;
  title?: string;
  reviewDate?: string;
  textualRating?: string;
  languageCode?: string;
}
interface FactCheckResponse {
  claims?: Array<{ text?: string; claimant?: string; claimDate?: string; claimReview?: Review[] }>;
  nextPageToken?: string;
}

/** Google API errors: `{ "error": { "code": 400, "message": "...", "status": "INVALID_ARGUMENT" } }`. */
function googleError(body: unknown): string | undefined {
  if (!isRecord(body) || !isRecord(body.error)) return undefined;
  const e = body.error;
  return [str(e.status), str(e.message)].filter(Boolean).join(': ') || undefined;
}

export async function searchFactChecks(query: ClaimQuery, config: EngineConfig, ctx: SearchContext): Promise<ClaimHit[]> {
  const cfg = config.sources?.google_fact_check;
  if (!cfg?.api_key) {
    throw new SourceNotConfigured('google_fact_check', 'no API key configured (sources.google_fact_check.api_key)');
  }
  const u = new URL(cfg.base_url ?? FACT_CHECK_BASE_URL);
  // The API matches claim text best on a compact query; very long queries return nothing.
  u.searchParams.set('query', query.claim.length > 200 ? query.keywords : query.claim);
  u.searchParams.set('languageCode', query.language);
  u.searchParams.set('pageSize', String(Math.min(20, ctx.limit)));
  u.searchParams.set('key', cfg.api_key);
  const body = await requestJson<FactCheckResponse>(
    ctx.http,
    { url: u.toString(), timeoutMs: 8_000, retries: 2, cacheTtlMs: 6 * 3_600_000, signal: ctx.signal },
    googleError,
  );
  const hits: ClaimHit[] = [];
  for (const c of body.claims ?? []) {
    for (const r of c.claimReview ?? []) {
      const url = str(r.url);
      const rating = str(r.textualRating);
      if (!url || !rating) continue;
      const claimText = str(c.text) ?? '';
      const claimant = str(c.claimant);
      hits.push({
        source: 'google_fact_check',
        url,
        title: str(r.title) ?? claimText,
        // The reviewed claim, and the rating in the publisher's words, are the passage.
        text: `${claimText}${claimant ? ` (claimed by ${claimant})` : ''}. Rating: ${rating}.${r.title ? ` ${r.title}` : ''}`,
        published_at: str(r.reviewDate) ?? str(c.claimDate),
        publisher: str(r.publisher?.name) ?? str(r.publisher?.site),
        rating: normalizeRating(rating),
        reviewed_claim: claimText,
      });
    }
  }
  return hits.slice(0, ctx.limit);
}
