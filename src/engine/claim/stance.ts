/**
 * Stance: does a passage support the claim, refute it, or neither?
 *
 * Three producers, in order of preference per item: a fact-checker's own rating (ratingStance),
 * an NLI classifier when one is plugged in (EnginePorts.nli, see nli-stance.ts), else the local
 * stance model here: interpretable cues feeding a three-class logistic model whose weights are in
 * claim-weights.ts (fitted across three domains by scripts/eval-claims.mjs --fit).
 *
 * The cues read what the passage says about the claim's own terms, in the passage's own words:
 * reported speech and quotations are left out of every cue but relevance (signals.ts `ownText`),
 * unless the claim itself is about what someone said.
 * - entity substitution: the claim's frame with another name, place or year in one slot refutes
 *   (signals.ts `entitySwap`; a rule of stated strength, ENTITY_SWAP_REFUTES);
 * - negation counts only when it scopes (same clause, within NEGATION_SCOPE words) a claim term
 *   the passage also states, and only when the claim states that term the other way round;
 * - numbers conflict only when they measure the same thing: the same unit (or counted noun) and
 *   the same subject, a claim word near both numbers (signals.ts `quantityConflict`);
 *   years only when the clause holding the year speaks of the claim's terms;
 * - refuting/supporting cue words ("false", "hoax", "confirmed") count only in fact-check
 *   discourse (a fact-check source, or a passage that talks about claims, posts and ratings):
 *   "false positive" in an abstract is not a verdict.
 * The cue lists are English; for other languages the local model has nothing but term overlap to
 * read, so verify.ts does not let it decide (see `localStanceReads`).
 */
import type { NormalizedRating } from '../../sources/claim-types.js';
import { STANCE_MODEL } from './claim-weights.js';
import { entitySwap, ownText, quantityConflict, reportedShare } from './signals.js';
import { ENGLISH, entities, terms, words, years, type Lang } from './text.js';

/**
 * The local model reads at most this much of a claim and of a passage (code units): its cost is
 * linear in the text, and no sentence this long states one thing. The caller says so in a warning.
 */
export const STANCE_MAX_CHARS = 2000;
/** The text as the local model reads it: cut at STANCE_MAX_CHARS. */
export const boundForStance = (s: string): string => (s.length > STANCE_MAX_CHARS ? s.slice(0, STANCE_MAX_CHARS) : s);

import { STANCES, type StanceLabel, type StanceModel } from './stance-model.js';
export { STANCES, type StanceLabel, type StanceModel };

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
  /** The local model's features (only when the local model judged the item). */
  features?: FeatureVector;
  /**
   * How relevant the passage is once a swapped slot is read as filled (entity substitution): the
   * passage states the claim's whole frame, so the term it replaces does not make it less
   * relevant. Aggregation weighs the passage by this when present.
   */
  relevance?: number;
}

export const FEATURES = [
  'bias',
  'relevance',
  'full_coverage',
  'negated_claim_term',
  'negation_contradicted',
  'negation_agrees',
  'quantity_match',
  'quantity_mismatch',
  'year_match',
  'year_mismatch',
  'antonym',
  'entity_missing',
  'refute_cues',
  'support_cues',
  'yes_relevant',
  'no_relevant',
  'not_found',
  'hedging',
  'entity_swap',
  'reported',
] as const;
export type FeatureName = (typeof FEATURES)[number];
export type FeatureVector = Record<FeatureName, number>;

