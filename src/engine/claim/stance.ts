/**
 * The local stance model: does a passage support the claim, refute it, or neither?
 *
 * Interpretable features (negation, refuting and supporting cue words, antonyms, numeric and date
 * agreement or mismatch, entity overlap, hedging, "nothing was found") feed a three-class
 * multinomial logistic model. Its weights are in stance-weights.ts, fitted by
 * `node scripts/eval-claims.mjs --fit` on the AVeriTeC dev claims (provenance recorded there).
 * A fact-checker's rating, when the item has one, decides the stance instead (ratingStance).
 */
import type { NormalizedRating } from '../../sources/claim-types.js';
import { STANCE_MODEL } from './stance-weights.js';
import { entities, numbers, sameNumber, stem, STOPWORDS, terms, words, years } from './text.js';

export const STANCES = ['supports', 'refutes', 'neutral'] as const;
export type StanceLabel = (typeof STANCES)[number];

export interface StanceProbs {
  supports: number;
  refutes: number;
  neutral: number;
}
export interface Stance extends StanceProbs {
  label: StanceLabel;
  /** Probability of the label. */
  confidence: number;
  /** Which cues fired, for the evidence chain and debugging. */
  reasons: string[];
  /** The local model's features (only when the local model judged the item); the verdict model reads them. */
  features?: FeatureVector;
}

export const FEATURES = [
  'bias',
  'relevance',
  'negation_mismatch',
  'refute_cues',
  'support_cues',
  'leading_yes',
  'leading_no',
  'number_match',
  'number_mismatch',
  'year_match',
  'year_mismatch',
  'antonym',
  'entity_overlap',
  'hedging',
  'not_found',
  // Added in the second model (see docs/claim.md, "Stance model v2").
  'negated_claim_term',
  'contrast',
  'no_evidence',
  'debunk_context',
  'yes_relevant',
  'no_relevant',
] as const;
export type FeatureName = (typeof FEATURES)[number];

const NEGATIONS = new Set([
  'not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', "can't", "don't", "doesn't", "didn't",
  "isn't", "wasn't", "aren't", "weren't", "won't", "wouldn't", "hasn't", "haven't", "hadn't", 'without', 'denied', 'denies',
]);
const REFUTE_CUES = [
  /\bfalse(ly)?\b/, /\bfake\b/, /\bhoax/, /\bdebunk/, /\bmislead/, /\bfabricat/, /\bsatir/, /\bparody\b/, /\bincorrect/,
  /\binaccura/, /\bwrong(ly)?\b/, /\buntrue\b/, /\bbaseless\b/, /\bunfounded\b/, /\bmyth\b/, /\bdoctored\b/, /\baltered\b/,
  /\bphotoshop/, /\bmisattribut/, /\bconspiracy\b/, /\brumou?rs?\b/, /\bno evidence\b/, /\bnot true\b/, /\brefut/,
  /\bden(y|ied|ies)\b/, /\bmisrepresent/, /\bexaggerat/, /\bout of context\b/, /\bmanipulated\b/, /\bscam\b/,
  /\bimaginary\b/, /\bfictional\b/, /\bnever\b/, /\bcontrary\b/, /\bdid not\b|\bdidn't\b/, /\bno record\b/,
];
const SUPPORT_CUES = [
  /\bconfirm/, /\btrue\b/, /\bcorrect\b/, /\baccurate\b/, /\bindeed\b/, /\bverified\b/, /\bofficial(ly)?\b/, /\bannounc/,
  /\bapproved\b/, /\bsigned\b/, /\bpassed\b/, /\bdid\b/, /\bwas\b.*\b(elected|appointed|awarded|arrested|charged|convicted)\b/,
  /\bstud(y|ies) (show|found)/, /\bdata (show|indicate)/, /\brecord(ed|s) show/,
];
const HEDGES = [
  /\bmay\b/, /\bmight\b/, /\bcould\b/, /\bpossibl/, /\bperhaps\b/, /\breportedly\b/, /\balleged/, /\bunclear\b/,
  /\bunconfirmed\b/, /\bsuggest/, /\blikely\b/, /\bunlikely\b/, /\bappears?\b/, /\bseems?\b/, /\bpartly\b/, /\bpartially\b/,
];
/** "However", "in fact": the passage sets something against what came before (often the claim). */
const CONTRAST = [
  /\bhowever\b/, /\bbut\b/, /\balthough\b/, /\bactually\b/, /\bin fact\b/, /\binstead\b/, /\brather than\b/, /\bdespite\b/,
  /\bwhereas\b/, /\bonly\b/, /\bnot\b.{1,40}\bbut\b/,
];
/** Absence of support stated outright: weaker than a refutation, stronger than silence. */
const NO_EVIDENCE = [
  /\bno (evidence|proof|record|indication|data|sign|credible)\b/, /\bthere (is|was|are|were) no\b/, /\bunsupported\b/,
  /\bnot supported\b/, /\bnothing (to )?(suggest|indicate|show)/, /\bno such\b/, /\bnot (been )?(proven|established)\b/,
];
/**
 * How fact-checks talk about the thing they debunk: a post that went viral, an image that
 * circulated, a site that publishes satire. Passages that discuss a claim's spread rather than its
 * substance are, in fact-checked material, mostly rebuttals.
 */
