/**
 * Text handling for claim checking: word tokens, stop words and stemming per language, sentences
 * (Intl.Segmenter), numbers with what they measure, and years.
 *
 * Stemmers and stop-word lists come from @orama/stemmers and @orama/stopwords (Snowball-family
 * stemmers for 28 languages). English is loaded eagerly; the other languages load on first use
 * (`loadLanguage`), so the CLI does not parse 28 stemmers at start-up. A language without a
 * stemmer still gets tokenization (Intl.Segmenter for scripts written without spaces) and exact
 * word matching, and `stemmed: false` so the caller can say so in a warning.
 */
import { stemmer as englishStemmer } from '@orama/stemmers/english';
import { stopwords as englishStopwords } from '@orama/stopwords/english';

type StemMod = { stemmer: (w: string) => string };
type StopMod = { stopwords: string[] };

/** ISO 639-1 → loaders. Only languages the libraries cover are listed; the rest fall back. */
const STEMMERS: Record<string, () => Promise<StemMod>> = {
  ar: () => import('@orama/stemmers/arabic'),
  hy: () => import('@orama/stemmers/armenian'),
  bg: () => import('@orama/stemmers/bulgarian'),
  da: () => import('@orama/stemmers/danish'),
  nl: () => import('@orama/stemmers/dutch'),
  fi: () => import('@orama/stemmers/finnish'),
  fr: () => import('@orama/stemmers/french'),
  de: () => import('@orama/stemmers/german'),
  el: () => import('@orama/stemmers/greek'),
  hu: () => import('@orama/stemmers/hungarian'),
  hi: () => import('@orama/stemmers/indian'),
  id: () => import('@orama/stemmers/indonesian'),
  ga: () => import('@orama/stemmers/irish'),
  it: () => import('@orama/stemmers/italian'),
  lt: () => import('@orama/stemmers/lithuanian'),
  ne: () => import('@orama/stemmers/nepali'),
  no: () => import('@orama/stemmers/norwegian'),
  nb: () => import('@orama/stemmers/norwegian'),
  nn: () => import('@orama/stemmers/norwegian'),
  pt: () => import('@orama/stemmers/portuguese'),
  ro: () => import('@orama/stemmers/romanian'),
  ru: () => import('@orama/stemmers/russian'),
  sr: () => import('@orama/stemmers/serbian'),
  es: () => import('@orama/stemmers/spanish'),
  sv: () => import('@orama/stemmers/swedish'),
  ta: () => import('@orama/stemmers/tamil'),
  tr: () => import('@orama/stemmers/turkish'),
  uk: () => import('@orama/stemmers/ukrainian'),
  sa: () => import('@orama/stemmers/sanskrit'),
};
const STOPS: Record<string, () => Promise<StopMod>> = {
  ar: () => import('@orama/stopwords/arabic'),
  hy: () => import('@orama/stopwords/armenian'),
  bg: () => import('@orama/stopwords/bulgarian'),
  da: () => import('@orama/stopwords/danish'),
  nl: () => import('@orama/stopwords/dutch'),
  fi: () => import('@orama/stopwords/finnish'),
  fr: () => import('@orama/stopwords/french'),
  de: () => import('@orama/stopwords/german'),
  el: () => import('@orama/stopwords/greek'),
  hu: () => import('@orama/stopwords/hungarian'),
  hi: () => import('@orama/stopwords/indian'),
  id: () => import('@orama/stopwords/indonesian'),
  ga: () => import('@orama/stopwords/irish'),
  it: () => import('@orama/stopwords/italian'),
  ja: () => import('@orama/stopwords/japanese'),
  lt: () => import('@orama/stopwords/lithuanian'),
  zh: () => import('@orama/stopwords/mandarin'),
  ne: () => import('@orama/stopwords/nepali'),
  no: () => import('@orama/stopwords/norwegian'),
  nb: () => import('@orama/stopwords/norwegian'),
  nn: () => import('@orama/stopwords/norwegian'),
  pt: () => import('@orama/stopwords/portuguese'),
  ro: () => import('@orama/stopwords/romanian'),
  ru: () => import('@orama/stopwords/russian'),
  sr: () => import('@orama/stopwords/serbian'),
  sl: () => import('@orama/stopwords/slovenian'),
  es: () => import('@orama/stopwords/spanish'),
  sv: () => import('@orama/stopwords/swedish'),
  ta: () => import('@orama/stopwords/tamil'),
  tr: () => import('@orama/stopwords/turkish'),
  uk: () => import('@orama/stopwords/ukrainian'),
  sa: () => import('@orama/stopwords/sanskrit'),
};

