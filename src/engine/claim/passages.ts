/**
 * Passage selection: the sentences of each retrieved item that bear on this claim, ranked with
 * Okapi BM25 (Robertson & Zaragoza 2009; k1 = 1.2, b = 0.75) over the pool of all sentences
 * retrieved for the claim, and a relevance score in 0..1: the IDF-weighted share of the claim's
 * terms the passage contains.
 */
import { sentences, terms } from './text.js';

export interface Passage {
  /** The chosen sentences, in their original order, joined. */
  text: string;
  /** IDF-weighted coverage of the claim's terms, 0..1. */
  relevance: number;
}

const K1 = 1.2;
const B = 0.75;
const MAX_SENTENCES_PER_ITEM = 80;
const SNIPPET_CHARS = 420;

export interface PassageOptions {
  /** Sentences kept per item (default 2). */
  perItem?: number;
}

/** One passage per text, in input order. */
export function selectPassages(claim: string, texts: readonly string[], opts: PassageOptions = {}): Passage[] {
  const perItem = opts.perItem ?? 2;
  const claimTerms = [...new Set(terms(claim))];
  const docs = texts.map((t) => sentences(t).slice(0, MAX_SENTENCES_PER_ITEM).map((s) => ({ s, toks: terms(s) })));
  const pool = docs.flat();
  const N = pool.length || 1;
  const df = new Map<string, number>();
  for (const { toks } of pool) for (const t of new Set(toks)) df.set(t, (df.get(t) ?? 0) + 1);
  const avgLen = pool.reduce((a, d) => a + d.toks.length, 0) / N || 1;
  // BM25's IDF, floored at a small positive value so very common claim terms still count a little.
  const idf = (t: string): number => Math.max(0.05, Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5)));
  const claimWeight = claimTerms.reduce((a, t) => a + idf(t), 0) || 1;

  return docs.map((sents) => {
    if (!sents.length) return { text: '', relevance: 0 };
    const scored = sents.map((d, i) => {
      const tf = new Map<string, number>();
      for (const t of d.toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      let score = 0;
      for (const t of claimTerms) {
        const f = tf.get(t) ?? 0;
        if (f) score += (idf(t) * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.toks.length) / avgLen));
      }
      return { i, s: d.s, toks: d.toks, score };
    });
    // A short result (a search snippet, a headline, a question and its answer) is already a
    // passage: cutting it to its best-matching sentences drops exactly the sentences that carry the
    // stance ("No.", "No answer could be found.", "However, …"), which rarely repeat the claim's terms.
    const whole = scored.reduce((a, x) => a + x.s.length + 1, 0) <= SNIPPET_CHARS;
    const best = whole ? scored : [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, perItem);
    // Keep the best sentence; add the runner-up only when it matches something.
    const chosen = whole ? scored : best.filter((x, k) => k === 0 || x.score > 0).sort((a, b) => a.i - b.i);
    let text = chosen.map((c) => c.s).join(' ');
    if (text.length > SNIPPET_CHARS) text = text.slice(0, SNIPPET_CHARS - 1).replace(/\s+\S*$/, '') + '…';
    const present = new Set(chosen.flatMap((c) => c.toks));
    const covered = claimTerms.reduce((a, t) => a + (present.has(t) ? idf(t) : 0), 0);
    return { text, relevance: claimTerms.length ? covered / claimWeight : 0 };
  });
}
