/**
 * Explicit stance signals that a sentence-pair model does not learn from the pairs it is trained
 * on (issue 34), read from the claim and one passage:
 *
 * - reported speech: what a passage attributes to someone else ("X claimed that …", "the myth
 *   that …", quoted text) is not the passage's own statement, so its negations, cue words,
 *   numbers and names do not lend their stance to the passage (`ownText`);
 * - entity substitution: the passage states the claim's frame (the claim's other terms, the same
 *   word before the slot) with a different name or year in that slot: "The Eiffel Tower is in
 *   Berlin" against "… on the Champ de Mars in Paris" (`entitySwap`);
 * - quantities conflict only when they measure the same thing: the same unit and the same subject
 *   (a content word of the claim near both numbers), never two unrelated quantities of one
 *   sentence (`quantityConflict`).
 *
 * All functions are pure and bounded: their inputs are cut at STANCE_MAX_CHARS by the caller.
 */
import { ENGLISH, quantities, sameNumber, STOPWORDS, terms, words, type Lang } from './text.js';

/** Clause boundaries (as stance.ts reads negation). */
const CLAUSE_BOUNDARY = /[;:.!?()\[\]—–]|\b(?:but|however|whereas|although|though|while|yet|instead)\b/i;

/**
 * Verbs and nouns that distance the writer from what follows: the passage reports it, it does not
 * say it. Evidential verbs ("found", "showed", "suggest", "conclude") are the writer's own reading
 * and are not here.
 */
const REPORTING_VERB =
  /\b(?:claim(?:s|ed|ing)?|alleg(?:e|es|ed|ing|edly)|purport(?:s|ed|edly|ing)?|insist(?:s|ed|ing)?|said|says|saying|stated|tweeted|posted|wrote|asserted|argued|rumou?red|falsely|wrongly|baselessly)\b(?:\s+that\b)?/gi;
/** The passage's own verdict on what it reports: "… is false", "… was a hoax". Ends a report. */
const OWN_VERDICT =
  /\b(?:is|was|are|were|has been|have been|remains)\s+(?:\w+\s+)?(?:false|untrue|wrong|incorrect|baseless|unfounded|misleading|fake|debunked|unproven|true|correct|accurate|a myth|a hoax)\b/i;
const REPORTING_NOUN =
  /\b(?:the|a|this|that|their|his|her)\s+(?:[a-z-]+\s+)?(?:claims?|myths?|misconceptions?|rumou?rs?|notion|idea|belief|allegations?|conspiracy theor(?:y|ies)|assertion|narrative)\s+(?:that|of)\b/gi;
/** A copula that may close a noun-introduced report ("the myth that X is Y is false"). */
const COPULA = /\b(?:is|was|are|were|has been|have been|remains|proved|proves)\b/gi;
/** Quoted text of two words or more. */
const QUOTED = /["“„«]([^"“”„«»]{3,400}?\s[^"“”„«»]{1,400}?)["”»]/g;

export interface OwnText {
  /** The passage with reported spans blanked (same length, so offsets stay valid). */
  text: string;
  /** Reported spans [start, end) in the passage. */
  spans: Array<[number, number]>;
}

