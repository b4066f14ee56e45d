/**
 * The lexical stance model as shipped before issue 34 (commit cc51945), kept as a named baseline
 * so that `scripts/eval-claims.mjs` measures it beside the current model in the same run: its
 * 18 features (the compiled src/engine/claim/stance.ts of that commit, unchanged but for the
 * imports) and the weights and verdict parameters claim-weights.ts held then. Not shipped; the
 * text helpers come from the current build (their behaviour is unchanged since).
 */
import { ENGLISH, entities, quantities, sameNumber, terms, words, years } from '../dist/engine/claim/text.js';

export const BASELINE_NAME = 'lexical v1 (before issue 34)';
export const BASELINE_MODEL = {
  features: ["bias","relevance","full_coverage","negated_claim_term","negation_contradicted","negation_agrees","quantity_match","quantity_mismatch","year_match","year_mismatch","antonym","entity_missing","refute_cues","support_cues","yes_relevant","no_relevant","not_found","hedging"],
  classes: ["supports","refutes","neutral"],
  weights: [
    [-0.929,2.766,0.863,-1.436,-1.415,1.001,0.616,-0.941,0.44,-0.504,-0.994,-0.713,-1.498,1.501,1.999,-2.007,-1.063,-0.303],
    [-0.657,1.415,0.309,1.933,1.783,-0.988,-0.685,1.365,-0.438,1.002,1.49,0.262,2.006,-0.992,-1.993,2.019,-1.026,-0.254],
    [0.086,-1.68,-0.872,0.003,0.132,-0.013,0.069,0.076,-0.002,0.002,0.004,0.451,-0.008,-0.009,-0.005,-0.013,2.089,0.458],
  ],
};
export const BASELINE_VERDICT = { minEvidence: 0.05, conflictFloor: 0.6, calibration: 2.75 };
const STANCES = ['supports', 'refutes', 'neutral'];
export const BASELINE_FEATURES = [
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
];
const NEGATORS = new Set([
    'not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'cannot', 'without', 'denied', 'denies', 'deny', 'false',
]);
const isNegator = (w) => NEGATORS.has(w) || /n['’]t$/.test(w);
/** Words after a negator that it governs, within the same clause. */
const NEGATION_SCOPE = 5;
/** Clause boundaries: punctuation and the conjunctions that turn to a new statement. */
const CLAUSE_SPLIT = /[;:,.!?()\[\]—–]|\b(?:but|however|whereas|although|though|while|yet|instead)\b/i;
/** Fact-check discourse: the passage talks about a claim, a post, a rating. */
const FACT_CHECK_DISCOURSE = /\b(fact.?check\w*|claims?|claimed|viral|posts?|posted|shared|circulat\w+|rumou?rs?|hoax\w*|debunk\w*|misleading|misinformation|rated|rating|social media|facebook|whatsapp|twitter|tiktok|meme)\b/;
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
const ANTONYMS = [
    ['increase', 'decrease'], ['rise', 'fall'], ['rose', 'fell'], ['higher', 'lower'], ['more', 'less'], ['more', 'fewer'],
    ['gain', 'loss'], ['won', 'lost'], ['win', 'lose'], ['alive', 'dead'], ['legal', 'illegal'], ['allowed', 'banned'],
    ['approved', 'rejected'], ['largest', 'smallest'], ['highest', 'lowest'], ['maximum', 'minimum'], ['majority', 'minority'],
    ['safe', 'dangerous'], ['effective', 'ineffective'], ['guilty', 'innocent'], ['first', 'last'], ['before', 'after'],
    ['increased', 'decreased'], ['positive', 'negative'], ['private', 'public'], ['male', 'female'], ['north', 'south'],
    ['east', 'west'], ['born', 'died'], ['older', 'younger'], ['early', 'late'], ['reduce', 'increase'], ['reduced', 'increased'],
];
/** Per stemmed term: stated positively somewhere, and/or inside a negation's scope somewhere. */
function polarity(text, lang) {
    const pos = new Set();
    const neg = new Set();
    for (const clause of text.toLowerCase().split(CLAUSE_SPLIT)) {
        if (!clause)
            continue;
        const ws = words(clause, lang.code);
        let scopeLeft = 0;
        for (const w of ws) {
            if (isNegator(w)) {
                scopeLeft = NEGATION_SCOPE;
                continue;
            }
            const t = terms(w, lang)[0];
            if (t !== undefined)
                (scopeLeft > 0 ? neg : pos).add(t);
            if (scopeLeft > 0)
                scopeLeft--;
        }
    }
    return { pos, neg };
}
/** Features of (claim, passage); `relevance` comes from passage ranking. */
export function baselineFeatures(claim, passage, relevance, ctx = {}) {
    const lang = ctx.lang ?? ENGLISH;
    const reasons = [];
    const c = claim.toLowerCase();
    const p = passage.toLowerCase();
    const x = Object.fromEntries(BASELINE_FEATURES.map((f) => [f, 0]));
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
        if (!claimNeg && pNeg && !pPos)
            negatedInPassage++;
        else if (claimNeg && pPos && !pNeg)
            contradicted++;
        else if (claimNeg && pNeg)
            agrees++;
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
    // Quantities: a conflict needs the same unit (or counted noun) on both sides.
    const cq = quantities(claim, lang);
    const pq = quantities(passage, lang);
    if (cq.length && pq.length) {
        const match = cq.some((a) => pq.some((b) => sameNumber(a.value, b.value) && (a.unit === b.unit || !a.unit || !b.unit)));
        const sameUnit = cq.filter((a) => a.unit && pq.some((b) => b.unit === a.unit));
        if (match) {
            x.quantity_match = 1;
            reasons.push('numbers agree');
        }
        else if (sameUnit.length) {
            x.quantity_mismatch = 1;
            reasons.push(`numbers differ (${sameUnit[0].unit})`);
        }
    }
    // Years: a different year conflicts only when its clause is about the claim's terms.
    const cy = years(claim);
    if (cy.length) {
        const clausesWithYear = p.split(CLAUSE_SPLIT).filter((cl) => years(cl).length);
        const onTopic = clausesWithYear.filter((cl) => terms(cl, lang).some((t) => claimTerms.has(t) && !/^\d{4}$/.test(t)));
        const py = onTopic.flatMap((cl) => years(cl));
        if (py.length) {
            if (cy.some((y) => py.includes(y)))
                x.year_match = 1;
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
        if (ents.length) {
            const missing = ents.filter((e) => !p.includes(e)).length;
            x.entity_missing = missing / ents.length;
            if (missing)
                reasons.push(`${missing} of the claim's names not in the passage`);
        }
    }
    // Verdict words only where a verdict is being given: fact-check discourse.
    if (ctx.factCheck || FACT_CHECK_DISCOURSE.test(p)) {
        const refute = REFUTE_CUES.filter((re) => re.test(p) && !re.test(c)).length;
        const support = SUPPORT_CUES.filter((re) => re.test(p) && !re.test(c)).length;
        x.refute_cues = Math.min(refute, 2) / 2;
        x.support_cues = Math.min(support, 2) / 2;
        if (refute)
            reasons.push(`${refute} refuting cue${refute > 1 ? 's' : ''} (fact-check wording)`);
        if (support)
            reasons.push(`${support} supporting cue${support > 1 ? 's' : ''} (fact-check wording)`);
    }
    // A question answered "Yes"/"No" decides the claim as much as the question matches it.
    const lead = p.match(/(?:^|[?:]\s*)(yes|no)\b(?!\s+(answer|information|results?|data|evidence)\b)/);
    if (lead?.[1] === 'yes')
        x.yes_relevant = x.relevance;
    if (lead?.[1] === 'no')
        x.no_relevant = x.relevance;
    if (NOT_FOUND.some((re) => re.test(p))) {
        x.not_found = 1;
        reasons.push('nothing found');
    }
    x.hedging = Math.min(HEDGES.filter((re) => re.test(p)).length, 2) / 2;
    return { x, reasons };
}
function softmax(zs) {
    const m = Math.max(...zs);
    const es = zs.map((z) => Math.exp(z - m));
    const s = es.reduce((a, b) => a + b, 0);
    return es.map((e) => e / s);
}
