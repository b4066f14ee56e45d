/**
 * The user's own corpora (`verity corpus add FILE.jsonl|csv`): rows of `text`, `url`, `source`,
 * `published_at`, `authority` stored in the embedded SQLite store with an FTS5 index, and searched
 * as the `local` claim source. Import streams the file, commits in batches, and is idempotent: a
 * row whose (text, url) is already stored is skipped.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { VerityError } from '../api/errors.js';
import { migrate, type Database, type Store } from '../store/local/database.js';
import type { ClaimHit, ClaimQuery } from './claim-types.js';
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
  // The row count kept where rows are written (importCorpus, removeCorpusRows): a claim needs it
  // for IDF, and count(*) walked the whole table (81 ms at a million passages, issue 31). The
  // index's own per-term document counts, read through fts5vocab, order a claim's terms by rarity.
  `CREATE TABLE corpus_stats (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
   INSERT INTO corpus_stats (key, value) SELECT 'rows', count(*) FROM corpus_docs;
   CREATE VIRTUAL TABLE corpus_vocab USING fts5vocab(corpus_fts, row);`,
];

export function migrateCorpus(db: Database): void {
  migrate(db, 'corpus', CORPUS_MIGRATIONS);
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

async function* jsonlRecords(path: string): AsyncGenerator<{ line: number; record: Record<string, unknown> | string }> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const l of rl) {
    line++;
    if (!l.trim()) continue;
    try {
      const v = JSON.parse(l) as unknown;
      yield { line, record: typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : 'not a JSON object' };
    } catch {
      yield { line, record: 'not valid JSON' };
    }
  }
}

async function* csvRecords(path: string): AsyncGenerator<{ line: number; record: Record<string, unknown> | string }> {
  const { parse } = await import('csv-parse');
  const parser = createReadStream(path).pipe(
    parse({ columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }),
  );
  let line = 1;
  for await (const rec of parser) {
    line++;
    yield { line, record: rec as Record<string, unknown> };
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
  // A row already stored from another file stays with the file that brought it first.
  const file = resolve(filePath);
  const result: ImportResult = { added: 0, skipped: 0, rejected: 0, errors: [] };
  let read = 0;
  let batch: CorpusRow[] = [];
  const flush = db.transaction((rows: CorpusRow[]) => {
    const at = now().toISOString();
    let added = 0;
    for (const r of rows) {
      const hash = createHash('sha256').update(r.text).update('\u0000').update(r.url).digest('hex');
      const info = insert.run(hash, r.text, r.url, r.source, r.published_at, r.authority, at, file);
      if (info.changes > 0) added++;
      else result.skipped++;
    }
    addRows.run(added);
    result.added += added;
  });
  const records = ext === '.csv' ? csvRecords(filePath) : jsonlRecords(filePath);
  try {
    for await (const { line, record } of records) {
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
  } catch (err) {
    if (err instanceof VerityError) throw err;
    throw new VerityError('UNPROCESSABLE_CONTENT', `cannot read ${filePath}: ${(err as Error).message}`, { cause: err });
  }
  if (batch.length) flush(batch);
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
    const removed = db.transaction(() => uncount(db, db.prepare('DELETE FROM corpus_docs').run().changes))();
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
  const removed = db.transaction(() => uncount(db, db.prepare('DELETE FROM corpus_docs WHERE file = ?').run(match.file).changes))();
  return { removed, file: match.file };
}

/** Takes removed rows off the row counter (in the deleting transaction); returns them. */
function uncount(db: Database, removed: number): number {
  db.prepare(`UPDATE corpus_stats SET value = max(0, value - ?) WHERE key = 'rows'`).run(removed);
  return removed;
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
  const rows = corpusSize(db);
  if (rows === 0) return [];
  const phrases = query.content
    ? ftsPhrases(query.content.words, query.content.stems)
    : ftsPhrases(query.terms.length ? query.terms : [query.claim]);
  if (!phrases.length) return [];
  const { ids } = topKCorpus(db, phrases, rows, limit, tuning);
  if (!ids.length) return [];
  const byId = new Map(
    (
      db
        .prepare(`SELECT id, text, url, source, published_at, authority FROM corpus_docs WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as Array<CorpusRow & { id: number }>
    ).map((r) => [r.id, r]),
  );
  return ids
    .map((id) => byId.get(id))
    .filter((r): r is CorpusRow & { id: number } => r !== undefined)
    .map((r) => ({
      source: 'local' as const,
      url: r.url,
      title: r.source ?? 'local corpus',
      text: r.text,
      published_at: r.published_at,
      publisher: r.source,
      declared_authority: r.authority,
    }));
}
