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
  /**
   * Items (by index) whose passages come after every other item's: retrieved only to fill a short
   * list (a local corpus row holding one of the claim's words, when few hold two; ClaimHit.fill).
   */
  after?: ReadonlySet<number>;
}

interface Unit {
  item: number;
  text: string;
  toks: string[];
}

/**
 * All passages of all items, ranked by BM25 against the claim; de-duplicated by text. Items in
 * `opts.after` come after the others: their passages only fill what the others leave of `limit`.
 */
export function rankPassages(claim: string, texts: readonly string[], opts: RankOptions = {}): Passage[] {
  const lang = opts.lang ?? ENGLISH;
  const limit = opts.limit ?? 20;
  const perItem = opts.perItem ?? 4;
  const claimTerms = [...new Set(terms(claim, lang))];
  const seen = new Set<string>();
  const units: Unit[] = [];
  const later: Unit[] = [];
  // The first items' sentences are read first, so a sentence an item in `after` shares with one
  // of them stays theirs.
  const order = texts.map((_, i) => i);
  if (opts.after?.size) order.sort((a, b) => Number(opts.after!.has(a)) - Number(opts.after!.has(b)) || a - b);
  for (const item of order) {
    const t = texts[item]!;
    const whole = t.replace(/\s+/g, ' ').trim();
    if (!whole) continue;
    const parts = whole.length <= SNIPPET_CHARS ? [whole] : sentences(t, lang.code).slice(0, MAX_SENTENCES_PER_ITEM);
    for (const text of parts) {
      const key = passageKey(text);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      (opts.after?.has(item) ? later : units).push({ item, text, toks: terms(text, lang) });
    }
  }
  if (!claimTerms.length) return [];
  // Each group is ranked in a pool of its own (IDF, mean length): the others' passages as if the
  // later ones were not there, and a later passage's relevance is its share of the claim's terms
  // weighed by how rare they are among the later ones.
  const out = pick(score(units, claimTerms), limit, perItem);
  if (out.length < limit) out.push(...pick(score(later, claimTerms), limit - out.length, perItem));
  return out;
}

/** Each unit's BM25 score and relevance, best first; IDF and mean length over the units. */
function score(units: readonly Unit[], claimTerms: readonly string[]): Passage[] {
  if (!units.length) return [];
  const pool = units;
  const N = pool.length;
  const df = new Map<string, number>();
  const claimSet = new Set(claimTerms);
  for (const u of pool) for (const t of new Set(u.toks)) if (claimSet.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const avgLen = pool.reduce((a, u) => a + u.toks.length, 0) / N || 1;
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
  return scored;
}

/** The best `limit` with a positive score, at most `perItem` from one item. */
function pick(scored: readonly Passage[], limit: number, perItem: number): Passage[] {
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
