import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeAiText, proseForDetection } from '../../../src/engine/document/ai-text/analyze.js';
import { DEFAULT_MODEL, detectAiTextStylometric } from '../../../src/engine/document/ai-text/detector.js';
import { char4Grams, extractFeatures, LETTER_READINGS, lettersAreLatin1, lowerWords, splitSentences, words } from '../../../src/engine/document/ai-text/features.js';
import { aiTextPassages, sentenceWindows } from '../../../src/engine/document/ai-text/passages.js';
import { describeFixtures, fixture } from '../../helpers/fixtures.js';
import { PROSE_HUMAN, testPorts } from './build.js';

// The detector's outputs pinned to the last bit. Its passes over the text were rewritten for a
// cheaper cold start (issue 31: fewer passes, one Map lookup per word, work per distinct word);
// the model and the features' definitions did not change, so neither may any number, finding or
// passage. The digests below were recorded from the implementation before that rewrite: a change
// to any feature, probability, cue or offset of any text here changes them.

const AI_STYLE =
  'Artificial intelligence plays a crucial role in modern healthcare, offering significant potential to enhance patient outcomes. Furthermore, it enables clinicians to navigate complex datasets with remarkable efficiency. Additionally, machine learning models can identify intricate patterns that might otherwise remain hidden. Moreover, these tools foster collaboration across multidisciplinary teams, ensuring that care remains comprehensive and holistic. Ultimately, the integration of these technologies represents a pivotal shift, underscoring the importance of thoughtful implementation. Overall, it is important to note that careful oversight remains paramount.';

/** The text of bench/small-files.mjs's 10-page PDF, as its lines. */
function tenPages(): string {
  const para = 'The parties agree that the supplier shall deliver the goods described in Schedule A no later than thirty days after the purchase order date, and that payment falls due within forty-five days of a correct invoice. ';
  const lines: string[] = [];
  for (let p = 0; p < 10; p++) for (let l = 0; l < 30; l++) lines.push(`${p + 1}.${l + 1} ${para.slice((l * 7) % 60, ((l * 7) % 60) + 90)}`);
  return lines.join('\n');
}

/** Seeded pseudo-random prose: words, stock phrases, names, acronyms, numbers, every kind of punctuation and white space the features read. */
function randomTexts(count: number, seed: number): string[] {
  let s = seed;
  const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const common = 'the a of and to in is it that was for on are as with his they I at be this have from or one had by but not what all were we when your can said there an each which she do how their if will up other about out many then them these so some her would like him into time has look two more see no way could people my than first been who its now find long down day did get come made may part however while despite although'.split(' ');
  const marked = ['delve', 'tapestry', 'crucial', 'moreover', 'Furthermore', 'pivotal', 'notably', 'overall', 'significant', 'enhance', 'Dr.', 'e.g.', 'etc.', 'Mrs.', 'U.S.', 'NASA', 'COVID-19', 'it’s', "don't", 'we’ve', "I'm", 'Straße', 'İzmir', 'ΟΔΟΣ', 'ǅemal', '𝐀bc', '中文', 'ﬁne', 'e\u0301', 'naïve', 'Über', 'x\uD800y', '3,199', '2024', '1.5', 'shed light', 'it is important to note', 'in conclusion', 'plays a crucial role', "in today's", 'Smith', 'London', 'IBM', "O'Brien", 'running', 'thing'];
  const punctuation = ['', '', '', '', ',', ',', '.', '.', '!', '?', ';', ':', '…', '."', '.”', '.’', '.)', ' —', ' -', ' --', ' –', ' (', ')', '"', '“', '”', "'", '’'];
  const space = [' ', ' ', ' ', ' ', ' ', ' ', '  ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u2028', '\u3000'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = '';
    const n = Math.floor(rnd() < 0.1 ? rnd() * 2000 : rnd() * 300);
    for (let j = 0; j < n; j++) {
      let w = rnd() < 0.85 ? pick(common) : pick(marked);
      const r = rnd();
      if (r < 0.12) w = w[0]!.toUpperCase() + w.slice(1);
      else if (r < 0.14) w = w.toUpperCase();
      t += w + pick(punctuation) + pick(space);
    }
    out.push(rnd() < 0.3 ? ` ${t}` : t.trimEnd());
  }
  return out;
}

/**
 * Exactly `n` distinct letter-only words, each twice (in order, then reversed), in sentences of
 * twelve: features.ts packs the word trigrams' keys by the vocabulary's size up to 1,023 distinct
 * words, otherwise by 2^17.
 */