export interface Lang {
  code: string;
  /** True when a real stemmer covers the language; false: exact word forms only. */
  stemmed: boolean;
  stem(w: string): string;
  stop: ReadonlySet<string>;
}

/** Words that carry no claim content in English beyond the library's list (reporting verbs). */
const EXTRA_EN = ['also', 'said', 'says', 'say', 'according', 'claim', 'claims', 'claimed', 'one', 'two', 'us', 'via', 'per', 'upon', 'whether', 'like', 'get', 'got', 'made', 'make', 'new'];
/** Negators must stay tokens: the stance model reads them, and "no" must never vanish as a stop word. */
const KEEP = new Set(['not', 'no', 'never', 'nor', 'none', 'nobody', 'nothing', 'neither', 'without', 'cannot']);

function makeLang(code: string, stemFn: ((w: string) => string) | null, stops: readonly string[]): Lang {
  const cache = new Map<string, string>();
  const stem = (w: string): string => {
    if (!stemFn || /\d/.test(w)) return w;
    let s = cache.get(w);
    if (s === undefined) {
      s = stemFn(w);
      if (cache.size > 50_000) cache.clear();
      cache.set(w, s);
    }
    return s;
  };
  return { code, stemmed: Boolean(stemFn), stem, stop: new Set(stops.map((s) => s.toLowerCase()).filter((s) => !KEEP.has(s))) };
}

export const ENGLISH: Lang = makeLang('en', englishStemmer, [...englishStopwords, ...EXTRA_EN]);
const loaded = new Map<string, Promise<Lang>>([['en', Promise.resolve(ENGLISH)]]);

/** The language tools for an ISO 639-1 code (cached). Never throws: unknown → no stemmer, no stop words. */
export function loadLanguage(code: string): Promise<Lang> {
  let p = loaded.get(code);
  if (!p) {
    p = (async () => {
      const [st, sw] = await Promise.all([STEMMERS[code]?.().catch(() => null), STOPS[code]?.().catch(() => null)]);
      return makeLang(code, st?.stemmer ?? null, sw?.stopwords ?? []);
    })();
    loaded.set(code, p);
  }
  return p;
}

export const hasStemmer = (code: string): boolean => code === 'en' || code in STEMMERS;

/** English stop words, kept for callers that only need English (query building for keyword engines). */
export const STOPWORDS: ReadonlySet<string> = ENGLISH.stop;