const NEGATORS = new Set([
  'not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', 'without', 'denied', 'denies', 'deny', 'false',
]);
const isNegator = (w: string): boolean => NEGATORS.has(w) || /n['’]t$/.test(w);
/** Words after a negator that it governs, within the same clause. */
const NEGATION_SCOPE = 5;
/** Clause boundaries: punctuation and the conjunctions that turn to a new statement. */
const CLAUSE_SPLIT = /[;:,.!?()\[\]—–]|\b(?:but|however|whereas|although|though|while|yet|instead)\b/i;

/** Fact-check discourse: the passage talks about a claim, a post, a rating. */
const FACT_CHECK_DISCOURSE =
  /\b(fact.?check\w*|claims?|claimed|viral|posts?|posted|shared|circulat\w+|rumou?rs?|hoax\w*|debunk\w*|misleading|misinformation|rated|rating|social media|facebook|whatsapp|twitter|tiktok|meme)\b/;
const REFUTE_CUES = [
  /\bfalse(ly)?\b/, /\bfake\b/, /\bhoax/, /\bdebunk/, /\bmislead/, /\bfabricat/, /\bsatir/, /\bincorrect/, /\binaccura/,
  /\buntrue\b/, /\bbaseless\b/, /\bunfounded\b/, /\bmyth\b/, /\bdoctored\b/, /\bmisattribut/, /\bno evidence\b/, /\bnot true\b/,
  /\brefut/, /\bmisrepresent/, /\bexaggerat/, /\bout of context\b/, /\bmanipulated\b/, /\bpants on fire\b/,
];
const SUPPORT_CUES = [/\bconfirm/, /\btrue\b/, /\bcorrect\b/, /\baccurate\b/, /\bverified\b/, /\bgenuine\b/, /\bauthentic\b/];
const HEDGES = [
  /\bmay\b/, /\bmight\b/, /\bcould\b/, /\bpossibl/, /\bperhaps\b/, /\breportedly\b/, /\balleged/, /\bunclear\b/,
  /\bunconfirmed\b/, /\bsuggest/, /\blikely\b/, /\bunlikely\b/,
];
const NOT_FOUND = [
  /no answer could be found/, /could not (be )?f(i|ou)nd/, /\bno information\b/, /\bunable to (find|locate|verify)\b/,
  /\bnot found\b/, /\bno mention\b/, /\bno results?\b/,
];
/** Opposites: the claim says one and the passage the other (and not the first). */
const ANTONYMS: ReadonlyArray<readonly [string, string]> = [
  ['increase', 'decrease'], ['rise', 'fall'], ['rose', 'fell'], ['higher', 'lower'], ['more', 'less'], ['more', 'fewer'],
  ['gain', 'loss'], ['won', 'lost'], ['win', 'lose'], ['alive', 'dead'], ['legal', 'illegal'], ['allowed', 'banned'],
  ['approved', 'rejected'], ['largest', 'smallest'], ['highest', 'lowest'], ['maximum', 'minimum'], ['majority', 'minority'],
  ['safe', 'dangerous'], ['effective', 'ineffective'], ['guilty', 'innocent'], ['first', 'last'], ['before', 'after'],
  ['increased', 'decreased'], ['positive', 'negative'], ['private', 'public'], ['male', 'female'], ['north', 'south'],
  ['east', 'west'], ['born', 'died'], ['older', 'younger'], ['early', 'late'], ['reduce', 'increase'], ['reduced', 'increased'],
];

interface Polarity {
  pos: Set<string>;
  neg: Set<string>;
}
/** Per stemmed term: stated positively somewhere, and/or inside a negation's scope somewhere. */
function polarity(text: string, lang: Lang): Polarity {
  const pos = new Set<string>();
  const neg = new Set<string>();
  for (const clause of text.toLowerCase().split(CLAUSE_SPLIT)) {
    if (!clause) continue;
    const ws = words(clause, lang.code);
    let scopeLeft = 0;
    for (const w of ws) {
      if (isNegator(w)) {
        scopeLeft = NEGATION_SCOPE;
        continue;
      }
      const t = terms(w, lang)[0];
      if (t !== undefined) (scopeLeft > 0 ? neg : pos).add(t);
      if (scopeLeft > 0) scopeLeft--;
    }
  }
  return { pos, neg };
}

export interface StanceContext {
  lang?: Lang;
  /** The item comes from a fact-check source: refute/support cue words are read as verdicts. */
  factCheck?: boolean;
}

/** Features of (claim, passage); `relevance` comes from passage ranking. */
export function stanceFeatures(
  claim0: string,
  passage0: string,
  relevance: number,
  ctx: StanceContext = {},
): { x: FeatureVector; reasons: string[]; relevance?: number } {
  const lang = ctx.lang ?? ENGLISH;
  const reasons: string[] = [];
  const claim = boundForStance(claim0);
  const whole = boundForStance(passage0);
  // What the passage itself says: reported speech and quotations do not lend it their stance.
  const own = ownText(whole, claim);
  const passage = own.text;
  const c = claim.toLowerCase();
  const p = passage.toLowerCase();
  const x = Object.fromEntries(FEATURES.map((f) => [f, 0])) as FeatureVector;
  x.bias = 1;
  x.relevance = Math.min(1, Math.max(0, relevance));
  x.full_coverage = relevance >= 0.999 ? 1 : 0;

  // Negation, term by term: only terms both texts state count.
  const cp = polarity(claim, lang);
  const pp = polarity(passage, lang);
  const claimTerms = new Set(terms(claim, lang));
  let negatedInPassage = 0;
  let contradicted = 0;
  let agrees = 0;
  for (const t of claimTerms) {
    const claimNeg = cp.neg.has(t) && !cp.pos.has(t);
    const pNeg = pp.neg.has(t);
    const pPos = pp.pos.has(t);
    if (!claimNeg && pNeg && !pPos) negatedInPassage++;
    else if (claimNeg && pPos && !pNeg) contradicted++;
    else if (claimNeg && pNeg) agrees++;
  }
  if (negatedInPassage) {
    x.negated_claim_term = Math.min(negatedInPassage, 2) / 2;
    reasons.push(`negates ${negatedInPassage} claim term${negatedInPassage > 1 ? 's' : ''}`);
  }
  if (contradicted) {
    x.negation_contradicted = Math.min(contradicted, 2) / 2;
    reasons.push('states what the claim denies');
  }
  if (agrees) {
    x.negation_agrees = 1;
    reasons.push('denies what the claim denies');
  }

  // Quantities: a conflict needs the same unit and the same subject on both sides.
  const q = quantityConflict(claim, passage, lang);
  if (q.match) {
    x.quantity_match = 1;
    reasons.push('numbers agree');
  } else if (q.conflict) {
    x.quantity_mismatch = 1;
    reasons.push(`numbers differ (${q.conflict}, same subject)`);
  }
  // Years: a different year conflicts only when its clause is about the claim's terms.
  const cy = years(claim);
  if (cy.length) {
    const clausesWithYear = p.split(CLAUSE_SPLIT).filter((cl) => years(cl).length);
    const onTopic = clausesWithYear.filter((cl) => terms(cl, lang).some((t) => claimTerms.has(t) && !/^\d{4}$/.test(t)));
    const py = onTopic.flatMap((cl) => years(cl));
    if (py.length) {
      if (cy.some((y) => py.includes(y))) x.year_match = 1;
      else if (x.relevance >= 0.4) {
        x.year_mismatch = 1;
        reasons.push('dates differ');
      }
    }
  }

  if (x.relevance >= 0.3) {
    const cw = new Set(words(c, lang.code));
    const pw = new Set(words(p, lang.code));
    for (const [a, b] of ANTONYMS) {
      if ((cw.has(a) && pw.has(b) && !pw.has(a)) || (cw.has(b) && pw.has(a) && !pw.has(b))) {
        x.antonym = 1;
        reasons.push(`antonym ${a}/${b}`);
        break;
      }
    }
  }

  // A passage on the claim's topic that does not name one of the claim's names (people, places,
  // works): the claim may have swapped one in.
  if (x.relevance >= 0.3) {
    const ents = entities(claim).map((e) => e.toLowerCase());
    const all = whole.toLowerCase();
    if (ents.length) {
      const missing = ents.filter((e) => !all.includes(e)).length;
      x.entity_missing = missing / ents.length;
      if (missing) reasons.push(`${missing} of the claim's names not in the passage`);
    }
  }

  // The claim's frame with another name, place or year in one slot.
  const swap = entitySwap(claim, passage, lang);
  let frameRelevance: number | undefined;
  if (swap) {
    x.entity_swap = 1;
    reasons.push(`states ${swap.stated} where the claim has ${swap.claimed}`);
    // The claim with the passage's filler in the slot: the share of its terms the passage states.
    const filled = [...new Set(terms(claim.split(swap.claimed).join(swap.stated), lang))];
    const pt = new Set(terms(passage, lang));
    if (filled.length) frameRelevance = Math.max(x.relevance, filled.filter((t) => pt.has(t)).length / filled.length);
  }
  // The passage meets the claim only inside what it reports others saying.
  x.reported = reportedShare(claim, whole, own, lang);
  if (x.reported >= 0.5) reasons.push('states the claim only as reported speech');

  // Verdict words only where a verdict is being given: fact-check discourse.
  if (ctx.factCheck || FACT_CHECK_DISCOURSE.test(whole.toLowerCase())) {
    const refute = REFUTE_CUES.filter((re) => re.test(p) && !re.test(c)).length;
    const support = SUPPORT_CUES.filter((re) => re.test(p) && !re.test(c)).length;
    x.refute_cues = Math.min(refute, 2) / 2;
    x.support_cues = Math.min(support, 2) / 2;
    if (refute) reasons.push(`${refute} refuting cue${refute > 1 ? 's' : ''} (fact-check wording)`);
    if (support) reasons.push(`${support} supporting cue${support > 1 ? 's' : ''} (fact-check wording)`);
  }

  // A question answered "Yes"/"No" decides the claim as much as the question matches it.
  const lead = p.match(/(?:^|[?:]\s*)(yes|no)\b(?!\s+(answer|information|results?|data|evidence)\b)/);
  if (lead?.[1] === 'yes') x.yes_relevant = x.relevance;
  if (lead?.[1] === 'no') x.no_relevant = x.relevance;

  if (NOT_FOUND.some((re) => re.test(p))) {
    x.not_found = 1;
    reasons.push('nothing found');
  }
  x.hedging = Math.min(HEDGES.filter((re) => re.test(p)).length, 2) / 2;
  return frameRelevance === undefined ? { x, reasons } : { x, reasons, relevance: frameRelevance };
}

function softmax(zs: number[]): number[] {
  const m = Math.max(...zs);
  const es = zs.map((z) => Math.exp(z - m));
  const s = es.reduce((a, b) => a + b, 0);
  return es.map((e) => e / s);
}


/**
 * Entity substitution as a rule (issue 34): a passage that states the claim's frame with another
 * name, place or year in one slot refutes with at least this probability, whatever the fitted
 * weights say (they see too few swaps to learn it: 24 gold passages over three domains). A stated
 * strength, near the rule's measured precision: of the gold evidence sentences where it fires, 20
 * of 24 (0.83) refute their claim (fool-me-twice 19 of 22, Check-COVID 1 of 1, AVeriTeC 0 of 1).
 * Read over all of a claim's passages it is weaker: fool-me-twice claims with a swap in any
 * passage are false 32 times in 50 (docs/claim.md); the verdict thresholds, fitted with the rule
 * in place, decide how far that counts.
 */
export const ENTITY_SWAP_REFUTES = 0.85;

export function predictStance(x: FeatureVector, model: StanceModel = STANCE_MODEL): StanceProbs {
  const vec = model.features.map((f) => x[f as FeatureName] ?? 0);
  const zs = model.weights.map((w) => w.reduce((a, wi, i) => a + wi * vec[i]!, 0));
  const ps = softmax(zs);
  const out: StanceProbs = { supports: 0, refutes: 0, neutral: 0 };
  model.classes.forEach((c, i) => (out[c] = ps[i]!));
  // The swap rule: the rest shared by supports and neutral in the model's proportion. Not where the
  // passage states the claim only as someone else's words.
  if (x.entity_swap > 0 && (x.reported ?? 0) < 0.5 && out.refutes < ENTITY_SWAP_REFUTES) {
    const rest = out.supports + out.neutral;
    const scale = rest > 0 ? (1 - ENTITY_SWAP_REFUTES) / rest : 0;
    return { supports: out.supports * scale, refutes: ENTITY_SWAP_REFUTES, neutral: rest > 0 ? out.neutral * scale : 1 - ENTITY_SWAP_REFUTES };
  }
  return out;
}

export const labelOf = (p: StanceProbs): StanceLabel =>
  p.supports >= p.refutes && p.supports >= p.neutral ? 'supports' : p.refutes >= p.neutral ? 'refutes' : 'neutral';

export function makeStance(p: StanceProbs, reasons: string[], features?: FeatureVector): Stance {
  const label = labelOf(p);
  return { ...p, label, confidence: p[label], reasons, ...(features ? { features } : {}) };
}

export function localStance(claim: string, passage: string, relevance: number, ctx: StanceContext = {}, model: StanceModel = STANCE_MODEL): Stance {
  const { x, reasons, relevance: frame } = stanceFeatures(claim, passage, relevance, ctx);
  const st = makeStance(predictStance(x, model), reasons, x);
  return frame === undefined ? st : { ...st, relevance: frame };
}

/** The local model reads English cue words only: in another language it would judge by overlap alone. */
export const localStanceReads = (lang: string): boolean => lang === 'en';

const claimNegated = (s: string): boolean => words(s).some(isNegator);

/**
 * Stance from a fact-checker's rating. The rating judges the claim as the fact-checker worded it;
 * when exactly one of the two wordings is negated, the rating is read the other way round.
 */
export function ratingStance(claim: string, reviewedClaim: string, rating: NormalizedRating): Stance {
  let { stance } = rating;
  const flipped = claimNegated(claim) !== claimNegated(reviewedClaim);
  if (flipped && stance === 'supports') stance = 'refutes';
  else if (flipped && stance === 'refutes') stance = 'supports';
  const s = rating.strength;
  let p: StanceProbs;
  if (stance === 'supports') p = { supports: 0.5 + 0.5 * s, refutes: 0, neutral: 0.5 - 0.5 * s };
  else if (stance === 'refutes') p = { supports: 0, refutes: 0.5 + 0.5 * s, neutral: 0.5 - 0.5 * s };
  else if (stance === 'mixed') p = { supports: 0.4, refutes: 0.4, neutral: 0.2 };
  else p = { supports: 0, refutes: 0, neutral: 1 };
  return makeStance(p, [`rated "${rating.text}"${flipped ? ' (negated wording)' : ''}`]);
}
