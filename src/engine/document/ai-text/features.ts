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

const FUNCTION_WORDS = new Set(
  'a an the and but or nor so yet of in on at by for with from to into onto upon about as than that this these those which who whom whose what when where why how if then there here it its is are was were be been being have has had do does did not no can could will would shall should may might must just very also only even still'.split(' '),
);
const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours']);
const SECOND_PERSON = new Set(['you', 'your', 'yours', 'yourself']);

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
const STOCK_SINGLE = new Set(STOCK_PHRASES.filter((p) => !p.includes(' ')));
const STOCK_MULTI = STOCK_PHRASES.filter((p) => p.includes(' '));
const TRANSITIONS = new Set(['however', 'furthermore', 'moreover', 'additionally', 'overall', 'ultimately', 'in', 'as', 'while', 'despite', 'although', 'this', 'these', 'with']);

const WORD_RE = /[\p{L}]+(?:['’][\p{L}]+)*/gu;
/** A sentence-final abbreviation ("Dr.", "e.g."): the sentence goes on after it. */
export const ABBREV = /\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|Fig|al)\.$/;

export function splitSentences(text: string): string[] {
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
  return out.map((s) => s.trim()).filter((s) => /\p{L}/u.test(s));
}

export function words(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

function mattr(tokens: readonly string[], window = 50): number {
  if (tokens.length === 0) return 0;
  if (tokens.length <= window) return new Set(tokens).size / tokens.length;
  const counts = new Map<string, number>();
  let types = 0;
  for (let i = 0; i < window; i++) {
    const t = tokens[i]!;
    const c = counts.get(t) ?? 0;
    if (c === 0) types++;
    counts.set(t, c + 1);
  }
  let sum = types / window;
  for (let i = window; i < tokens.length; i++) {
    const out = tokens[i - window]!;
    const co = counts.get(out)! - 1;
    counts.set(out, co);
    if (co === 0) types--;
    const t = tokens[i]!;
    const c = counts.get(t) ?? 0;
    if (c === 0) types++;
    counts.set(t, c + 1);
    sum += types / window;
  }
  return sum / (tokens.length - window + 1);
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
    p = { packed: new Map(), other: new Map() };
    for (const [k, v] of table) {
      if (k.length === 4 && /^[\x00-\x7f]{4}$/.test(k)) p.packed.set((k.charCodeAt(0) << 21) | (k.charCodeAt(1) << 14) | (k.charCodeAt(2) << 7) | k.charCodeAt(3), v);
      else p.other.set(k, v);
    }
    packedTables.set(table, p);
  }
  return p;
}

/** Mean table value of the text's character 4-grams, without building the list. */
function char4Score(text: string, table: Vocabulary | undefined): number {
  if (!table || text.length < 4) return 0;
  const t = text.toLowerCase().replace(/\d/g, '0');
  const { packed, other } = packedOf(table);
  let sum = 0;
  let key = 0;
  let wide = -1; // index of the latest non-ASCII code: windows holding it use the string table
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c > 0x7f) wide = i;
    key = ((key << 7) | (c & 0x7f)) & 0xfffffff;
    if (i < 3) continue;
    if (wide > i - 4) {
      if (other.size) sum += other.get(t.slice(i - 3, i + 1)) ?? 0;
    } else sum += packed.get(key) ?? 0;
  }
  return sum / (t.length - 3);
}

/**
 * The share of the opening sentence's distinct word pairs that occur again after it. `seq` is the
 * text's words as ids, `first` how many of them the first sentence holds.
 */
function openingBigramEcho(seq: readonly number[], first: number): number {
  if (first < 2 || first >= seq.length) return 0;
  // Word pairs keyed by two ids packed into one integer (ids < 2^17, as for the trigrams); only the
  // opening's few pairs are kept, and the scan stops once all of them have been seen again.
  const seen = new Map<number, boolean>();
  for (let i = 0; i + 1 < first; i++) seen.set(seq[i]! * 131072 + seq[i + 1]!, false);
  let echoed = 0;
  for (let i = first; i + 1 < seq.length && echoed < seen.size; i++) {
    const k = seq[i]! * 131072 + seq[i + 1]!;
    if (seen.get(k) === false) {
      seen.set(k, true);
      echoed++;
    }
  }
  return echoed / seen.size;
}

/** Cheap pre-test before a Unicode regex: an ASCII lower-case first letter cannot be upper case. */
const mayBeUpper = (w: string): boolean => {
  const c = w.charCodeAt(0);
  return c < 0x61 || c > 0x7a;
};

