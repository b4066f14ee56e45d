/**
 * The user's own corpora (`verity corpus add FILE.jsonl|csv`): rows of `text`, `url`, `source`,
 * `published_at`, `authority` stored in the embedded SQLite store with an FTS5 index, and searched
 * as the `local` claim source. Import streams the file, commits in batches, and is idempotent: a
 * row whose (text, url) is already stored is skipped.
 */
import { hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { VerityError } from '../api/errors.js';
import { migrate, type Database, type Store } from '../store/local/database.js';
import type { ClaimHit, ClaimQuery } from './claim-types.js';
import { csvColumnBatches, MAX_RECORD_CHARS } from './csv-records.js';
import { foldToken, topKCorpus, type Phrase, type TopKTuning } from './corpus-topk.js';

export const CORPUS_MIGRATIONS = [
  `CREATE TABLE corpus_docs (
     id INTEGER PRIMARY KEY,
     hash TEXT NOT NULL UNIQUE,
     text TEXT NOT NULL,
     url TEXT NOT NULL,
     source TEXT,
     published_at TEXT,
     authority REAL,
     added_at TEXT NOT NULL
   );
   CREATE VIRTUAL TABLE corpus_fts USING fts5(text, content='corpus_docs', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
   CREATE TRIGGER corpus_docs_ai AFTER INSERT ON corpus_docs BEGIN
     INSERT INTO corpus_fts(rowid, text) VALUES (new.id, new.text);
   END;
   CREATE TRIGGER corpus_docs_ad AFTER DELETE ON corpus_docs BEGIN
     INSERT INTO corpus_fts(corpus_fts, rowid, text) VALUES ('delete', old.id, old.text);
   END;`,
  // The file each row was imported from (absolute path), for `corpus ls` and `corpus rm FILE`.
  // Rows imported before this step keep NULL: listed as "(file not recorded)", removed by --all.
  `ALTER TABLE corpus_docs ADD COLUMN file TEXT;
   CREATE INDEX corpus_docs_file ON corpus_docs(file);`,
  // The row count and the text length in all, kept where rows are written (importCorpus,
  // removeCorpusRows): a claim needs them for IDF and BM25's length normalisation, and count(*)
  // walked the whole table (81 ms at a million passages, issue 31). The
  // index's own per-term document counts, read through fts5vocab, order a claim's terms by rarity.
  `CREATE TABLE corpus_stats (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
   INSERT INTO corpus_stats (key, value) SELECT 'rows', count(*) FROM corpus_docs;
   INSERT INTO corpus_stats (key, value) SELECT 'chars', coalesce(sum(length(text)), 0) FROM corpus_docs;
   CREATE VIRTUAL TABLE corpus_vocab USING fts5vocab(corpus_fts, row);
   -- An import indexes its rows at its end (indexPendingRows): rows above 'fts_pending_from' are
   -- not in the text index yet, so deleting one must not take it out of the index.
   DROP TRIGGER corpus_docs_ad;
   CREATE TRIGGER corpus_docs_ad AFTER DELETE ON corpus_docs
     WHEN old.id <= coalesce((SELECT value FROM corpus_stats WHERE key = 'fts_pending_from'), old.id) BEGIN
     INSERT INTO corpus_fts(corpus_fts, rowid, text) VALUES ('delete', old.id, old.text);
   END;`,
  // A new row takes the highest id plus one. Deleting the highest rows while an import's mark is
  // set and none of its rows is written yet let the import's first row take an id at or below
  // the mark: never indexed, and its deletion would have taken from the index what was not in
  // it. A deletion that leaves no row above the mark now lowers the mark to the highest id left
  // (the rows in between are gone), so every new row is above it.
  `DROP TRIGGER corpus_docs_ad;
   CREATE TRIGGER corpus_docs_ad AFTER DELETE ON corpus_docs
     WHEN old.id <= coalesce((SELECT value FROM corpus_stats WHERE key = 'fts_pending_from'), old.id) BEGIN
     INSERT INTO corpus_fts(corpus_fts, rowid, text) VALUES ('delete', old.id, old.text);
     UPDATE corpus_stats SET value = coalesce((SELECT max(id) FROM corpus_docs), 0)
       WHERE key = 'fts_pending_from' AND value > coalesce((SELECT max(id) FROM corpus_docs), 0);
   END;`,
];

const INSERT_TRIGGER = `CREATE TRIGGER IF NOT EXISTS corpus_docs_ai AFTER INSERT ON corpus_docs BEGIN
     INSERT INTO corpus_fts(rowid, text) VALUES (new.id, new.text);
   END;`;
/** Rows indexed per transaction when an import's rows are indexed at its end. */
const INDEX_CHUNK = 50_000;

export function migrateCorpus(db: Database): void {
  migrate(db, 'corpus', CORPUS_MIGRATIONS);
  // An import that did not reach its end (killed) left rows out of the text index: index them.
  if (pendingFrom(db) !== undefined) indexPendingRows(db);
}

const pendingFrom = (db: Database): number | undefined =>
  db.prepare(`SELECT value FROM corpus_stats WHERE key = 'fts_pending_from'`).pluck().get() as number | undefined;

/**
 * Stops indexing rows one by one as they are inserted: the rows an import adds go into the text
 * index in a few large statements at its end. The per-row trigger cost about two thirds of
 * `corpus add`'s CPU (issue 31). Rows above the mark wait for indexPendingRows.
 */
function deferIndexing(db: Database): void {
  db.transaction(() => {
    if (pendingFrom(db) !== undefined) return;
    const max = db.prepare('SELECT coalesce(max(id), 0) FROM corpus_docs').pluck().get() as number;
    db.prepare(`INSERT INTO corpus_stats (key, value) VALUES ('fts_pending_from', ?)`).run(max);
    db.exec('DROP TRIGGER IF EXISTS corpus_docs_ai');
  })();
}

/**
 * Indexes the rows above the mark, INDEX_CHUNK per transaction (other writers wait at most one
 * chunk), then restores the per-row trigger. Safe to run from any process: the mark moves with
 * each chunk, and once it is gone the trigger indexes new rows again.
 */
function indexPendingRows(db: Database): void {
  const index = db.prepare('INSERT INTO corpus_fts (rowid, text) SELECT id, text FROM corpus_docs WHERE id > ? AND id <= ?');
  const move = db.prepare(`UPDATE corpus_stats SET value = ? WHERE key = 'fts_pending_from'`);
  for (;;) {
    const done = db.transaction(() => {
      const from = pendingFrom(db);
      if (from === undefined) return true;
      const max = db.prepare('SELECT coalesce(max(id), 0) FROM corpus_docs').pluck().get() as number;
      const to = Math.min(max, from + INDEX_CHUNK);
      index.run(from, to);
      if (to < max) {
        move.run(to);
        return false;
      }
      db.prepare(`DELETE FROM corpus_stats WHERE key = 'fts_pending_from'`).run();
      db.exec(INSERT_TRIGGER);
      return true;
    })();
    if (done) return;
  }
}

export interface CorpusRow {
  text: string;
  url: string;
  source: string | null;
  published_at: string | null;
  authority: number | null;
}

export interface ImportProgress {
  /** Rows read so far (valid or not). */
  read: number;
  added: number;
  skipped: number;
  rejected: number;
}

export interface ImportResult {
  added: number;
  /** Already in the corpus (same text and url). */
  skipped: number;
  /** Rows that broke a rule (no text, bad authority, bad date, not JSON). */
  rejected: number;
  /** The first few rejections, "line 12: text is empty". */
  errors: string[];
}

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
  /** Clock for `added_at` (tests pin it). */
  now?: () => Date;
}

