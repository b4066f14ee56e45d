/**
 * Stylometric features for the default AI-text detector (no language model needed). Each one is
 * a documented trait on which LLM output tends to differ from human writing:
 *
 * - burstiness: humans vary sentence length more (coefficient of variation of words/sentence;
 *   GPTZero's "burstiness", Tian 2023);
 * - lexical diversity: moving-average type-token ratio (MATTR, Covington & McFall 2010, window 50)
 *   and the hapax share;
 * - function-word and pronoun profile (Mosteller & Wallace 1964 style authorship markers);
 * - punctuation profile: commas, semicolons, colons, dashes, parentheses, quotes, ? and !;
 * - repetition: the share of word trigrams that recur;
 * - stock phrasing: words and phrases over-used by instruction-tuned models ("delve", "tapestry",
 *   "it is important to note"; Liang et al. 2024, "Mapping the increasing use of LLMs in
 *   scientific papers");
 * - contractions, lowercase sentence starts, digits and word length (register and care);
 * - specifics and rhythm: capitalised words inside sentences (names, places), acronyms, the
 *   serial comma (", and" / ", or", which instruction-tuned models use habitually) and the share of
 *   sentences over 30 words;
 * - vocabulary: the mean per-word log-ratio of a word's frequency in machine text to its
 *   frequency in human text of the same topics, from a small table fitted with the model (only
 *   words that lean the same way in every fitting domain are kept; see scripts/fit-ai-text.mjs);
 * - character 4-grams: the same log-ratio for lower-cased character 4-grams (digits folded to 0),
 *   which sees what word lists miss — suffixes ("tion", "ing "), punctuation habits (", an", "s. t")
 *   and function-word pairs across a space — under the same every-domain-agrees rule;
 * - word entropy: the Shannon entropy of the text's word distribution over log(words), i.e. how
 *   evenly it spreads over its vocabulary (repetition of the same terms lowers it);
 * - opening echo: instruction-tuned models restate the prompt, question or opening line before
 *   going on ("Is X feasible? … Yes, X is feasible …"): `opening_bigram_echo` is the share of the
 *   first sentence's distinct word pairs that occur again later in the text — measured within the
 *   text, with no reference corpus.
 *
 * Features are rates, not counts, so they do not grow with length. The fitting script
 * (scripts/fit-ai-text.mjs) imports this very module from dist/, so training and inference
 * compute the same numbers.
 */