function distinctWords(n: number): string {
  const word = (i: number): string => {
    let w = '';
    do {
      w += String.fromCharCode(97 + (i % 26));
      i = Math.floor(i / 26);
    } while (i > 0);
    return `q${w}`;
  };
  const ws = Array.from({ length: n }, (_, i) => word(i));
  let t = '';
  [...ws, ...ws.slice().reverse()].forEach((w, i) => {
    t += i % 12 === 0 ? `${i ? '. ' : ''}${w[0]!.toUpperCase()}${w.slice(1)}` : ` ${w}`;
  });
  return `${t}.`;
}

const TEXTS: Record<string, string> = {
  empty: '',
  short: 'Dr. Dr. Dr. Who? Nobody knows.',
  formal: AI_STYLE,
  human: PROSE_HUMAN,
  punctuation: 'NASA and the U.S. (COVID-19) — 3,199 cases; 1.5% “quoted” ‘single’ — it’s, don’t, we’ve, I’m: A - b -- c – d. Who knew? Nobody! etc. e.g. i.e. al. No. Fig. vs. Mr. Mrs. Ms. Prof. St. Jr. Sr. The end, and more, or less.',
  unicode: 'ΟΔΟΣ. ΑΣ.Β ΣΑΣ’Σ. İstanbul İİ is big. ǅemal ǈ ǋ. 𝐀𝐁 𝐀bc 𐐀𐐨 test. 中文 字 ok! e\u0301te ﬁne ﬂow. \uD800 lone \uDC00 surrogates. Straße ÆON naïve Über.',
  whitespace: 'word\u00a0word\u2028word\u3000word\ufeffword\tword\r\nline one two\rline three four\n\nline five six  seven',
  layout: [...Array.from({ length: 12 }, (_, i) => `Page ${i} header`), ...randomTexts(12, 7)].join('\n'),
  tenPages: tenPages(),
  long: randomTexts(40, 11).join(' ').repeat(3),
  words1023: distinctWords(1023),
  words1024: distinctWords(1024),
};

