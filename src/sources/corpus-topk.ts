/**
 * Top-k search of the local corpus that stays fast at a million passages (issue 31 item 4).
 *
 * FTS5's bm25() costs a few microseconds for every row the query matches (the row's size is read
 * from the doc-size table and the position lists of every phrase are walked), and a claim is an
 * OR of its content words: at 1M passages a claim of common words matched over 100,000 rows and
 * spent about half a second ranking them to keep 50. Walking a posting list without scoring costs
 * a few percent of that. So:
 *
 * the candidates are the rows holding two or more of the query's terms (an AND per term, which
 * the index walks without scoring), each with its summed IDF; the POOL best get BM25's length
 * normalisation from their stored length; the RERANK best of those are read and ranked by BM25
 * over their text here (term frequencies and lengths), and the best `limit` of those are
 * returned. When fewer than `limit` rows hold two terms, rows holding one fill the rest of the
 * list, ranked after them (the claim's passages are picked from the whole list, so a short list
 * left the verdict fewer passages to judge). Document frequencies come from the fts5vocab table
 * (corpus_vocab). A query of one term is ranked by bm25().
 *
 * What the cut can miss: a row holding a single common term and no other. Any row holding two
 * terms has a larger summed IDF, so it is only missed when RERANK rows beat it that way, and
 * bm25() would rank it low for the same reason (WAND-style top-k retrieval makes this bet too).
 */
import type { Database } from '../store/local/database.js';

/**
 * Matching postings (summed over the query's terms) up to which bm25() ranks every match. 0: the
 * bounded ranking always (it scored a higher recall@5 on both shared claim sets, docs/claims.md);
 * a larger value is for comparisons (the evaluation, bench/claim.mjs --exact).
 */
export const EXACT_POSTINGS = 0;
/** A query of one term (after the stems its words cover) ranks its rows with bm25() up to this many. */
export const SINGLE_TERM_EXACT = 10_000;
/** Candidates, by summed IDF, whose lengths are read. */
export const POOL = 4_000;
/** Of those, the best by IDF and length, whose text is read and ranked by BM25. */
export const RERANK = 200;

/** BM25 parameters of FTS5's bm25(). */
const K1 = 1.2;
const B = 0.75;

export interface Phrase {
  /** The FTS5 phrase: `"word"` or `"stem"*`. */
  fts: string;
  /** The token as the index stores it (lower case, diacritics removed). */
  token: string;
  prefix: boolean;
}

export interface TopKTuning {
  exactPostings?: number;
  pool?: number;
  rerank?: number;
  /** false: no rows of one term after a short list of two-term rows (for bench/claim.mjs's comparison). */
  fill?: boolean;
}

export interface TopKResult {
  ids: number[];
  /** How many ids, at the end, are rows holding one query term that fill a list too few rows holding two could fill. */
  filled: number;
  /** Which path ranked: every match by bm25(), or the bounded candidate set. */
  path: 'exact' | 'bounded';
}

/** The index's folding of a token (unicode61 remove_diacritics 2): lower case, no diacritics. */
export const foldToken = (s: string): string => s.toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '');

const NON_ASCII = /[^\x00-\x7f]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** A text folded as the index folds tokens (plain ASCII only lower-cased). */
const fold = (text: string): string => (NON_ASCII.test(text) ? foldToken(text) : text.toLowerCase());

const isWordChar = (c: string | undefined): boolean => c !== undefined && (c <= '\x7f' ? /[a-z0-9]/.test(c) : WORD_CHAR.test(c));

/** How often `token` occurs in the folded text as a whole word (or as a word's start, for a prefix). */
function occurrences(text: string, token: string, prefix: boolean): number {
  let n = 0;
  for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + token.length)) {
    if (isWordChar(text[at - 1])) continue;
    if (!prefix && isWordChar(text[at + token.length])) continue;
    n++;
  }
  return n;
}

/** FTS5's IDF: ln((N − n + 0.5) / (n + 0.5)), floored at a small positive weight. */
function idf(rows: number, df: number): number {
  const v = Math.log((rows - df + 0.5) / (df + 0.5));
  return v > 1e-6 ? v : 1e-6;
}

type Statement = ReturnType<Database['prepare']>;
const statements = new WeakMap<Database, { df: Statement; dfPrefix: Statement }>();

/** Documents holding each phrase, from the fts5vocab table (a prefix: the sum over its terms, an upper bound). */
function documentCounts(db: Database, phrases: readonly Phrase[]): number[] {
  let s = statements.get(db);
  if (!s) {
    s = {
      df: db.prepare('SELECT doc FROM corpus_vocab WHERE term = ?').pluck(),
      dfPrefix: db.prepare('SELECT coalesce(sum(doc), 0) FROM corpus_vocab WHERE term >= ? AND term < ?').pluck(),
    };
    statements.set(db, s);
  }
  const { df, dfPrefix } = s;
  return phrases.map((p) => Number((p.prefix ? dfPrefix.get([p.token, `${p.token}\u{10FFFF}`]) : df.get([p.token])) ?? 0));
}

interface Term {
  p: Phrase;
  df: number;
  idf: number;
}

/**
 * The ids of the best `limit` corpus rows for the phrases (ORed), best first. `stats`: the
 * corpus's rows (for IDF) and characters of text (mean length, for BM25's normalisation).
 */
