/**
 * The passages that drove an AI-text probability, for reports to highlight: the analysed prose is
 * cut into windows of whole sentences holding at least `min_flag_words` words each (the length from
 * which the model's probability stands unshrunk), every window is scored by the same calibrated
 * model, and the windows most like machine text are returned with the features that pushed each
 * one that way, in plain words.
 *
 * A long text has at most MAX_SCORED_WINDOWS windows scored, spread evenly over it.
 *
 * Offsets are into the text the detector analysed (`proseForDetection`'s output: layout lines
 * dropped, whitespace collapsed), so `text.slice(start, end)` is the window.
 */
import { ABBREV, extractFeatures, MAX_FEATURE_CHARS, words, type FeatureName, type FeatureVector } from './features.js';
import { char4Of, scoreFeatures, vocabularyOf, type AiTextModel } from './model.js';

export interface AiTextPassage {
  start: number;
  end: number;
  /** The window's text, at most EXCERPT_CHARS characters (cut at a word, with "…"). */
  excerpt: string;
  /** The model's probability for the window alone (length-shrunk only if the whole text is short). */
  probability: number;
  /** 1–3 plain-language reasons: the features that pushed this window most towards AI. */
  cues: string[];
}

export const MAX_PASSAGES = 5;
export const EXCERPT_CHARS = 300;
/** Windows formed at most: past this the features would not have read the text anyway. */
const MAX_WINDOWS = 200;
/**
 * Windows scored at most (each costs a feature extraction): a longer text has this many scored,
 * spread evenly over it, so a report can still point anywhere in the document while a 60,000-
 * character text costs about a fifth more than the whole-text reading, not double.
 */
export const MAX_SCORED_WINDOWS = 24;

/** At most `k` items of `xs`, evenly spaced, first and last included. */
function spread<T>(xs: T[], k: number): T[] {
  if (xs.length <= k) return xs;
  return Array.from({ length: k }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (k - 1))]!);
}

/**
 * Each feature in plain words, for the direction in which it pushed towards AI: [when the window's
 * value is above the fitted mean, when below]. A cue is only ever shown for a positive push.
 */
const CUE: Record<FeatureName, [string, string]> = {
  sentence_len_mean: ['long sentences', 'short sentences'],
  sentence_len_cv: ['sentence lengths that vary a lot', 'sentences of even length'],
  mattr50: ['varied vocabulary', 'repetitive vocabulary'],
  hapax_ratio: ['many one-off words', 'few one-off words'],
  word_len_mean: ['long words', 'short words'],
  long_word_rate: ['many long words', 'few long words'],
  function_word_rate: ['many function words', 'few function words'],
  first_person_rate: ['first-person voice', 'little first-person voice'],
  second_person_rate: ['addresses the reader', 'does not address the reader'],
  contraction_rate: ['many contractions', 'few contractions'],
  comma_rate: ['many commas', 'few commas'],
  semicolon_colon_rate: ['many semicolons and colons', 'few semicolons or colons'],
  dash_rate: ['many dashes', 'few dashes'],
  paren_rate: ['many parentheses', 'few parentheses'],
  quote_rate: ['many quotations', 'few quotations'],
  question_exclaim_rate: ['questions and exclamations', 'no questions or exclamations'],
  trigram_repeat_rate: ['repeated phrases', 'few repeated phrases'],
  stock_phrase_rate: ['stock phrasing ("crucial", "moreover", "it is important to note")', 'little stock phrasing'],
  transition_start_rate: ['sentences opening with transitions', 'few transition openers'],
  lowercase_start_rate: ['lower-case sentence starts', 'sentences always start with a capital'],
  digit_rate: ['many numbers', 'few numbers'],
  ing_rate: ['many -ing words', 'few -ing words'],
  proper_noun_rate: ['many names', 'few names or specifics'],
  acronym_rate: ['many acronyms', 'few acronyms'],
  serial_comma_rate: ['serial commas (", and")', 'few serial commas'],
  long_sentence_share: ['many very long sentences', 'no very long sentences'],
  vocabulary_llr: ['word choice typical of AI text', 'word choice typical of human text'],
  char4_llr: ['letter patterns typical of AI text', 'letter patterns typical of human text'],
  word_entropy_norm: ['evenly spread vocabulary', 'the same words used again and again'],
  opening_bigram_echo: ['repeats phrases of its opening sentence', 'does not repeat its opening phrases'],
};