export const FEATURE_NAMES = [
  'sentence_len_mean',
  'sentence_len_cv',
  'mattr50',
  'hapax_ratio',
  'word_len_mean',
  'long_word_rate',
  'function_word_rate',
  'first_person_rate',
  'second_person_rate',
  'contraction_rate',
  'comma_rate',
  'semicolon_colon_rate',
  'dash_rate',
  'paren_rate',
  'quote_rate',
  'question_exclaim_rate',
  'trigram_repeat_rate',
  'stock_phrase_rate',
  'transition_start_rate',
  'lowercase_start_rate',
  'digit_rate',
  'ing_rate',
  'proper_noun_rate',
  'acronym_rate',
  'serial_comma_rate',
  'long_sentence_share',
  'vocabulary_llr',
  'char4_llr',
  'word_entropy_norm',
  'opening_bigram_echo',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type FeatureVector = Record<FeatureName, number>;

const FUNCTION_WORDS =
  'a an the and but or nor so yet of in on at by for with from to into onto upon about as than that this these those which who whom whose what when where why how if then there here it its is are was were be been being have has had do does did not no can could will would shall should may might must just very also only even still'.split(' ');
const FIRST_PERSON = ['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours'];
const SECOND_PERSON = ['you', 'your', 'yours', 'yourself'];

/** Words and phrases that instruction-tuned models over-use (lower case; phrases matched on word boundaries). */
export const STOCK_PHRASES = [
  'delve', 'delves', 'delving', 'tapestry', 'testament', 'showcasing', 'showcase', 'underscore', 'underscores',
  'underscoring', 'pivotal', 'intricate', 'multifaceted', 'realm', 'crucial', 'vibrant', 'seamless', 'seamlessly',
  'fostering', 'foster', 'navigate', 'navigating', 'embark', 'bustling', 'meticulous', 'meticulously', 'commendable',
  'notably', 'furthermore', 'moreover', 'additionally', 'ultimately', 'overall', 'nuanced', 'profound', 'resonate',
  'resonated', 'unwavering', 'enigmatic', 'palpable', 'amidst', 'interplay', 'paramount', 'holistic', 'comprehensive',
  'invaluable', 'shed light', 'sheds light', 'it is important to note', 'it is worth noting', 'in conclusion',
  'a sense of', 'plays a crucial role', 'plays a significant role', 'in today\'s', 'ever-evolving', 'a stark reminder',
  'serves as a', 'stands as a', 'highlighting the', 'highlights the', 'ensuring that', 'a testament to', 'in summary',
  'as a result', 'potential', 'significant', 'significantly', 'various', 'utilize', 'utilizing', 'enhance', 'enhancing',
];
const STOCK_SINGLE = STOCK_PHRASES.filter((p) => !p.includes(' '));
/** The multi-word phrases with the spaces they are matched between, in the joined words. */
const STOCK_MULTI = STOCK_PHRASES.filter((p) => p.includes(' ')).map((p) => ` ${p} `);
const TRANSITIONS = new Set(['however', 'furthermore', 'moreover', 'additionally', 'overall', 'ultimately', 'in', 'as', 'while', 'despite', 'although', 'this', 'these', 'with']);

/**
 * How a text's letters are read: words, "has a letter", a capitalised word, an acronym. The
 * Unicode properties (\p{L}, \p{Lu}, \p{Ll}) are what the features mean; for a text whose letters
 * all lie in Latin-1 (ASCII, and À–ÿ, ª µ º: English, and most Western European names and
 * words), explicit classes match exactly the same, without the Unicode property tables, which V8
 * builds on the first such regular expression a process runs: ~3 ms of a cold reading of 28,000
 * characters, a fifth of it. A test checks every code point the Latin-1 reading lets through.
 */
export interface Letters {
  words: RegExp;
  letter: RegExp;
  capitalised: RegExp;
  acronym: RegExp;
  /** Every capital letter changes when lower-cased: a word that lower-cases to itself has none. */
  capitalsChangeCase: boolean;
}
const UNICODE_LETTERS: Letters = {
  words: /[\p{L}]+(?:['’][\p{L}]+)*/gu,
  letter: /\p{L}/u,
  capitalised: /^\p{Lu}\p{Ll}/u,
  acronym: /^\p{Lu}+$/u,
  capitalsChangeCase: false, // not all: ϒ, ℂ …
};
const LATIN1_LETTERS: Letters = {
  words: /[A-Za-zªµºÀ-ÖØ-öø-ÿ]+(?:['’][A-Za-zªµºÀ-ÖØ-öø-ÿ]+)*/g,
  letter: /[A-Za-zªµºÀ-ÖØ-öø-ÿ]/,
  capitalised: /^[A-ZÀ-ÖØ-Þ][a-zµß-öø-ÿ]/,
  acronym: /^[A-ZÀ-ÖØ-Þ]+$/,
  capitalsChangeCase: true,
};
/**
 * A character that may be a letter beyond Latin-1: anything but Latin-1, general punctuation
 * (quotes, dashes, bullets, spaces), currency signs, ™, arrows, mathematical operators, box drawing
 * and geometric shapes, private-use characters and U+FFFD.
 */
const BEYOND_LATIN1_LETTERS = /[^\x00-\xff\u2000-\u206f\u20a0-\u20cf\u2122\u2190-\u22ff\u2500-\u25ff\ue000-\uf8ff\ufffd]/;
/** Whether every letter of `text` lies in Latin-1, so that the Latin-1 reading matches as the Unicode one would. */
export function lettersAreLatin1(text: string): boolean {
  return !BEYOND_LATIN1_LETTERS.test(text);
}
const lettersOf = (text: string): Letters => (lettersAreLatin1(text) ? LATIN1_LETTERS : UNICODE_LETTERS);
/** For the test that checks the Latin-1 reading against the Unicode one. */
export const LETTER_READINGS: { readonly latin1: Letters; readonly unicode: Letters } = { latin1: LATIN1_LETTERS, unicode: UNICODE_LETTERS };

/** A sentence-final abbreviation ("Dr.", "e.g."): the sentence goes on after it. */
export const ABBREV = /\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|Fig|al)\.$/;

export function splitSentences(text: string): string[] {
  return sentencesOf(text, lettersOf(text));
}

function sentencesOf(text: string, letters: Letters): string[] {
  const parts = text.split(/(?<=[.!?…]["'”’)\]]?)\s+/);
  const out: string[] = [];
  let buf = '';
  for (const p of parts) {
    buf = buf ? `${buf} ${p}` : p;
    // The abbreviation can only be the last word of the part just added: testing the part alone
    // keeps a run of "Dr. Dr. …" linear (the whole buffer made it quadratic).
    if (ABBREV.test(p)) continue;
    out.push(buf);
    buf = '';
  }
  if (buf) out.push(buf);
  return out.map((s) => s.trim()).filter((s) => letters.letter.test(s));
}

export function words(text: string): string[] {
  return wordsOf(text, lettersOf(text));
}

function wordsOf(text: string, letters: Letters): string[] {
  return text.match(letters.words) ?? [];
}

/**
 * Moving-average type-token ratio over windows of `window` words. `seq` is the text's lower-cased
 * words as ids (0, 1, 2 … in order of first occurrence) and `types` how many distinct ids it holds:
 * a count per id in a typed array does what a Map of words would, without hashing a string per word.
 */
function mattr(seq: Int32Array, types: number, window = 50): number {
  if (seq.length === 0) return 0;
  if (seq.length <= window) return types / seq.length;
  const counts = new Int32Array(types);
  let inWindow = 0;
  for (let i = 0; i < window; i++) if (counts[seq[i]!]!++ === 0) inWindow++;
  let sum = inWindow / window;
  for (let i = window; i < seq.length; i++) {
    if (--counts[seq[i - window]!]! === 0) inWindow--;
    if (counts[seq[i]!]!++ === 0) inWindow++;
    sum += inWindow / window;
  }
  return sum / (seq.length - window + 1);
}

/** At most this many characters are read: the features are rates and stabilise long before. */
export const MAX_FEATURE_CHARS = 60_000;

/** Lower-cased words as the features see them (the vocabulary table is keyed the same way). */
export function lowerWords(text: string): string[] {
  return words(text).map((w) => w.toLowerCase().replace(/’/g, "'"));
}

/** Word → log(frequency in machine text / frequency in human text); absent words count 0. */
export type Vocabulary = ReadonlyMap<string, number>;

export function vocabularyScore(lower: readonly string[], vocabulary: Vocabulary | undefined): number {
  if (!vocabulary || lower.length === 0) return 0;
  let sum = 0;
  for (const w of lower) sum += vocabulary.get(w) ?? 0;
  return sum / lower.length;
}

/** Lower-cased character 4-grams as the `char4_llr` table is keyed (digits folded to 0). */
export function char4Grams(text: string): string[] {
  const t = text.toLowerCase().replace(/\d/g, '0');
  const out: string[] = [];
  for (let i = 0; i + 4 <= t.length; i++) out.push(t.slice(i, i + 4));
  return out;
}

/**
 * A 4-gram table keyed by number: four ASCII codes packed into 28 bits (a small integer, the
 * cheapest Map key), so that scoring needs no substring per position; 4-grams with any other
 * character stay keyed by string. Built once per table.
 */
interface PackedTable { packed: Map<number, number>; other: Map<string, number> }
const packedTables = new WeakMap<Vocabulary, PackedTable>();
function packedOf(table: Vocabulary): PackedTable {
  let p = packedTables.get(table);
  if (!p) {
    const q: PackedTable = { packed: new Map(), other: new Map() };
    table.forEach((v, k) => addPacked(q, k, v));
    packedTables.set(table, (p = q));
  }
  return p;
}

function addPacked(p: PackedTable, k: string, v: number): void {
  if (k.length === 4) {
    const a = k.charCodeAt(0), b = k.charCodeAt(1), c = k.charCodeAt(2), d = k.charCodeAt(3);
    if ((a | b | c | d) <= 0x7f) {
      p.packed.set((a << 21) | (b << 14) | (c << 7) | d, v);
      return;
    }
  }
  p.other.set(k, v);
}

/**
 * A 4-gram table from its JSON form (a model's `char4`): the Map `new Map(Object.entries(entries))`
 * would give, with its packed form (packedOf) built in the same pass, where a cold process would
 * otherwise build the Map and then walk it again (~0.5 ms less of a CLI run's critical path).
 */
export function char4Table(entries: Readonly<Record<string, number>>): Vocabulary {
  const table = new Map<string, number>();
  const p: PackedTable = { packed: new Map(), other: new Map() };
  for (const k of Object.keys(entries)) {
    const v = entries[k]!;
    table.set(k, v);
    addPacked(p, k, v);
  }
  packedTables.set(table, p);
  return table;
}

/** Runs of characters beyond ASCII, for the 4-gram sum (found in order from `lastIndex`). */
const WIDE_RUN = /[^\x00-\x7f]+/g;

/** Mean table value of the text's character 4-grams, without building the list. */
function char4Score(text: string, table: Vocabulary | undefined): number {
  if (!table || text.length < 4) return 0;
  const t = text.toLowerCase().replace(/\d/g, '0');
  const { packed, other } = packedOf(table);
  // Windows in text order (each named by its last index `e`): those of four ASCII characters are
  // looked up by number, stretch by stretch between the runs of wider characters (asciiChar4Sum);
  // a window holding a wider character is looked up by its string. One regex search per run of
  // wide characters: a test of every character cost several times as much in a cold process (a
  // text with a few curly quotes or dashes). Absent 4-grams add nothing: the sum starts at +0 and
  // never becomes -0, so skipping `+ 0` is exact.
  let sum = 0;
  let from = 3; // the next window to add
  WIDE_RUN.lastIndex = 0;
  for (let m = WIDE_RUN.exec(t); m; m = WIDE_RUN.exec(t)) {
    const wideFrom = Math.max(from, m.index);
    const wideTo = Math.min(t.length, m.index + m[0].length + 3); // windows [e-3, e] that reach the run
    if (wideFrom > from) sum = asciiChar4Sum(t, packed, from, wideFrom, sum);
    if (other.size) for (let e = wideFrom; e < wideTo; e++) sum += other.get(t.slice(e - 3, e + 1)) ?? 0;
    from = Math.max(from, wideTo);
  }
  WIDE_RUN.lastIndex = 0;
  if (from < t.length) sum = asciiChar4Sum(t, packed, from, t.length, sum);
  return sum / (t.length - 3);
}

/**
 * `sum` plus `packed`'s values for the windows of four ASCII characters that end at `from` …
 * `to - 1`, in text order. A cold process runs this loop in V8's interpreter for most of a text's
 * characters (during a PDF's run V8 waits eight times longer before compiling: pdf-tiering.ts), so
 * every operation per character counts; four characters a turn halve the loop's own overhead
 * (-25–30 % of this loop's time on 28,639 characters), with the same additions in the same order.
 */
function asciiChar4Sum(t: string, packed: ReadonlyMap<number, number>, from: number, to: number, sum: number): number {
  let key = (t.charCodeAt(from - 3) << 14) | (t.charCodeAt(from - 2) << 7) | t.charCodeAt(from - 1);
  let v: number | undefined;
  let e = from;
  for (const n = to - 3; e < n; e += 4) {
    key = ((key << 7) | t.charCodeAt(e)) & 0xfffffff;
    if ((v = packed.get(key)) !== undefined) sum += v;
    key = ((key << 7) | t.charCodeAt(e + 1)) & 0xfffffff;
    if ((v = packed.get(key)) !== undefined) sum += v;
    key = ((key << 7) | t.charCodeAt(e + 2)) & 0xfffffff;
    if ((v = packed.get(key)) !== undefined) sum += v;
    key = ((key << 7) | t.charCodeAt(e + 3)) & 0xfffffff;
    if ((v = packed.get(key)) !== undefined) sum += v;
  }
  for (; e < to; e++) {
    key = ((key << 7) | t.charCodeAt(e)) & 0xfffffff;
    if ((v = packed.get(key)) !== undefined) sum += v;
  }
  return sum;
}

/**
 * The share of the opening sentence's distinct word pairs that occur again after it. `seq` is the
 * text's words as ids, `first` how many of them the first sentence holds.
 */
function openingBigramEcho(seq: Int32Array, first: number, types: number): number {
  if (first < 2 || first >= seq.length) return 0;
  // Word pairs keyed by two ids packed into one integer (ids < 2^17, as for the trigrams); only the
  // opening's few pairs are kept, and the scan stops once all of them have been seen again. A word
  // that opens none of them cannot open a pair seen again: no lookup for it (`opens`, by id).
  const seen = new Map<number, boolean>();
  const opens = new Uint8Array(types);
  for (let i = 0; i + 1 < first; i++) {
    seen.set(seq[i]! * 131072 + seq[i + 1]!, false);
    opens[seq[i]!] = 1;
  }
  let echoed = 0;
  for (let i = first; i + 1 < seq.length && echoed < seen.size; i++) {
    if (opens[seq[i]!] === 0) continue;
    const k = seq[i]! * 131072 + seq[i + 1]!;
    if (seen.get(k) === false) {
      seen.set(k, true);
      echoed++;
    }
  }
  return echoed / seen.size;
}

/** White space that `replace(/\s+/g, ' ')` would change: any but single spaces. */
const UNCOLLAPSED = /[^\S ]| {2}/;

/**
 * `text.replace(/\s+/g, ' ').trim()`, without the replace when it would change nothing (the
 * detector's prose is collapsed already, and a 60,000-character replace is not free in a cold process).
 */
export function collapseSpaces(text: string): string {
  return UNCOLLAPSED.test(text) ? text.replace(/\s+/g, ' ').trim() : text.trim();
}

/** `letters.capitalised.test(w)` (/^\p{Lu}\p{Ll}/u), deciding an ASCII first letter without the regex where it can. */
function isCapitalised(w: string, letters: Letters): boolean {
  const c = w.charCodeAt(0);
  if (c >= 0x41 && c <= 0x5a) {
    const d = w.charCodeAt(1); // NaN past the end
    return d >= 0x61 && d <= 0x7a ? true : d > 0x7f ? letters.capitalised.test(w) : false;
  }
  // An ASCII lower-case first letter cannot be upper case.
  return (c < 0x61 || c > 0x7a) && letters.capitalised.test(w);
}

/** `w.length >= 2 && letters.acronym.test(w)` (/^\p{Lu}+$/u), rejecting a capital and an ASCII lower-case letter without the regex. */
function isAcronym(w: string, letters: Letters): boolean {
  if (w.length < 2) return false;
  const c = w.charCodeAt(0);
  if (c >= 0x61 && c <= 0x7a) return false;
  const d = w.charCodeAt(1);
  return !(d >= 0x61 && d <= 0x7a) && letters.acronym.test(w);
}

// What each distinct word is, as bits: worked out once per word type, then counted per occurrence.
const LONG = 1, FUNCTION = 2, FIRST = 4, SECOND = 8, CONTRACTION = 16, STOCK = 32, ING = 64;
/**
 * The bits of the word lists (function words, first or else second person, stock words) in one
 * Map: one lookup per word type instead of four.
 */
const LIST_BITS = ((): ReadonlyMap<string, number> => {
  const m = new Map<string, number>();
  const add = (w: string, bit: number): void => void m.set(w, (m.get(w) ?? 0) | bit);
  for (const w of FUNCTION_WORDS) add(w, FUNCTION);
  for (const w of FIRST_PERSON) add(w, FIRST);
  for (const w of SECOND_PERSON) if (!FIRST_PERSON.includes(w)) add(w, SECOND);
  for (const w of STOCK_SINGLE) add(w, STOCK);
  return m;
})();

/** The text's words, sentence by sentence: each sentence's count, and the sentence-level counts. */
function sentenceWords(sentences: readonly string[], letters: Letters): { toks: string[]; perSentence: number[]; transitionStarts: number; lowercaseStarts: number } {
  const lists: string[][] = [];
  const perSentence: number[] = [];
  let transitionStarts = 0;
  let lowercaseStarts = 0;
  for (const s of sentences) {
    const ws = wordsOf(s, letters);
    lists.push(ws);
    perSentence.push(ws.length);
    if (TRANSITIONS.has((ws[0] ?? '').toLowerCase())) transitionStarts++;
    const c = s.charCodeAt(0);
    if (c >= 0x61 && c <= 0x7a) lowercaseStarts++;
  }
  // Sentences are cut at white space, which no word holds, and those without a letter hold no
  // word: their words, in order, are the text's. concat is ~10× quicker than flat() in a cold
  // process; flat() past 10,000 sentences keeps the arguments of one call bounded.
  const toks = lists.length === 1 ? lists[0]! : lists.length <= 10_000 ? ([] as string[]).concat(...lists) : lists.flat();
  return { toks, perSentence, transitionStarts, lowercaseStarts };
}

export function extractFeatures(input: string, vocabulary?: Vocabulary, char4?: Vocabulary): { features: FeatureVector; wordCount: number; sentenceCount: number } {
  const text = input.length > MAX_FEATURE_CHARS ? input.slice(0, MAX_FEATURE_CHARS) : input;
  // Sentences and words are read with explicit letter classes when the text's letters allow (Letters).
  const letters = lettersOf(text);
  const sentences = sentencesOf(collapseSpaces(text), letters);
  // One pass over the sentences' words: lengths, openers, and (below) capitalised words that do
  // not open a sentence (names, places, titles: human writers name specifics more often than models do).
  const { toks, perSentence: sentenceLengths, transitionStarts, lowercaseStarts } = sentenceWords(sentences, letters);
  const lens = sentenceLengths.filter((l) => l > 0);
  const mean = lens.length ? lens.reduce((a, b) => a + b, 0) / lens.length : 0;
  const sd = lens.length > 1 ? Math.sqrt(lens.reduce((a, b) => a + (b - mean) ** 2, 0) / (lens.length - 1)) : 0;

  // One pass over the words for every per-word count (the text may hold 10,000 words): each
  // lower-cased word gets an id (0, 1, 2 … in order of first occurrence: the order a Map of words
  // would iterate in), so that everything counted per word is an array index, and what a word is
  // (function word, contraction …) is worked out once per distinct word rather than per
  // occurrence. Capitalised words that do not open a sentence (names, places, titles) and acronyms
  // are counted on the words as written. The loop stays in this function, as its other loops: a
  // cold process runs it interpreted either way, and V8 compiles a small function that grows hot
  // at once (on its compiler threads, for more CPU than a single reading saves).
  const curly = text.includes('’');
  const ids = new Map<string, number>();
  const lower: string[] = new Array<string>(toks.length);
  const seq = new Int32Array(toks.length);
  const counts: number[] = [];
  const bits: number[] = [];
  const lengths: number[] = [];
  const llr: number[] = [];
  let vocab = 0, proper = 0, acronyms = 0;
  let nextStart = 0, sentence = 0;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const lowered = t.toLowerCase();
    const w = curly ? lowered.replace(/’/g, "'") : lowered;
    lower[i] = w;
    let id = ids.get(w);
    if (id === undefined) {
      ids.set(w, (id = counts.length));
      counts.push(0);
      let b = LIST_BITS.get(w) ?? 0;
      if (w.length >= 9) b |= LONG;
      if (w.includes("'") && /'(t|s|re|ve|ll|d|m)$/.test(w)) b |= CONTRACTION;
      if (w.length > 5 && w.endsWith('ing')) b |= ING;
      bits.push(b);
      lengths.push(w.length);
      llr.push(vocabulary?.get(w) ?? 0);
    }
    seq[i] = id;
    counts[id]!++;
    // Adding the +0 of a word without a value is exact: the sum is the same as adding only the others.
    if (vocabulary) vocab += llr[id]!;
    const opensSentence = i === nextStart;
    // Sentences without a word are passed over.
    if (opensSentence) while (nextStart === i && sentence < sentenceLengths.length) nextStart += sentenceLengths[sentence++]!;
    // In a Latin-1 text, a word that lower-cases to itself has no capital letter: neither test can
    // pass, and most words are spared both calls.
    if (!letters.capitalsChangeCase || lowered !== t) {
      if (!opensSentence && isCapitalised(t, letters)) proper++;
      if (isAcronym(t, letters)) acronyms++;
    }
  }
  const n = Math.max(1, lower.length);
  let chars = 0, long = 0, functionWords = 0, first = 0, second = 0, contractions = 0, stock = 0, ing = 0;
  let hapax = 0;
  let entropy = 0;
  // Per distinct word, in order of first occurrence (integer counts are exact in any order; the
  // entropy is summed in the order it always was).
  for (let id = 0; id < counts.length; id++) {
    const c = counts[id]!;
    const b = bits[id]!;
    chars += c * lengths[id]!;
    if (b !== 0) {
      if (b & LONG) long += c;
      if (b & FUNCTION) functionWords += c;
      if (b & FIRST) first += c;
      if (b & SECOND) second += c;
      if (b & CONTRACTION) contractions += c;
      if (b & STOCK) stock += c;
      if (b & ING) ing += c;
    }
    if (c === 1) hapax++;
    entropy -= (c / n) * Math.log(c / n);
  }

  // Trigrams keyed by three word ids packed into one integer (ids < 2^17: a 60,000-character text
  // has far fewer distinct words), which is much cheaper than joining strings. With at most 1,023
  // distinct words (every passage window, short texts) the ids are packed by that count instead:
  // the key stays below 2^30, a small integer, which V8 hashes without allocating a number.
  const base = counts.length <= 1023 ? counts.length : 131072;
  const trigrams = new Map<number, number>();
  for (let i = 0; i + 2 < seq.length; i++) {
    const k = (seq[i]! * base + seq[i + 1]!) * base + seq[i + 2]!;
    trigrams.set(k, (trigrams.get(k) ?? 0) + 1);
  }
  let repeated = 0;
  for (const c of trigrams.values()) if (c > 1) repeated += c;
  // The first sentence's words are the first `lens[0]` of the text's (sentences hold a letter, so
  // every one has a word, and splitting at spaces never splits a word).
  const bigramEcho = sentences.length >= 2 ? openingBigramEcho(seq, lens[0] ?? 0, counts.length) : 0;

  const joined = ` ${lower.join(' ')} `;
  for (const p of STOCK_MULTI) {
    let i = joined.indexOf(p);
    while (i >= 0) {
      stock++;
      i = joined.indexOf(p, i + 1);
    }
  }

  const count = (re: RegExp): number => (text.match(re) ?? []).length;
  const per100 = (x: number): number => (100 * x) / n;
  const perSentence = (x: number): number => x / Math.max(1, sentences.length);

  const features: FeatureVector = {
    sentence_len_mean: mean,
    sentence_len_cv: mean > 0 ? sd / mean : 0,
    mattr50: mattr(seq, counts.length),
    hapax_ratio: hapax / n,
    word_len_mean: chars / n,
    long_word_rate: long / n,
    function_word_rate: functionWords / n,
    first_person_rate: per100(first),
    second_person_rate: per100(second),
    contraction_rate: per100(contractions),
    // Commas between words only: thousands separators in numbers (3,199) are not style.
    comma_rate: per100(count(/,(?!\d)/g)),
    semicolon_colon_rate: per100(count(/[;:]/g)),
    dash_rate: per100(count(/—|–| - |--/g)),
    paren_rate: per100(count(/\(/g)),
    quote_rate: per100(count(/["“”]/g)),
    question_exclaim_rate: perSentence(count(/[?!]/g)),
    trigram_repeat_rate: repeated / Math.max(1, lower.length - 2),
    stock_phrase_rate: per100(stock),
    transition_start_rate: perSentence(transitionStarts),
    lowercase_start_rate: perSentence(lowercaseStarts),
    digit_rate: per100(count(/\d+/g)),
    ing_rate: per100(ing),
    proper_noun_rate: per100(proper),
    acronym_rate: per100(acronyms),
    serial_comma_rate: per100(count(/, (?:and|or) /g)),
    long_sentence_share: lens.length ? lens.filter((l) => l > 30).length / lens.length : 0,
    vocabulary_llr: vocabulary && lower.length ? vocab / lower.length : 0,
    char4_llr: char4Score(text, char4),
    word_entropy_norm: lower.length > 1 ? entropy / Math.log(lower.length) : 0,
    opening_bigram_echo: bigramEcho,
  };
  return { features, wordCount: toks.length, sentenceCount: sentences.length };
}
