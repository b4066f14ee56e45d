/**
 * Text handling for claim checking: tokens, a light English stemmer, stop words, sentences,
 * numbers and years. Deliberately small and dependency-free; other languages get tokenization and
 * matching without stemming or stop words beyond a short list.
 */

export const STOPWORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from as into onto over under about against between ' +
    'through during before after above below up down out off again further once here there when where why how all any ' +
    'both each few more most other some such only own same so than too very can will just should now is are was were be ' +
    'been being have has had having do does did doing i me my we our you your he him his she her it its they them their ' +
    'what which who whom this that these those am would could also said says say says according claim claims claimed ' +
    'one two us new like get got make made via per while since until within without upon whether ' +
    // a few frequent forms in other Latin-script languages
    'de la le les el los las et y e o un une una del des der die das und ist im en que por para il lo di da na no ' +
    'não nicht pas'
  ).split(/\s+/),
);

/** Word tokens, lowercased; keeps 1,000 and 3.5 and don't together. */
export function words(s: string): string[] {
  return s.toLowerCase().match(/[\p{L}\p{N}]+(?:['’.,][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Plural / tense suffix stripping (English); leaves short words and numbers alone. */
export function stem(w: string): string {
  if (w.length <= 4 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 5) return w.slice(0, -3) + 'y';
  if (w.endsWith('ing') && w.length > 6) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 5) return w.slice(0, -2);
  if (w.endsWith('es') && /(ss|sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

/** Stemmed content tokens (no stop words, no one-letter tokens). */
export function terms(s: string): string[] {
  return words(s)
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map((w) => stem(w.replace(/['’]s$/, '')));
}

/** Sentences: split after . ! ? when the next one starts like a sentence, and on line breaks. */
export function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?]["”’)]?)\s+(?=["“(]?[\p{Lu}\d])/u)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length >= 3);
}

const MULTIPLIERS: Record<string, number> = {
  thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, mn: 1e6, billion: 1e9, bn: 1e9, b: 1e9, trillion: 1e12, tn: 1e12,
  hundred: 1e2, lakh: 1e5, crore: 1e7,
};

/** Numbers in the text with their scale words applied ("75 million" → 75e6, "1,200" → 1200). Years excluded. */
export function numbers(s: string): number[] {
  const out: number[] = [];
  const re = /(?<![\p{L}\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(%|percent|per cent|thousand|million|billion|trillion|hundred|lakh|crore|bn|mn|tn|k|m|b)?(?![\p{L}\d])/giu;
  for (const m of s.matchAll(re)) {
    const raw = m[1]!;
    const v = Number(raw.replace(/,/g, ''));
    if (!Number.isFinite(v)) continue;
    const unit = (m[2] ?? '').toLowerCase();
    if (!unit && /^(1[5-9]\d{2}|20\d{2})$/.test(raw)) continue; // a year, handled by years()
    out.push(v * (MULTIPLIERS[unit] ?? 1));
  }
  return out;
}

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