export function extractFeatures(input: string, vocabulary?: Vocabulary, char4?: Vocabulary): { features: FeatureVector; wordCount: number; sentenceCount: number } {
  const text = input.length > MAX_FEATURE_CHARS ? input.slice(0, MAX_FEATURE_CHARS) : input;
  const sentences = splitSentences(text.replace(/\s+/g, ' ').trim());
  const toks = words(text);
  const lower = toks.map((w) => w.toLowerCase().replace(/’/g, "'"));
  const n = Math.max(1, lower.length);
  // One pass over the sentences' words: lengths, openers, and capitalised words that do not open
  // a sentence (names, places, titles: human writers name specifics more often than models do).
  const lens: number[] = [];
  let proper = 0;
  let transitionStarts = 0;
  let lowercaseStarts = 0;
  for (const s of sentences) {
    const ws = words(s);
    if (ws.length) lens.push(ws.length);
    if (TRANSITIONS.has((ws[0] ?? '').toLowerCase())) transitionStarts++;
    if (/^[a-z]/.test(s)) lowercaseStarts++;
    for (let i = 1; i < ws.length; i++) if (mayBeUpper(ws[i]!) && /^\p{Lu}\p{Ll}/u.test(ws[i]!)) proper++;
  }
  const mean = lens.length ? lens.reduce((a, b) => a + b, 0) / lens.length : 0;
  const sd = lens.length > 1 ? Math.sqrt(lens.reduce((a, b) => a + (b - mean) ** 2, 0) / (lens.length - 1)) : 0;

  // One pass over the words for every per-word count (the text may hold 10,000 words).
  const freq = new Map<string, number>();
  let chars = 0, long = 0, functionWords = 0, first = 0, second = 0, contractions = 0, stock = 0, ing = 0, acronyms = 0, vocab = 0;
  for (let i = 0; i < lower.length; i++) {
    const w = lower[i]!;
    freq.set(w, (freq.get(w) ?? 0) + 1);
    chars += w.length;
    if (w.length >= 9) long++;
    if (FUNCTION_WORDS.has(w)) functionWords++;
    if (FIRST_PERSON.has(w)) first++;
    else if (SECOND_PERSON.has(w)) second++;
    if (w.includes("'") && /'(t|s|re|ve|ll|d|m)$/.test(w)) contractions++;
    if (STOCK_SINGLE.has(w)) stock++;
    if (w.length > 5 && w.endsWith('ing')) ing++;
    const t = toks[i]!;
    if (t.length >= 2 && mayBeUpper(t) && /^\p{Lu}+$/u.test(t)) acronyms++;
    if (vocabulary) vocab += vocabulary.get(w) ?? 0;
  }
  let hapax = 0;
  let entropy = 0;
  for (const c of freq.values()) {
    if (c === 1) hapax++;
    entropy -= (c / n) * Math.log(c / n);
  }

  // Trigrams keyed by three word ids packed into one integer (ids < 2^17: a 60,000-character text
  // has far fewer distinct words), which is much cheaper than joining strings.
  const ids = new Map<string, number>();
  const seq = lower.map((w) => {
    let id = ids.get(w);
    if (id === undefined) ids.set(w, (id = ids.size));
    return id;
  });
  const trigrams = new Map<number, number>();
  for (let i = 0; i + 2 < seq.length; i++) {
    const k = (seq[i]! * 131072 + seq[i + 1]!) * 131072 + seq[i + 2]!;
    trigrams.set(k, (trigrams.get(k) ?? 0) + 1);
  }
  let repeated = 0;
  for (const c of trigrams.values()) if (c > 1) repeated += c;
  // The first sentence's words are the first `lens[0]` of the text's (sentences hold a letter, so
  // every one has a word, and splitting at spaces never splits a word).
  const bigramEcho = sentences.length >= 2 ? openingBigramEcho(seq, lens[0] ?? 0) : 0;

  const joined = ` ${lower.join(' ')} `;
  for (const p of STOCK_MULTI) {
    let i = joined.indexOf(` ${p} `);
    while (i >= 0) {
      stock++;
      i = joined.indexOf(` ${p} `, i + 1);
    }
  }

  const count = (re: RegExp): number => (text.match(re) ?? []).length;
  const per100 = (x: number): number => (100 * x) / n;
  const perSentence = (x: number): number => x / Math.max(1, sentences.length);

  const features: FeatureVector = {
    sentence_len_mean: mean,
    sentence_len_cv: mean > 0 ? sd / mean : 0,
    mattr50: mattr(lower),
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