/** Scripts written without spaces between words: tokenized with Intl.Segmenter. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;
const segmenters = new Map<string, { word: Intl.Segmenter; sentence: Intl.Segmenter }>();
function segmenterFor(code: string): { word: Intl.Segmenter; sentence: Intl.Segmenter } {
  let s = segmenters.get(code);
  if (!s) {
    let locale = code;
    try {
      new Intl.Segmenter(code);
    } catch {
      locale = 'en';
    }
    s = { word: new Intl.Segmenter(locale, { granularity: 'word' }), sentence: new Intl.Segmenter(locale, { granularity: 'sentence' }) };
    segmenters.set(code, s);
  }
  return s;
}

/** Word tokens, lowercased; keeps 1,000 and 3.5 and don't together. */
export function words(s: string, code = 'en'): string[] {
  const lower = s.toLowerCase();
  if (!UNSPACED.test(lower)) return lower.match(/[\p{L}\p{M}\p{N}]+(?:['’.,][\p{L}\p{M}\p{N}]+)*/gu) ?? [];
  const out: string[] = [];
  for (const seg of segmenterFor(code).word.segment(lower)) if (seg.isWordLike) out.push(seg.segment);
  return out;
}

/**
 * A small memo for the pure text functions: the same sentences come back claim after claim (a
 * corpus's passages, a Wikipedia article), and splitting and stemming them again is most of the
 * cost of a check. Cleared when full, so memory stays bounded.
 */
function memo<T>(limit: number): { get(k: string): T | undefined; set(k: string, v: T): void } {
  const m = new Map<string, T>();
  return {
    get: (k) => m.get(k),
    set: (k, v) => {
      if (m.size >= limit) m.clear();
      m.set(k, v);
    },
  };
}
const termMemo = memo<string[]>(20_000);
const sentenceMemo = memo<string[]>(5_000);

/** Stemmed content tokens (no stop words, no one-letter Latin tokens). */
export function terms(s: string, lang: Lang = ENGLISH): string[] {
  const key = `${lang.code}\u0000${s}`;
  const hit = termMemo.get(key);
  if (hit) return hit;
  const out = termsUncached(s, lang);
  termMemo.set(key, out);
  return out;
}

function termsUncached(s: string, lang: Lang): string[] {
  const out: string[] = [];
  for (const w0 of words(s, lang.code)) {
    const w = w0.replace(/['’]s$/, '');
    if (lang.stop.has(w) || KEEP.has(w)) continue;
    if (w.length < 2 && !UNSPACED.test(w)) continue;
    out.push(lang.stem(w));
  }
  return out;
}

const ABBREVIATION = /(?:^|\s)(?:(?:[Dd]r|[Mm]rs?|[Mm]s|[Pp]rof|[Ss]t|[Mm]t|[Jj]r|[Ss]r|vs|[Ff]ig|approx|e\.g|i\.e|U\.S)|\p{Lu})\.$/u;

/** Sentences by Intl.Segmenter, also split at line breaks; whitespace collapsed. */
export function sentences(text: string, code = 'en'): string[] {
  const key = `${code}\u0000${text}`;
  const hit = sentenceMemo.get(key);
  if (hit) return hit;
  const out: string[] = [];
  const seg = segmenterFor(code).sentence;
  for (const block of text.split(/\n+/)) {
    if (!block.trim()) continue;
    let carry = '';
    for (const s of seg.segment(block)) {
      const t = (carry + s.segment).replace(/\s+/g, ' ').trim();
      // ICU (as Node ships it) has no abbreviation list: "Dr." or "J." ends no sentence.
      if (ABBREVIATION.test(t)) {
        carry = `${t} `;
        continue;
      }
      carry = '';
      if (t.length >= 3) out.push(t);
    }
    if (carry.trim().length >= 3) out.push(carry.trim());
  }
  sentenceMemo.set(key, out);
  return out;
}

const MULTIPLIERS: Record<string, number> = {
  thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, mn: 1e6, billion: 1e9, bn: 1e9, b: 1e9, trillion: 1e12, tn: 1e12,
  hundred: 1e2, lakh: 1e5, crore: 1e7,
};
const WORD_NUMBERS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100,
  dozen: 12, half: 0.5,
};
/** Units written in several ways, so "30 min" and "thirty minutes" measure the same thing. */
const UNIT_ALIASES: Record<string, string> = {
  '%': 'percent', percent: 'percent', 'per cent': 'percent', percentage: 'percent',
  min: 'minute', mins: 'minute', minute: 'minute', minutes: 'minute', h: 'hour', hr: 'hour', hrs: 'hour', hour: 'hour', hours: 'hour',
  sec: 'second', secs: 'second', s: 'second', second: 'second', seconds: 'second', day: 'day', days: 'day', week: 'week', weeks: 'week',
  month: 'month', months: 'month', year: 'year', years: 'year', yr: 'year', yrs: 'year', km: 'km', kilometres: 'km', kilometers: 'km',
  mile: 'mile', miles: 'mile', m: 'metre', metre: 'metre', metres: 'metre', meter: 'metre', meters: 'metre', kg: 'kg', kilograms: 'kg',
  $: 'usd', usd: 'usd', dollars: 'usd', dollar: 'usd', '€': 'eur', eur: 'eur', euros: 'eur', '£': 'gbp', gbp: 'gbp', pounds: 'gbp',
};

export interface Quantity {
  value: number;
  /** What the number counts: a unit ("percent", "minute", "usd") or the stem of the noun after it ("people"); '' when unknown. */
  unit: string;
}

/**
 * Numbers with what they measure ("75 million people" → {75e6, "peopl"}, "30 min" → {30, "minute"},
 * "thirty minutes" → {30, "minute"}, "$5 billion" → {5e9, "usd"}). Years are left to years().
 */
export function quantities(s: string, lang: Lang = ENGLISH): Quantity[] {
  const out: Quantity[] = [];
  const re = /([$€£])?\s?(?<![\p{L}\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|dozen)\b)\s*(%|percent|per cent|thousand|million|billion|trillion|hundred|lakh|crore|bn|mn|tn|k\b|m\b|b\b)?\s*([\p{L}%]+)?/giu;
  for (const m of s.matchAll(re)) {
    const raw = m[2]!.toLowerCase();
    let v = /^\d/.test(raw) ? Number(raw.replace(/,/g, '')) : WORD_NUMBERS[raw];
    if (v === undefined || !Number.isFinite(v)) continue;
    const scale = (m[3] ?? '').toLowerCase().trim();
    if (!scale && !m[1] && /^(1[5-9]\d{2}|20\d{2})$/.test(raw)) continue; // a year
    let unit = '';
    if (scale === '%' || scale === 'percent' || scale === 'per cent') unit = 'percent';
    else if (scale) v *= MULTIPLIERS[scale] ?? 1;
    if (m[1]) unit = UNIT_ALIASES[m[1]]!;
    const next = (m[4] ?? '').toLowerCase();
    if (!unit && next) {
      const alias = UNIT_ALIASES[next];
      if (alias) unit = alias;
      else if (next === 'of' || lang.stop.has(next)) unit = '';
      else unit = lang.stem(next);
    }
    out.push({ value: v, unit });
  }
  return out;
}

/** Plain numeric values (kept for callers that only compare magnitudes). */
export const numbers = (s: string): number[] => quantities(s).map((q) => q.value);

export function years(s: string): number[] {
  return [...s.matchAll(/(?<![\d.,])(1[5-9]\d{2}|20\d{2})(?![\d.,]\d)/g)].map((m) => Number(m[1]));
}

/** Two numbers agree when within 5 % (rounding in reporting). */
export const sameNumber = (a: number, b: number): boolean => a === b || Math.abs(a - b) <= 0.05 * Math.max(Math.abs(a), Math.abs(b));

/** Capitalized word runs not at a sentence start, plus acronyms: the claim's named entities. */
export function entities(s: string): string[] {
  const out: string[] = [];
  const re = /(?:[\p{Lu}][\p{L}\p{N}'’-]*)(?:\s+(?:of|de|la|van|von|the|and|&)?\s*[\p{Lu}][\p{L}\p{N}'’-]*)*/gu;
  for (const m of s.matchAll(re)) {
    let e = m[0].trim().replace(/['’]s$/, '');
    const atStart = m.index === 0 || /[.!?:]\s*$/.test(s.slice(0, m.index));
    // Acronyms (WHO, US, EU) are names even when the lowercase word is a stop word.
    const acronym = /^[\p{Lu}\d]{2,}$/u.test(e);
    if (atStart && !e.includes(' ') && !acronym) {
      if (STOPWORDS.has(e.toLowerCase()) || e.length < 3) continue;
    }
    e = e.replace(/^(The|A|An)\s+/, '');
    if (e.length >= 2 && (acronym || !STOPWORDS.has(e.toLowerCase()))) out.push(e);
  }
  return [...new Set(out)];
}

/** Text normalized for "is this the same passage?": lowercase letters and digits, single spaces. */
export const passageKey = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