const BATCH = 500;
/** The longest an import's write transaction stays open (other processes wait at most this long). */
const TXN_MAX_MS = 1000;
const MAX_TEXT = 100_000;

/** Validates one raw record; returns the row or the reason it is refused. */
export function toCorpusRow(raw: Record<string, unknown>): CorpusRow | string {
  const text = typeof raw.text === 'string' ? raw.text.trim() : '';
  if (!text) return 'text is empty or missing';
  if (text.length > MAX_TEXT) return `text is longer than ${MAX_TEXT} characters`;
  const url = typeof raw.url === 'string' ? raw.url.trim() : '';
  const source = typeof raw.source === 'string' && raw.source.trim() ? raw.source.trim() : null;
  let published_at: string | null = null;
  if (raw.published_at !== undefined && raw.published_at !== null && raw.published_at !== '') {
    const s = String(raw.published_at).trim();
    if (Number.isNaN(Date.parse(s))) return `published_at "${s.slice(0, 40)}" is not an ISO 8601 date`;
    published_at = s;
  }
  let authority: number | null = null;
  if (raw.authority !== undefined && raw.authority !== null && raw.authority !== '') {
    const a = Number(raw.authority);
    if (!Number.isFinite(a) || a < 0 || a > 1) return `authority "${String(raw.authority).slice(0, 20)}" is not a number between 0 and 1`;
    authority = a;
  }
  return { text, url, source, published_at, authority };
}