const DEBUNK_CONTEXT = [
  /\bviral\b/, /\bsocial media\b/, /\b(facebook|whatsapp|twitter|instagram|tiktok)\b/, /\bcirculat/, /\bmisinformation\b/,
  /\bdisinformation\b/, /\bfact.?check/, /\bthe (post|meme|image|photo|video|picture|screenshot)\b/, /\bfirst (published|posted|appeared|shared)\b/,
  /\b(joke|humou?r|comedy)\b/, /\bclickbait\b/,
];
const NOT_FOUND = [
  /no answer could be found/, /could not (be )?f(i|ou)nd/, /\bno information\b/, /\bunable to (find|locate|verify)\b/,
  /\bno (such )?reports?\b/, /\bnot found\b/, /\bno mention\b/, /\bno results?\b/,
];
/** Opposites: if the claim says one and the passage the other (and not the first), that is a cue. */
const ANTONYMS: ReadonlyArray<readonly [string, string]> = [
  ['increase', 'decrease'], ['rise', 'fall'], ['rose', 'fell'], ['higher', 'lower'], ['more', 'less'], ['more', 'fewer'],
  ['gain', 'loss'], ['won', 'lost'], ['win', 'lose'], ['alive', 'dead'], ['legal', 'illegal'], ['true', 'false'],
  ['allow', 'ban'], ['allowed', 'banned'], ['approve', 'reject'], ['approved', 'rejected'], ['support', 'oppose'],
  ['largest', 'smallest'], ['highest', 'lowest'], ['maximum', 'minimum'], ['above', 'below'], ['majority', 'minority'],
  ['safe', 'dangerous'], ['effective', 'ineffective'], ['guilty', 'innocent'], ['open', 'closed'], ['start', 'end'],
  ['first', 'last'], ['before', 'after'], ['accept', 'refuse'], ['increased', 'decreased'], ['cut', 'raised'],
  ['positive', 'negative'], ['cheaper', 'expensive'], ['real', 'fake'], ['genuine', 'fake'], ['private', 'public'],
];

/** Tokens after a negator that it governs ("did not *sign*", "no *vaccine*"): a small fixed window. */
const NEGATION_SCOPE = 4;
const NEGATORS = new Set([...NEGATIONS, 'no', 'false', 'neither', 'nor']);

/**
 * How many of the claim's content terms the passage negates (a negator within NEGATION_SCOPE
 * tokens before the term) while the claim itself states them positively. Catches "Fauci is not a
 * registered Democrat" against "Fauci is a Democrat" where a whole-sentence negation flag only
 * says that both texts differ somewhere.
 */