/** Sentence spans (offsets into `text`), split as the features split them: after . ! ? … and an optional closing quote or bracket. */
function sentenceSpans(text: string): { start: number; end: number; words: number }[] {
  const spans: { start: number; end: number; words: number }[] = [];
  const re = /[.!?…]["'”’)\]]?(?=\s)/g;
  let start = 0;
  const push = (end: number): void => {
    const s = text.slice(start, end);
    const lead = s.length - s.trimStart().length;
    const n = words(s).length;
    if (n > 0) spans.push({ start: start + lead, end: start + s.trimEnd().length, words: n });
  };
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const end = m.index + m[0].length;
    // Only the last word can be an abbreviation: testing it alone keeps a run of "Dr. Dr. …" linear.
    if (ABBREV.test(text.slice(Math.max(start, text.lastIndexOf(' ', end - 1) + 1), end))) continue;
    push(end);
    start = end;
  }
  if (start < text.length) push(text.length);
  return spans;
}

/** Consecutive sentences grouped into windows of ≥ minWords words; a short tail joins the window before it. */
export function sentenceWindows(text: string, minWords: number): { start: number; end: number }[] {
  const spans = sentenceSpans(text.length > MAX_FEATURE_CHARS ? text.slice(0, MAX_FEATURE_CHARS) : text);
  const out: { start: number; end: number; words: number }[] = [];
  let cur: { start: number; end: number; words: number } | null = null;
  for (const s of spans) {
    if (!cur) cur = { ...s };
    else {
      cur.end = s.end;
      cur.words += s.words;
    }
    if (cur.words >= minWords) {
      out.push(cur);
      cur = null;
      if (out.length >= MAX_WINDOWS) break;
    }
  }
  if (cur) {
    const last = out[out.length - 1];
    if (last) {
      last.end = cur.end;
      last.words += cur.words;
    } else out.push(cur);
  }
  return out.map(({ start, end }) => ({ start, end }));
}

function excerptOf(s: string): string {
  if (s.length <= EXCERPT_CHARS) return s;
  const cut = s.slice(0, EXCERPT_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > EXCERPT_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** What extractFeatures gave for the whole of `text` (the detector measured it already). */
export interface WholeTextFeatures {
  features: FeatureVector;
  wordCount: number;
}

/**
 * Up to MAX_PASSAGES windows of `text` (the analysed prose), most machine-like first. `whole`: the
 * features of all of `text` with `model`'s tables, when the caller has them. A window that is the
 * whole text (prose with too few sentence ends to cut, or under two windows' worth of words) then
 * reuses them instead of measuring the same string again: the same function of the same string,
 * ~10 ms less for a 30,000-character text.
 */
export function aiTextPassages(text: string, model: AiTextModel, whole?: WholeTextFeatures): AiTextPassage[] {
  const vocabulary = vocabularyOf(model);
  const char4 = char4Of(model);
  const scored = spread(sentenceWindows(text, model.min_flag_words), MAX_SCORED_WINDOWS).map((w) => {
    const slice = text.slice(w.start, w.end);
    const { features, wordCount } = whole && slice === text ? whole : extractFeatures(slice, vocabulary, char4);
    const s = scoreFeatures(model, features, wordCount);
    if (!s.enoughText) return null;
    const i = (name: FeatureName): number => model.features.indexOf(name);
    const cues = s.contributions
      .filter((c) => c.logit > 0)
      .slice(0, 3)
      .map((c) => CUE[c.feature]?.[c.value >= (model.mean[i(c.feature)] ?? 0) ? 0 : 1] ?? c.feature.replace(/_/g, ' '));
    return { start: w.start, end: w.end, excerpt: excerptOf(slice), probability: round3(s.probability), cues };
  });
  return scored
    .filter((p): p is AiTextPassage => p !== null)
    .sort((a, b) => b.probability - a.probability || a.start - b.start)
    .slice(0, MAX_PASSAGES);
}