const blank = (s: string, spans: ReadonlyArray<[number, number]>): string => {
  let out = '';
  let at = 0;
  for (const [a0, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    // Overlapping reports (a quotation inside a "claimed that …" clause) blank their union.
    const a = Math.max(a0, at);
    if (b <= a) continue;
    out += s.slice(at, a) + ' '.repeat(b - a);
    at = b;
  }
  return out + s.slice(at);
};

/** End of the clause that starts at `from` (the next clause boundary, or the text's end). */
function clauseEnd(s: string, from: number): number {
  const rest = s.slice(from);
  const m = CLAUSE_BOUNDARY.exec(rest);
  return m ? from + m.index : s.length;
}

/** Does the claim itself report speech? Then reports are what it is about, and they stay. */
export const reportsSpeech = (claim: string): boolean => {
  REPORTING_VERB.lastIndex = 0;
  REPORTING_NOUN.lastIndex = 0;
  return REPORTING_VERB.test(claim) || REPORTING_NOUN.test(claim);
};

/** The passage's own statements: reported speech and quotations blanked. */
export function ownText(passage: string, claim: string): OwnText {
  if (reportsSpeech(claim)) return { text: passage, spans: [] };
  const spans: Array<[number, number]> = [];
  for (const m of passage.matchAll(QUOTED)) spans.push([m.index!, m.index! + m[0].length]);
  for (const m of passage.matchAll(REPORTING_VERB)) {
    const start = m.index! + m[0].length;
    const end = clauseEnd(passage, start);
    // "X claimed Y is a hoax": a finite verb's complement is all report. "The post claiming Y is
    // false": a participle's report is the subject, and the verdict after it is the passage's own.
    const verdict = /ing\b/i.test(m[0]) ? OWN_VERDICT.exec(passage.slice(start, end)) : null;
    const stop = verdict ? start + verdict.index : end;
    if (stop > start) spans.push([start, stop]);
  }
  for (const m of passage.matchAll(REPORTING_NOUN)) {
    const start = m.index! + m[0].length;
    const end = clauseEnd(passage, start);
    // "the myth that X is Y is false": the report ends at its clause's last copula when a second
    // one follows the first (the outer sentence's verb); a single copula belongs to the report.
    const clause = passage.slice(start, end);
    const cops = [...clause.matchAll(COPULA)];
    const verdict = OWN_VERDICT.exec(clause);
    const stop = verdict ? start + verdict.index : cops.length >= 2 ? start + cops[cops.length - 1]!.index! : end;
    if (stop > start) spans.push([start, stop]);
  }
  if (!spans.length) return { text: passage, spans };
  return { text: blank(passage, spans), spans };
}

/**
 * Share of the claim terms the passage states that it states only inside reported spans: 1 when
 * the passage's whole contact with the claim is something it attributes to someone else.
 */
export function reportedShare(claim: string, passage: string, own: OwnText, lang: Lang = ENGLISH): number {
  if (!own.spans.length) return 0;
  const claimTerms = new Set(terms(claim, lang));
  const all = new Set(terms(passage, lang).filter((t) => claimTerms.has(t)));
  if (!all.size) return 0;
  const outside = new Set(terms(own.text, lang));
  let inside = 0;
  for (const t of all) if (!outside.has(t)) inside++;
  return inside / all.size;
}

// ---- entity substitution

interface Mention {
  /** As written, leading article removed. */
  text: string;
  kind: 'name' | 'year' | 'date';
  /** The preposition that marks the mention's slot, lowercased; '' when none. */
  before: string;
}

const ARTICLES = new Set(['the', 'a', 'an']);
/** Words that mark a slot (where, when, by whom, than what). */
const PREPOSITIONS = new Set(['in', 'at', 'on', 'by', 'from', 'to', 'of', 'for', 'with', 'near', 'into', 'than', 'as', 'during', 'since', 'until', 'after', 'before', 'against', 'under', 'between']);
/** Months and weekdays: capitalised, but dates, not names. */
const CALENDAR = new Set(
  'january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday'.split(' '),
);
/** How many words back a preposition may stand from the name it marks. */
const ANCHOR_REACH = 5;
const CONNECTORS = new Set(['of', 'de', 'la', 'le', 'du', 'van', 'von', 'der', 'del', 'da', 'di', 'and', '&']);
const TOKEN = /[\p{L}\p{M}\p{N}]+(?:['’.-][\p{L}\p{M}\p{N}]+)*|[.!?;:,()"“”]/gu;
const isCap = (t: string): boolean => /^\p{Lu}/u.test(t);
const isYear = (t: string): boolean => /^(1[5-9]\d{2}|20\d{2})$/.test(t);
/** Capitalised words that are not names (sentence openers, pronouns, months stay names). */
const NOT_NAMES = new Set(['i', 'it', 'he', 'she', 'they', 'we', 'you', 'this', 'that', 'these', 'those', 'there', 'here']);

/** Names (capitalised runs, acronyms) and years, each with the word before it. */
export function mentions(s: string): Mention[] {
  const toks = [...s.matchAll(TOKEN)].map((m) => m[0]);
  const out: Mention[] = [];
  let i = 0;
  // The slot's marker: the nearest preposition within ANCHOR_REACH words before the mention, in
  // its clause ("in rural Kansas", "by bassist Steve Harris"); '' when none (a verb such as "was"
  // marks no slot: "was a Missourian" / "was an American" is not one slot filled twice).
  const prevWord = (k: number): string => {
    for (let j = k - 1, n = 0; j >= 0 && n < ANCHOR_REACH; j--, n++) {
      const w = toks[j]!.toLowerCase();
      if (!/^[\p{L}\p{N}]/u.test(w)) break;
      if (PREPOSITIONS.has(w)) return w;
    }
    return '';
  };
  while (i < toks.length) {
    const t = toks[i]!;
    if (isYear(t)) {
      out.push({ text: t, kind: 'year', before: prevWord(i) });
      i++;
      continue;
    }
    if (!isCap(t)) {
      i++;
      continue;
    }
    const start = i;
    let end = i + 1;
    while (end < toks.length) {
      if (isCap(toks[end]!) && !isYear(toks[end]!)) end++;
      else if (CONNECTORS.has(toks[end]!.toLowerCase()) && end + 1 < toks.length && isCap(toks[end + 1]!)) end += 2;
      else break;
    }
    i = end;
    let parts = toks.slice(start, end);
    const atStart = start === 0 || /^[.!?:;"“”(]$/.test(toks[start - 1]!);
    // A capitalised sentence opener is a name only when it is not a common word.
    while (parts.length && (ARTICLES.has(parts[0]!.toLowerCase()) || (atStart && parts.length === 1 && STOPWORDS.has(parts[0]!.toLowerCase())))) parts = parts.slice(1);
    if (!parts.length) continue;
    const text = parts.join(' ');
    const lower = text.toLowerCase();
    if (CALENDAR.has(lower)) {
      out.push({ text, kind: 'date', before: atStart ? '' : prevWord(start) });
      continue;
    }
    if (NOT_NAMES.has(lower) || (atStart && parts.length === 1 && STOPWORDS.has(lower))) continue;
    if (text.length < 2) continue;
    out.push({ text, kind: 'name', before: atStart ? '' : prevWord(start + (toks.slice(start, end).length - parts.length)) });
  }
  return out;
}

/** Does `hay` state the mention (as written, or all its stemmed terms)? */
function states(hay: string, hayTerms: ReadonlySet<string>, m: Mention, lang: Lang): boolean {
  if (hay.toLowerCase().includes(m.text.toLowerCase())) return true;
  const ts = terms(m.text, lang);
  return ts.length > 0 && ts.every((t) => hayTerms.has(t));
}

export interface EntitySwap {
  /** The claim's name or year the passage replaces. */
  claimed: string;
  /** What the passage has in its place. */
  stated: string;
  kind: Mention['kind'];
}

/** Share of the claim's terms outside its swapped slot that the passage must state (the frame). */
export const FRAME_COVERAGE = 0.75;

/** "US" for "United States", "UN" for "United Nations": one name written two ways. */
const initials = (s: string): string =>
  s
    .split(/\s+/)
    .filter((w) => !CONNECTORS.has(w.toLowerCase()))
    .map((w) => w[0])
    .join('')
    .toUpperCase();
const sameName = (a: string, b: string): boolean => {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return (
    la.includes(lb) || lb.includes(la) || (/^[A-Z]{2,}$/.test(a) && initials(b) === a) || (/^[A-Z]{2,}$/.test(b) && initials(a) === b) || bigramDice(la, lb) >= 0.75
  );
};
/** Character-bigram overlap (Dice): "Fredrick William" and "Frederick William" are one name misspelt. */
function bigramDice(a: string, b: string): number {
  const grams = (s: string): Map<string, number> => {
    const m = new Map<string, number>();
    for (let i = 0; i < s.length - 1; i++) m.set(s.slice(i, i + 2), (m.get(s.slice(i, i + 2)) ?? 0) + 1);
    return m;
  };
  const ga = grams(a);
  const gb = grams(b);
  let both = 0;
  for (const [g, n] of ga) both += Math.min(n, gb.get(g) ?? 0);
  const total = Math.max(1, a.length - 1 + b.length - 1);
  return (2 * both) / total;
}

/**
 * A claim name or year the passage does not state, where the passage puts a different name (or
 * year) of the same kind after the same preposition ("in Berlin" / "in Paris", "by Spielberg" /
 * "by Lucas"), states every other name the claim gives (the same subject) and at least
 * FRAME_COVERAGE of the claim's other terms (the same relation): the same frame, another filler.
 * A filler that shares a word with the claim, abbreviates it or spells it nearly alike is not
 * another filler.
 */
export function entitySwap(claim: string, passage: string, lang: Lang = ENGLISH): EntitySwap | null {
  const cm = mentions(claim);
  if (!cm.length) return null;
  const pm = mentions(passage);
  if (!pm.length) return null;
  const passageTerms = new Set(terms(passage, lang));
  const claimTermsAll = new Set(terms(claim, lang));
  const claimLower = claim.toLowerCase();
  for (const c of cm) {
    if (!c.before || states(passage, passageTerms, c, lang)) continue;
    // Same subject: every other name the claim gives is in the passage too, in the same role (after
    // the same preposition, or none): "a replica of the Eiffel Tower stands in Las Vegas" is not
    // about where the Eiffel Tower is.
    if (!cm.every((o) => o === c || o.kind !== 'name' || pm.some((p) => p.kind === 'name' && p.before === o.before && sameName(p.text, o.text)))) continue;
    const slotTerms = new Set(terms(c.text, lang));
    const frame = [...claimTermsAll].filter((t) => !slotTerms.has(t));
    if (!frame.length) continue;
    const covered = frame.filter((t) => passageTerms.has(t)).length / frame.length;
    if (covered < FRAME_COVERAGE) continue;
    const rival = pm.find(
      (p) =>
        p.kind === c.kind &&
        p.before === c.before &&
        !sameName(p.text, c.text) &&
        !claimLower.includes(p.text.toLowerCase()) &&
        !terms(p.text, lang).some((t) => claimTermsAll.has(t)),
    );
    if (rival) return { claimed: c.text, stated: rival.text, kind: c.kind };
  }
  return null;
}

// ---- quantities that measure the same thing

/** Words either side of a number that say what it is about. */
const SUBJECT_WINDOW = 6;
/** Words that go with any measure ("33 years old", "35 years ago") and say nothing of its subject. */
const MEASURE_WORDS = new Set(['old', 'ago', 'long', 'later', 'earlier', 'aged', 'age', 'total', 'around', 'about', 'nearly', 'almost', 'approximately', 'least', 'less', 'more', 'than', 'over', 'under', 'some', 'roughly', 'per', 'each', 'every', 'first', 'last', 'next']);

/** Unit words as stems, so "years" near a number is not its subject. */
const UNIT_WORD_STEMS = new Set(
  ['year', 'years', 'month', 'months', 'week', 'weeks', 'day', 'days', 'hour', 'hours', 'minute', 'minutes', 'percent', 'per cent', 'mile', 'miles', 'mi', 'km', 'metre', 'metres', 'meter', 'meters', 'dollars', 'million', 'billion', 'thousand', 'hundred', 'trillion'].flatMap((w) =>
    terms(w),
  ),
);

interface Located {
  value: number;
  unit: string;
  /** Stemmed content words near the number, in its clause (its subject), unit and numbers left out. */
  about: Set<string>;
}

/** Quantities with the content words around each (within its clause, SUBJECT_WINDOW words each side). */
export function locatedQuantities(s: string, lang: Lang = ENGLISH): Located[] {
  const out: Located[] = [];
  for (const clause of s.split(CLAUSE_BOUNDARY)) {
    if (!clause || !/\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|dozen)\b/i.test(clause)) continue;
    const qs = quantities(clause, lang);
    if (!qs.length) continue;
    const ws = words(clause, lang.code);
    for (const q of qs) {
      // The number's position among the clause's words: the first word equal to its written value.
      const idx = ws.findIndex((w) => {
        const n = Number(w.replace(/,/g, ''));
        return Number.isFinite(n) && (sameNumber(n, q.value) || sameNumber(n * 1e3, q.value) || sameNumber(n * 1e6, q.value) || sameNumber(n * 1e9, q.value));
      });
      const lo = idx >= 0 ? Math.max(0, idx - SUBJECT_WINDOW) : 0;
      const hi = idx >= 0 ? Math.min(ws.length, idx + SUBJECT_WINDOW + 1) : ws.length;
      const about = new Set(
        ws
          .slice(lo, hi)
          .filter((w) => !MEASURE_WORDS.has(w))
          .flatMap((w) => terms(w, lang))
          .filter((t) => !/\d/.test(t) && t !== q.unit && UNIT_WORD_STEMS.has(t) === false),
      );
      out.push({ value: q.value, unit: q.unit, about });
    }
  }
  return out;
}

export interface QuantityReading {
  match: boolean;
  /** The unit of a conflicting pair (same unit, same subject, different value), else null. */
  conflict: string | null;
}

/**
 * Numbers agree when a claim number equals a passage number of the same unit (or where either has
 * none); they conflict only when a claim number and a passage number share their unit AND a
 * subject word, differ, and no passage number of that unit and subject agrees.
 */
export function quantityConflict(claim: string, passage: string, lang: Lang = ENGLISH): QuantityReading {
  const cq = locatedQuantities(claim, lang);
  const pq = locatedQuantities(passage, lang);
  if (!cq.length || !pq.length) return { match: false, conflict: null };
  const match = cq.some((a) => pq.some((b) => sameNumber(a.value, b.value) && (a.unit === b.unit || !a.unit || !b.unit)));
  if (match) return { match, conflict: null };
  for (const a of cq) {
    if (!a.unit) continue;
    const rivals = pq.filter((b) => b.unit === a.unit && [...a.about].some((t) => b.about.has(t)));
    if (rivals.length && !rivals.some((b) => sameNumber(a.value, b.value))) return { match: false, conflict: a.unit };
  }
  return { match: false, conflict: null };
}