function negatedClaimTerms(claimWords: readonly string[], passageWords: readonly string[]): number {
  const claimStems = new Set(claimWords.filter((w) => w.length > 2 && !STOPWORDS.has(w) && !NEGATORS.has(w)).map(stem));
  const claimNegated = new Set<string>();
  claimWords.forEach((w, i) => {
    if (NEGATORS.has(w) || w.endsWith("n't")) for (const v of claimWords.slice(i + 1, i + 1 + NEGATION_SCOPE)) claimNegated.add(stem(v));
  });
  const hit = new Set<string>();
  passageWords.forEach((w, i) => {
    if (!(NEGATORS.has(w) || w.endsWith("n't"))) return;
    for (const v of passageWords.slice(i + 1, i + 1 + NEGATION_SCOPE)) {
      const sv = stem(v);
      if (claimStems.has(sv) && !claimNegated.has(sv)) hit.add(sv);
    }
  });
  return hit.size;
}

const countCues = (text: string, cues: readonly RegExp[]): number => cues.reduce((n, re) => n + (re.test(text) ? 1 : 0), 0);
const hasNegation = (ws: readonly string[]): boolean => ws.some((w) => NEGATIONS.has(w) || w.endsWith("n't"));

export type FeatureVector = Record<FeatureName, number>;

/** Features of (claim, passage); `relevance` comes from passage selection. */
export function stanceFeatures(claim: string, passage: string, relevance: number): { x: FeatureVector; reasons: string[] } {
  const reasons: string[] = [];
  const c = claim.toLowerCase();
  const p = passage.toLowerCase();
  const cw = words(c);
  const pw = words(p);
  const x = Object.fromEntries(FEATURES.map((f) => [f, 0])) as FeatureVector;
  x.bias = 1;
  x.relevance = Math.min(1, Math.max(0, relevance));

  if (hasNegation(cw) !== hasNegation(pw)) {
    x.negation_mismatch = 1;
    reasons.push('negation differs');
  }
  // Cues already present in the claim itself ("X falsely claimed …") say nothing about the passage.
  const refute = REFUTE_CUES.filter((re) => re.test(p) && !re.test(c)).length;
  const support = SUPPORT_CUES.filter((re) => re.test(p) && !re.test(c)).length;
  x.refute_cues = Math.min(refute, 3) / 3;
  x.support_cues = Math.min(support, 3) / 3;
  if (refute) reasons.push(`${refute} refuting cue${refute > 1 ? 's' : ''}`);
  if (support) reasons.push(`${support} supporting cue${support > 1 ? 's' : ''}`);

  // A sentence that answers with "Yes"/"No" (answers to a question derived from the claim).
  // "No answer could be found" / "no information" is silence, not a "No".
  const lead = p.match(/(?:^|[?:]\s*)(yes|no)\b(?!\s+(answer|information|results?|data)\b)/);
  if (lead?.[1] === 'yes') x.leading_yes = 1;
  if (lead?.[1] === 'no') x.leading_no = 1;
  // A yes/no counts for as much as the question it answers matches the claim: "Is X a Democrat? No"
  // decides the claim, "Have there been other trials? Yes" does not.
  x.yes_relevant = x.leading_yes * x.relevance;
  x.no_relevant = x.leading_no * x.relevance;

  const cn = numbers(claim);
  const pn = numbers(passage);
  if (cn.length && pn.length) {
    if (cn.some((a) => pn.some((b) => sameNumber(a, b)))) {
      x.number_match = 1;
      reasons.push('numbers agree');
    } else {
      x.number_mismatch = 1;
      reasons.push('numbers differ');
    }
  }
  const cy = years(claim);
  const py = years(passage);
  if (cy.length && py.length) {
    if (cy.some((y) => py.includes(y))) x.year_match = 1;
    else {
      x.year_mismatch = 1;
      reasons.push('dates differ');
    }
  }

  const cStems = new Set(cw.map(stem));
  const pStems = new Set(pw.map(stem));
  for (const [a, b] of ANTONYMS) {
    const sa = stem(a);
    const sb = stem(b);
    if ((cStems.has(sa) && pStems.has(sb) && !pStems.has(sa)) || (cStems.has(sb) && pStems.has(sa) && !pStems.has(sb))) {
      x.antonym = 1;
      reasons.push(`antonym ${a}/${b}`);
      break;
    }
  }

  const ents = entities(claim).map((e) => e.toLowerCase());
  if (ents.length) x.entity_overlap = ents.filter((e) => p.includes(e)).length / ents.length;
  else {
    const ct = new Set(terms(claim));
    const pt = new Set(terms(passage));
    x.entity_overlap = ct.size ? [...ct].filter((t) => pt.has(t)).length / ct.size : 0;
  }

  const negated = negatedClaimTerms(cw, pw);
  if (negated) {
    x.negated_claim_term = Math.min(negated, 2) / 2;
    reasons.push(`negates ${negated} claim term${negated > 1 ? 's' : ''}`);
  }
  x.contrast = Math.min(countCues(p, CONTRAST.filter((re) => !re.test(c))), 2) / 2;
  if (NO_EVIDENCE.some((re) => re.test(p) && !re.test(c))) {
    x.no_evidence = 1;
    reasons.push('no evidence stated');
  }
  const debunk = DEBUNK_CONTEXT.filter((re) => re.test(p) && !re.test(c)).length;
  x.debunk_context = Math.min(debunk, 2) / 2;
  if (debunk) reasons.push('discusses the claim\'s spread');

  x.hedging = Math.min(countCues(p, HEDGES), 3) / 3;
  if (countCues(p, NOT_FOUND)) {
    x.not_found = 1;
    reasons.push('nothing found');
  }
  return { x, reasons };
}