/** Every number to the bit (-0, NaN and infinities spelt out), in one string. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' ? (Object.is(x, -0) ? '-0' : Number.isFinite(x) ? x : String(x)) : x));
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

async function outputsOf(text: string): Promise<string> {
  const style = detectAiTextStylometric(text);
  const prose = proseForDetection(text);
  const analysis = await analyzeAiText(text, { config: testPorts().config, http: testPorts().http });
  return canonical({
    sentences: splitSentences(text),
    words: words(text),
    lower: lowerWords(text),
    char4: char4Grams(text.slice(0, 3000)),
    features: extractFeatures(text),
    style: { ...style, model: undefined },
    prose,
    windows: sentenceWindows(prose, DEFAULT_MODEL.min_flag_words),
    passages: aiTextPassages(prose, DEFAULT_MODEL),
    analysis,
  });
}

const PINNED: Record<string, string> = {
  empty: 'b21e2c0511297bb54428e0d668d94c65d4e4958a29efa6386bab0708b77efc6b',
  short: '177f6bea50d5713ea93f1bde2f4675c8bc46745b7b3f20f370deba2c9e2336e8',
  formal: '6ec303e16a6f9c792674ac926d946999715a28210c96506e4ba397b48cd1d573',
  human: '36a2696c91c39ce0df7eabc34fbdb6b30f399e73e00401bfe7a0ace9c4515209',
  punctuation: '522931ade7d9b141e76d811b2ec5005cdf246d8d9afe8cd6f4840c96843ad77c',
  unicode: 'aa8d3ed04686433f0763f5098345efb17c80c0e80b5e9c2c28cc66eab6bde07e',
  whitespace: '96ddb3f4759e52377675b297c71f845b863d45f0ea97ad27d114a07fe58168c6',
  layout: 'b0fef5c131327a87bcb97ca092e7009a9e97cc90fa7488cef153c0f565695e8a',
  tenPages: '99d6f70128a2632af51d3e2718769b9ac1aee772f43972038b9e87112af2d676',
  long: 'de5fe1d04f062f3d6d044d34a72de16f66735eb57e2c18b6bc9ce14ad8fa01a1',
  // Recorded later, from the same implementation before the rewrite (its commit, 4f3b142's sources).
  words1023: '56138e394c2e240e39f3b3ada28f5cb9fbfa316c6f8fa7f14fe28d42ac9ed2ab',
  words1024: 'b188c34e533332a6b9e030f3e1dde733b89658101b0b8896c552d08526d13f36',
};

describe('AI-text detector outputs, pinned to the bit', () => {
  it('gives every text the features, probabilities, findings and passages recorded before its passes were rewritten', async () => {
    const got: Record<string, string> = {};
    for (const [name, text] of Object.entries(TEXTS)) got[name] = sha(await outputsOf(text));
    expect(got).toEqual(PINNED);
  });

  it('reads the 10-page text to the bit (its features spelt out)', () => {
    expect(detectAiTextStylometric(proseForDetection(TEXTS.tenPages!)).features).toEqual({
      sentence_len_mean: 4880,
      sentence_len_cv: 0,
      mattr50: 0.4177188987787371,
      hapax_ratio: 0,
      word_len_mean: 4.565573770491803,
      long_word_rate: 0.06147540983606557,
      function_word_rate: 0.42827868852459017,
      first_person_rate: 0,
      second_person_rate: 0,
      contraction_rate: 0,
      comma_rate: 0.819672131147541,
      semicolon_colon_rate: 0,
      dash_rate: 0,
      paren_rate: 0,
      quote_rate: 0,
      question_exclaim_rate: 0,
      trigram_repeat_rate: 1,
      stock_phrase_rate: 0,
      transition_start_rate: 0,
      lowercase_start_rate: 0,
      digit_rate: 12.295081967213115,
      ing_rate: 0,
      proper_noun_rate: 6.331967213114754,
      acronym_rate: 0,
      serial_comma_rate: 0.6147540983606558,
      long_sentence_share: 1,
      vocabulary_llr: -0.04128913934426191,
      char4_llr: -0.061783936303952125,
      word_entropy_norm: 0.37827435259747727,
      opening_bigram_echo: 0,
    });
  });

  it('gives 200 seeded random texts the outputs recorded before the rewrite', async () => {
    const h = createHash('sha256');
    for (const t of randomTexts(200, 31)) h.update(await outputsOf(t));
    expect(h.digest('hex')).toBe('dccc5bed2a2c0c5db9980580d3a70b9d77090ebeca8beeb3f2d824523c68b386');
  });
});

describe('the Latin-1 reading of the features', () => {
  it('is used only for text whose letters all lie in Latin-1, where it reads every code point it lets through as the Unicode reading does', () => {
    const { latin1, unicode } = LETTER_READINGS;
    const same = (re: 'letter' | 'capitalised' | 'acronym', t: string): boolean => latin1[re].test(t) === unicode[re].test(t);
    const sameWords = (t: string): boolean => JSON.stringify(t.match(latin1.words)) === JSON.stringify(t.match(unicode.words));
    const wrong: string[] = [];
    let through = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const ch = String.fromCodePoint(cp);
      if (!lettersAreLatin1(ch)) continue;
      through++;
      const ok =
        same('letter', ch) &&
        [`${ch}a`, `${ch}A`, `A${ch}`, `Z${ch}x`, ch].every((t) => same('capitalised', t)) &&
        [ch, `${ch}${ch}`, `A${ch}`, `${ch}A`, `AB${ch}`].every((t) => same('acronym', t)) &&
        [ch, `a${ch}b`, `${ch}'${ch}`, `x’${ch}`, `${ch}’y z`].every(sameWords) &&
        // A word that lower-cases to itself has no capital letter (capitalsChangeCase).
        (!/\p{Lu}/u.test(ch) || ch.toLowerCase() !== ch);
      if (!ok) wrong.push(cp.toString(16));
    }
    expect(wrong).toEqual([]);
    expect(through).toBeGreaterThan(7000);
    expect(latin1.capitalsChangeCase).toBe(true);
    expect(lettersAreLatin1('plain “quoted” text – with • bullets, 3 €, ™ and café, Müller, naïve, µm, ª')).toBe(true);
    for (const t of ['ﬁne', 'İ', 'Ł', 'ΟΔΟΣ', '𝐀', '\uD835', 'ǅ']) expect(lettersAreLatin1(t)).toBe(false);
  });
});

describeFixtures('AI-text detector outputs on the shared text fixtures, pinned to the bit', () => {
  it('gives the 600 glimpse texts the features, probabilities and passages recorded before the rewrite', () => {
    const rows = readFileSync(fixture('text', 'ai-vs-human-glimpse.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);
    const h = createHash('sha256');
    for (const t of rows) {
      const prose = proseForDetection(t);
      const style = detectAiTextStylometric(prose);
      h.update(canonical({ features: style.features, p: style.probability, c: style.contributions, passages: aiTextPassages(prose, DEFAULT_MODEL, style) }));
    }
    expect(h.digest('hex')).toBe('37d0d9488e23af4b72c3629fdc6ced8449ea97d36b9d36984b3e8f2b7950178c');
  });
});