/** One record as read: its line (a CSV's header is line 1) and its fields, or why it was refused. */
interface ReadRecord {
  line: number;
  record: Record<string, unknown> | string;
}

/** Bytes read at a time: a few large reads and one split per chunk, not an event per line. */
const READ_CHUNK = 1 << 20;
/** A longer line or CSV record is not a corpus row (an unbalanced quote, a binary file): refused. */
const MAX_LINE_CHARS = MAX_RECORD_CHARS;

/**
 * A JSONL file's records, one chunk's worth at a time. Lines end at LF, CRLF or a lone CR (as
 * Node's readline splits them, which this replaces: its event per line cost about as much as
 * the JSON parsing).
 */
async function* jsonlRecords(path: string): AsyncGenerator<ReadRecord[]> {
  let line = 0;
  let rest = '';
  const tooLong = (at: number): VerityError => new VerityError('UNPROCESSABLE_CONTENT', `line ${at} is longer than ${MAX_LINE_CHARS} characters`);
  const take = (l: string, out: ReadRecord[]): void => {
    line++;
    if (l.length > MAX_LINE_CHARS) throw tooLong(line);
    if (!l.trim()) return;
    try {
      const v = JSON.parse(l) as unknown;
      out.push({ line, record: typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : 'not a JSON object' });
    } catch {
      out.push({ line, record: 'not valid JSON' });
    }
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: READ_CHUNK }) as AsyncIterable<string>) {
    // A byte-order mark before the first line is not part of its JSON.
    const s = line === 0 && !rest && chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : rest + chunk;
    const out: ReadRecord[] = [];
    let from = 0;
    if (s.indexOf('\r') < 0) {
      for (let to = s.indexOf('\n'); to >= 0; to = s.indexOf('\n', from)) {
        take(s.slice(from, to), out);
        from = to + 1;
      }
    } else {
      // A CR as the chunk's last character may be the first half of a CRLF: wait for the next chunk.
      const ends = /\r\n|\n|\r(?!$)/g;
      for (let m = ends.exec(s); m; m = ends.exec(s)) {
        take(s.slice(from, m.index), out);
        from = m.index + m[0].length;
      }
    }
    rest = s.slice(from);
    if (rest.length > MAX_LINE_CHARS) throw tooLong(line + 1);
    if (out.length) yield out;
  }
  const out: ReadRecord[] = [];
  for (const l of rest.split(/\r\n|\n|\r/)) take(l, out);
  if (out.length) yield out;
}

const CSV_FIELDS = ['text', 'url', 'source', 'published_at', 'authority'] as const;

/**
 * A CSV file's records (a header row names the fields; other columns are ignored), read by the
 * byte-level column reader of the bulk imports: about a sixth of csv-parse's CPU, which was a
 * quarter of `corpus add`'s (issue 31). Lenient like csv-parse with `relax_column_count`: a short
 * record's missing fields are empty.
 */