function softmax(zs: number[]): number[] {
  const m = Math.max(...zs);
  const es = zs.map((z) => Math.exp(z - m));
  const s = es.reduce((a, b) => a + b, 0);
  return es.map((e) => e / s);
}

export interface StanceModel {
  features: readonly string[];
  classes: readonly StanceLabel[];
  /** weights[class][feature] */
  weights: readonly (readonly number[])[];
}

export function predictStance(x: FeatureVector, model: StanceModel = STANCE_MODEL): StanceProbs {
  const vec = model.features.map((f) => x[f as FeatureName] ?? 0);
  const zs = model.weights.map((w) => w.reduce((a, wi, i) => a + wi * vec[i]!, 0));
  const ps = softmax(zs);
  const out: StanceProbs = { supports: 0, refutes: 0, neutral: 0 };
  model.classes.forEach((c, i) => (out[c] = ps[i]!));
  return out;
}

const labelOf = (p: StanceProbs): StanceLabel =>
  p.supports >= p.refutes && p.supports >= p.neutral ? 'supports' : p.refutes >= p.neutral ? 'refutes' : 'neutral';

export function localStance(claim: string, passage: string, relevance: number, model: StanceModel = STANCE_MODEL): Stance {
  const { x, reasons } = stanceFeatures(claim, passage, relevance);
  const p = predictStance(x, model);
  const label = labelOf(p);
  return { ...p, label, confidence: p[label], reasons, features: x };
}

/**
 * Stance from a fact-checker's rating. The rating judges the claim as the fact-checker worded it;
 * when exactly one of the two wordings is negated, the rating is read the other way round.
 */
export function ratingStance(claim: string, reviewedClaim: string, rating: NormalizedRating): Stance {
  let { stance } = rating;
  const flipped = hasNegation(words(claim.toLowerCase())) !== hasNegation(words(reviewedClaim.toLowerCase()));
  if (flipped && stance === 'supports') stance = 'refutes';
  else if (flipped && stance === 'refutes') stance = 'supports';
  const s = rating.strength;
  let p: StanceProbs;
  if (stance === 'supports') p = { supports: 0.5 + 0.5 * s, refutes: 0, neutral: 0.5 - 0.5 * s };
  else if (stance === 'refutes') p = { supports: 0, refutes: 0.5 + 0.5 * s, neutral: 0.5 - 0.5 * s };
  else if (stance === 'mixed') p = { supports: 0.4, refutes: 0.4, neutral: 0.2 };
  else p = { supports: 0, refutes: 0, neutral: 1 };
  const label = labelOf(p);
  return { ...p, label, confidence: p[label], reasons: [`rated "${rating.text}"${flipped ? ' (negated wording)' : ''}`] };
}
