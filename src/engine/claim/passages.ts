/**
 * Passage retrieval within what the sources returned: every retrieved item is cut into sentences
 * (Intl.Segmenter), all sentences of all items form one pool, and each is ranked against the
 * claim with Okapi BM25 (Robertson & Zaragoza 2009; k1 = 1.2, b = 0.75) over all of the claim's
 * stemmed content terms. Passages are de-duplicated by their text (the same sentence from two
 * mirrors is one passage; two sentences from one article are two), and the best `limit` are kept.
 *
 * A short item (a search snippet, a headline, a question with its answer: ≤ SNIPPET_CHARS) is one
 * passage as a whole: cutting it drops the sentences that carry the stance ("No.", "However, …"),
 * which rarely repeat the claim's terms.
 */
import { ENGLISH, passageKey, sentences, terms, type Lang } from './text.js';

export interface Passage {
  /** Index of the item (hit) the passage comes from. */
  item: number;
  text: string;
  /** BM25 score within the pool. */
  score: number;
  /** IDF-weighted share of the claim's terms the passage contains, 0..1. */
  relevance: number;
}

const K1 = 1.2;
const B = 0.75;
const MAX_SENTENCES_PER_ITEM = 200;
export const SNIPPET_CHARS = 420;

export interface RankOptions {
  lang?: Lang;
  /** Passages kept (default 20). */
  limit?: number;
  /** At most this many passages from one item (default 4), so one long article cannot fill the list. */
  perItem?: number;
}

interface Unit {
  item: number;
  text: string;
  toks: string[];
}

/** All passages of all items, ranked by BM25 against the claim; de-duplicated by text. */
export function rankPassages(claim: string, texts: readonly string[], opts: RankOptions = {}): Passage[] {
  const lang = opts.lang ?? ENGLISH;
  const limit = opts.limit ?? 20;
  const perItem = opts.perItem ?? 4;
  const claimTerms = [...new Set(terms(claim, lang))];
  const seen = new Set<string>();
  const units: Unit[] = [];
  texts.forEach((t, item) => {
    const whole = t.replace(/\s+/g, ' ').trim();
    if (!whole) return;
    const parts = whole.length <= SNIPPET_CHARS ? [whole] : sentences(t, lang.code).slice(0, MAX_SENTENCES_PER_ITEM);
    for (const text of parts) {
      const key = passageKey(text);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      units.push({ item, text, toks: terms(text, lang) });
    }
  });
  if (!units.length || !claimTerms.length) return [];
  const N = units.length;
  const df = new Map<string, number>();
  const claimSet = new Set(claimTerms);
  for (const u of units) for (const t of new Set(u.toks)) if (claimSet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const avgLen = units.reduce((a, u) => a + u.toks.length, 0) / N || 1;
  // BM25's IDF (the +1 form, never negative), floored so a term in every passage still counts a little.
  const idf = new Map(claimTerms.map((t) => [t, Math.max(0.05, Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)))]));
  const claimWeight = claimTerms.reduce((a, t) => a + idf.get(t)!, 0) || 1;
  const scored = units.map((u) => {
    const tf = new Map<string, number>();
    for (const t of u.toks) if (claimSet.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    let score = 0;
    let covered = 0;
    for (const [t, f] of tf) {
      const w = idf.get(t)!;
      score += (w * f * (K1 + 1)) / (f + K1 * (1 - B + (B * u.toks.length) / avgLen));
      covered += w;
    }
    return { item: u.item, text: u.text, score, relevance: covered / claimWeight };
  });
  scored.sort((a, b) => b.score - a.score || a.item - b.item);
  const out: Passage[] = [];
  const perItemCount = new Map<number, number>();
  for (const s of scored) {
    if (out.length >= limit) break;
    if (s.score <= 0) break;
    const n = perItemCount.get(s.item) ?? 0;
    if (n >= perItem) continue;
    perItemCount.set(s.item, n + 1);
    out.push(s);
  }
  return out;
}

/** The claim's content terms under a language (empty: nothing to search or match on). */
export const claimTerms = (claim: string, lang: Lang = ENGLISH): string[] => [...new Set(terms(claim, lang))];