export function topKCorpus(
  db: Database,
  phrases: readonly Phrase[],
  stats: { rows: number; chars: number },
  limit: number,
  tuning: TopKTuning = {},
): TopKResult {
  const avglen = stats.chars / Math.max(1, stats.rows) || 1;
  const rerank = Math.max(tuning.rerank ?? RERANK, limit);
  const pool = Math.max(tuning.pool ?? POOL, rerank);
  if (!phrases.length) return { ids: [], filled: 0, path: 'exact' };
  const dfs = documentCounts(db, phrases);
  const total = dfs.reduce((a, b) => a + b, 0);
  const exact = (): TopKResult => ({
    ids: db
      .prepare('SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? ORDER BY bm25(corpus_fts) LIMIT ?')
      .pluck()
      .all(phrases.map((p) => p.fts).join(' OR '), limit) as number[],
    filled: 0,
    path: 'exact',
  });
  if (total <= (tuning.exactPostings ?? EXACT_POSTINGS)) return exact();

  const order: Term[] = phrases.map((p, i) => ({ p, df: dfs[i]!, idf: idf(stats.rows, dfs[i]!) })).sort((a, b) => a.df - b.df);
  // A stem that is the start of one of the query's words ("pari"* beside "paris") finds mostly
  // the same rows, and a prefix walks every term it covers: it counts in the ranking below, not
  // in choosing candidates.
  const words = order.filter((t) => !t.p.prefix).map((t) => t.p.token);
  const choosing = order.filter((t) => !t.p.prefix || !words.some((w) => w.startsWith(t.p.token)));
  if (!choosing.length || (choosing.length === 1 && total <= SINGLE_TERM_EXACT)) return exact();
  const candidates = twoTermRows(db, choosing, avglen, pool, rerank);
  const ids = candidates.length ? rankByText(db, candidates, order, avglen).slice(0, limit) : [];
  // Too few rows hold two terms: rows holding one fill the rest of the list, ranked after them.
  const twoTerm = ids.length;
  if (ids.length < limit && (tuning.fill !== false || !ids.length)) {
    const fill = oneTermRows(db, choosing, new Set(ids), rerank);
    ids.push(...rankByText(db, fill, order, avglen).slice(0, limit - ids.length));
  }
  return { ids, filled: ids.length - twoTerm, path: 'bounded' };
}

/**
 * The rows holding two or more of the terms, best `rerank` first. Each term brings the rows that
 * hold it and at least one more term (an AND the index walks without scoring), so each
 * candidate's summed IDF is exact; SQLite sums them in one statement, and the `pool` best get
 * BM25's length normalisation (as if each term were there once, the length in characters).
 */
function twoTermRows(db: Database, terms: readonly Term[], avglen: number, pool: number, rerank: number): number[] {
  const parts: string[] = [];
  const args: Array<string | number> = [];
  terms.forEach((t, i) => {
    const others = terms.filter((_, j) => j !== i).map((o) => o.p.fts);
    if (!others.length) return;
    parts.push('SELECT rowid AS id, ? AS w FROM corpus_fts WHERE corpus_fts MATCH ?');
    args.push(t.idf, `${t.p.fts} AND (${others.join(' OR ')})`);
  });
  if (!parts.length) return [];
  return db
    .prepare(
      `SELECT c.id FROM (SELECT id, sum(w) AS s FROM (${parts.join(' UNION ALL ')}) GROUP BY id ORDER BY s DESC, id LIMIT ?) c
         JOIN corpus_docs d ON d.id = c.id
        ORDER BY c.s / (1 + ${K1} * (1 - ${B} + ${B} * length(d.text) / ?)) DESC, c.id LIMIT ?`,
    )
    .pluck()
    .all(...args, pool, avglen, rerank) as number[];
}

/**
 * Up to `max` rows holding one of the terms and not in `listed`, the rarest terms first (all of a
 * rarer term's rows are taken before any of a commoner one's; each term's posting list is walked,
 * unscored, for at most `max` rows beyond the listed ones). The caller ranks them among themselves
 * and places them after the rows holding two terms: ranked together with those, they displaced
 * some of them and lowered recall@5 on fool-me-twice from 0.355 to 0.324 (commit fcee612); holding
 * two of the claim's words is itself the better evidence.
 */
function oneTermRows(db: Database, terms: readonly Term[], listed: ReadonlySet<number>, max: number): number[] {
  const rows = db.prepare('SELECT rowid FROM corpus_fts WHERE corpus_fts MATCH ? LIMIT ?').pluck();
  const ids = new Set<number>();
  for (const t of terms) {
    for (const id of rows.all(t.p.fts, max + listed.size) as number[]) {
      if (ids.size >= max) return [...ids];
      if (!listed.has(id)) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * The candidates ranked by BM25 over their text, best first: term frequencies by searching each
 * term in the folded text (no tokenising of whole passages: abstracts run to hundreds of words),
 * lengths in characters against the corpus's mean.
 */
function rankByText(db: Database, candidates: readonly number[], terms: readonly Term[], avglen: number): number[] {
  const texts = db
    .prepare('SELECT id, text FROM corpus_docs WHERE id IN (SELECT value FROM json_each(?))')
    .raw()
    .all(JSON.stringify(candidates)) as Array<[number, string]>;
  const scored = texts.map(([id, raw]) => {
    const text = fold(raw);
    const norm = K1 * (1 - B + (B * text.length) / avglen);
    let score = 0;
    for (const t of terms) {
      const f = occurrences(text, t.p.token, t.p.prefix);
      if (f) score += (t.idf * f * (K1 + 1)) / (f + norm);
    }
    return { id, score };
  });
  scored.sort((a, b) => b.score - a.score || a.id - b.id);
  return scored.map((s) => s.id);
}