async function* csvRecords(path: string): AsyncGenerator<ReadRecord[]> {
  const select = (header: string[]): number[] => {
    const names = header.map((h) => h.trim().toLowerCase());
    return CSV_FIELDS.map((f) => names.indexOf(f));
  };
  let line = 1;
  const w = CSV_FIELDS.length;
  for await (const b of csvColumnBatches(createReadStream(path, { highWaterMark: READ_CHUNK }), select)) {
    const v = b.values;
    const out = new Array<ReadRecord>(b.records);
    for (let i = 0, at = 0; i < b.records; i++, at += w)
      out[i] = { line: ++line, record: { text: v[at], url: v[at + 1], source: v[at + 2], published_at: v[at + 3], authority: v[at + 4] } };
    yield out;
  }
}

/**
 * Imports a .jsonl or .csv corpus file into the store. Throws NOT_FOUND for a missing file,
 * UNSUPPORTED_MEDIA_TYPE for another extension, UNPROCESSABLE_CONTENT when the file holds rows but
 * none is valid (or the CSV cannot be parsed); otherwise returns the counts.
 */
export async function importCorpus(store: Store, filePath: string, opts: ImportOptions = {}): Promise<ImportResult> {
  const ext = extname(filePath).toLowerCase();
  if (ext !== '.jsonl' && ext !== '.ndjson' && ext !== '.csv') {
    throw new VerityError('UNSUPPORTED_MEDIA_TYPE', `corpus files must be .jsonl or .csv (got "${ext || 'no extension'}")`);
  }
  try {
    const s = await stat(filePath);
    if (!s.isFile()) throw new Error('not a file');
  } catch {
    throw new VerityError('NOT_FOUND', `corpus file not found: ${filePath}`);
  }
  const db = store.db;
  migrateCorpus(db);
  const now = opts.now ?? (() => new Date());
  const insert = db.prepare(
    `INSERT OR IGNORE INTO corpus_docs (hash, text, url, source, published_at, authority, added_at, file) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addRows = db.prepare(`UPDATE corpus_stats SET value = value + ? WHERE key = 'rows'`);
  const addChars = db.prepare(`UPDATE corpus_stats SET value = value + ? WHERE key = 'chars'`);
  // A row already stored from another file stays with the file that brought it first.
  const file = resolve(filePath);
  const result: ImportResult = { added: 0, skipped: 0, rejected: 0, errors: [] };
  let read = 0;
  let batch: CorpusRow[] = [];
  // Rows are written 500 at a time (the loop yields to the event loop between reads, so Ctrl-C is
  // seen), but committed about once a second: each commit flushes the full-text index's pending
  // terms into a new segment, and committing every 500 rows made many small segments for FTS5 to
  // merge again (about a third of `corpus add`'s CPU, issue 31).
  let inTxn = false;
  let txnStarted = 0;
  const commit = (): void => {
    if (!inTxn) return;
    inTxn = false;
    db.exec('COMMIT');
  };
  const flush = (rows: CorpusRow[]): void => {
    if (!inTxn) {
      db.exec('BEGIN');
      inTxn = true;
      txnStarted = performance.now();
    }
    const at = now().toISOString();
    let added = 0;
    let chars = 0;
    for (const r of rows) {
      // One call: the same digest as update(text), update(NUL), update(url), at half the cost.
      const info = insert.run(hash('sha256', `${r.text}\u0000${r.url}`, 'hex'), r.text, r.url, r.source, r.published_at, r.authority, at, file);
      if (info.changes > 0) {
        added++;
        chars += r.text.length;
      } else result.skipped++;
    }
    addRows.run(added);
    addChars.run(chars);
    result.added += added;
    if (performance.now() - txnStarted >= TXN_MAX_MS) commit();
  };
  const records = ext === '.csv' ? csvRecords(filePath) : jsonlRecords(filePath);
  deferIndexing(db);
  // Random-order inserts into the hash index and the text index's segments need more than
  // SQLite's 2 MB page cache to stay fast; 64 MB while importing, as `data import` does.
  const cacheBefore = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -65536');
  try {
    for await (const chunk of records)
      for (const { line, record } of chunk) {
        if (opts.signal?.aborted) throw new VerityError('UNAVAILABLE', 'corpus import interrupted');
        read++;
        const row = typeof record === 'string' ? record : toCorpusRow(record);
        if (typeof row === 'string') {
          result.rejected++;
          if (result.errors.length < 10) result.errors.push(`line ${line}: ${row}`);
        } else {
          batch.push(row);
        }
        if (batch.length >= BATCH) {
          flush(batch);
          batch = [];
          opts.onProgress?.({ read, added: result.added, skipped: result.skipped, rejected: result.rejected });
        }
      }
    if (batch.length) flush(batch);
    commit();
    indexPendingRows(db);
  } catch (err) {
    // Rows written before an interruption or a bad line are kept (a re-run skips them); a
    // failed write is undone.
    if (inTxn) {
      if (err instanceof VerityError || !(err instanceof Error && err.name === 'SqliteError')) commit();
      else {
        inTxn = false;
        db.exec('ROLLBACK');
      }
    }
    if (err instanceof VerityError) throw err;
    throw new VerityError('UNPROCESSABLE_CONTENT', `cannot read ${filePath}: ${(err as Error).message}`, { cause: err });
  } finally {
    db.pragma(`cache_size = ${Number(cacheBefore) || -2000}`);
  }
  opts.onProgress?.({ read, added: result.added, skipped: result.skipped, rejected: result.rejected });
  if (read > 0 && result.added + result.skipped === 0) {
    throw new VerityError('UNPROCESSABLE_CONTENT', `no valid rows in ${filePath}: ${result.errors.slice(0, 3).join('; ')}`);
  }
  return result;
}

/** Rows in the corpus (0 when the corpus was never created), from the counter kept on import and removal. */
export function corpusSize(db: Database): number {
  const tables = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('corpus_docs', 'corpus_stats')`).pluck().all());
  if (tables.has('corpus_stats')) return Number(db.prepare(`SELECT value FROM corpus_stats WHERE key = 'rows'`).pluck().get() ?? 0);
  // A corpus from before the counter (not migrated yet): counted once.
  return tables.has('corpus_docs') ? (db.prepare('SELECT count(*) FROM corpus_docs').pluck().get() as number) : 0;
}

/** Whether the corpus holds any row (false when it was never created): what a claim needs to know. */
export function corpusHasRows(db: Database): boolean {
  const t = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'corpus_docs'`).get();
  if (!t) return false;
  // One row is enough: a count(*) walked the whole table on every claim (81 ms at a million
  // passages, issue 31), where the question is only whether there is a corpus at all.
  return db.prepare('SELECT 1 FROM corpus_docs LIMIT 1').get() !== undefined;
}

/** One imported file as `corpus ls` shows it. */
export interface CorpusFile {
  /** Absolute path at import time; null for rows imported before files were recorded. */
  file: string | null;
  rows: number;
  first_added_at: string;
  last_added_at: string;
}

/** The files the corpus holds rows from, oldest import first (empty when there is no corpus). */
export function corpusFiles(db: Database): CorpusFile[] {
  migrateCorpus(db);
  return db
    .prepare(
      `SELECT file, count(*) AS rows, min(added_at) AS first_added_at, max(added_at) AS last_added_at
         FROM corpus_docs GROUP BY file ORDER BY min(added_at), file`,
    )
    .all() as CorpusFile[];
}

/**
 * Deletes the rows imported from `file` (matched as given, then as an absolute path), or every row
 * with `all`. Returns the rows removed; NOT_FOUND naming the known files when nothing matches.
 */
export function removeCorpusRows(db: Database, target: { file: string } | { all: true }): { removed: number; file: string | null } {
  migrateCorpus(db);
  if ('all' in target) {
    const removed = db.transaction(() => {
      // The counters only: an import's mark (another process may be importing) stays as it is.
      db.prepare(`UPDATE corpus_stats SET value = 0 WHERE key IN ('rows', 'chars')`).run();
      return db.prepare('DELETE FROM corpus_docs').run().changes;
    })();
    return { removed, file: null };
  }
  const known = corpusFiles(db);
  const match = known.find((f) => f.file === target.file) ?? known.find((f) => f.file !== null && f.file === resolve(target.file));
  if (!match?.file) {
    const names = known.map((f) => f.file ?? '(file not recorded)');
    throw new VerityError(
      'NOT_FOUND',
      `No corpus rows were imported from ${target.file}${names.length ? `; the corpus holds rows from: ${names.join(', ')}` : '; the corpus is empty'}`,
      { hint: names.length ? 'see them with `verity corpus ls`; `verity corpus rm --all` empties the corpus' : 'import one with `verity corpus add FILE.jsonl|csv`' },
    );
  }
  const removed = db.transaction(() => {
    const gone = db.prepare('SELECT count(*) AS n, coalesce(sum(length(text)), 0) AS chars FROM corpus_docs WHERE file = ?').get(match.file) as { n: number; chars: number };
    db.prepare(`UPDATE corpus_stats SET value = max(0, value - CASE key WHEN 'rows' THEN ? ELSE ? END) WHERE key IN ('rows', 'chars')`).run(gone.n, gone.chars);
    return db.prepare('DELETE FROM corpus_docs WHERE file = ?').run(match.file).changes;
  })();
  return { removed, file: match.file };
}

/** Rows and characters of text in the corpus (the counters; zeros when there is no corpus). */
export function corpusStats(db: Database): { rows: number; chars: number } {
  const rows = corpusSize(db);
  if (!rows) return { rows, chars: 0 };
  const chars = Number(db.prepare(`SELECT value FROM corpus_stats WHERE key = 'chars'`).pluck().get() ?? 0);
  return { rows, chars };
}

/**
 * The FTS5 phrases of a query: each word quoted (so no user text is read as FTS syntax), then
 * each stem as a prefix query ("identifi"* finds identifies, identified): the index is not
 * stemmed (the corpus has no declared language), so inflected forms are matched this way. Stems
 * shorter than 4 letters would match too much.
 */
export function ftsPhrases(terms: readonly string[], prefixes: readonly string[] = []): Phrase[] {
  const words = new Set<string>();
  for (const t of terms) for (const w of t.split(/[^\p{L}\p{N}]+/u)) if (w.length >= 2) words.add(w.toLowerCase());
  const parts: Phrase[] = [...words].slice(0, 48).map((w) => ({ fts: `"${w}"`, token: foldToken(w), prefix: false }));
  for (const p of prefixes) {
    const w = p.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    if (w.length >= 4 && !words.has(w)) parts.push({ fts: `"${w}"*`, token: foldToken(w), prefix: true });
  }
  return parts.slice(0, 64);
}

/** An FTS5 query that ORs the quoted terms, so no user text is read as FTS syntax. */
export function ftsQuery(terms: readonly string[], prefixes: readonly string[] = []): string {
  return ftsPhrases(terms, prefixes)
    .map((p) => p.fts)
    .join(' OR ');
}

/** Candidates asked of the index: BM25 over the claim's passages then picks the best of these. */
export const CORPUS_CANDIDATES = 50;

/**
 * Best-matching rows: bm25 over every match while the query's terms are rare enough, a bounded
 * candidate set above that (corpus-topk.ts). `tuning` is for benchmarks and the evaluation.
 */
export function searchCorpus(db: Database, query: ClaimQuery, limit: number, tuning?: TopKTuning): ClaimHit[] {
  const stats = corpusStats(db);
  if (stats.rows === 0) return [];
  const phrases = query.content
    ? ftsPhrases(query.content.words, query.content.stems)
    : ftsPhrases(query.terms.length ? query.terms : [query.claim]);
  if (!phrases.length) return [];
  const { ids, filled } = topKCorpus(db, phrases, stats, limit, tuning);
  if (!ids.length) return [];
  const byId = new Map(
    (
      db
        .prepare(`SELECT id, text, url, source, published_at, authority FROM corpus_docs WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as Array<CorpusRow & { id: number }>
    ).map((r) => [r.id, r]),
  );
  const fill = new Set(ids.slice(ids.length - filled));
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is CorpusRow & { id: number } => r !== undefined)
    .map((r) => ({
      ...(fill.has(r.id) ? { fill: true as const } : {}),
      source: 'local' as const,
      url: r.url,
      title: r.source ?? 'local corpus',
      text: r.text,
      published_at: r.published_at,
      publisher: r.source,
      declared_authority: r.authority,
    }));
}
