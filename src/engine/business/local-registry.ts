/**
 * Offline registry data in the embedded store: the Companies House Free Company Data Product,
 * the GLEIF golden copy and SEC's company_tickers.json, imported by `verity data import …`
 * (bulk-import.ts) and looked up here before any API is called.
 *
 * One table holds register rows of both registries (`source` tells them apart), keyed by
 * `(source, record_id)` so re-imports update in place. `name_key` (names.ts `matchKey`) has a
 * B-tree index for exact look-ups; an external-content FTS5 index over it answers fuzzy ones.
 */
import type { Database, Store } from '../../store/local/database.js';
import { migrate } from '../../store/local/database.js';

export const COMPANIES_COMPONENT = 'companies';

export const COMPANIES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE company_registry (
     rid INTEGER PRIMARY KEY,
     source TEXT NOT NULL,
     record_id TEXT NOT NULL,
     name TEXT NOT NULL,
     name_key TEXT NOT NULL,
     reg_number TEXT,
     jurisdiction TEXT,
     status TEXT,
     incorporated_on TEXT,
     detail TEXT,
     batch INTEGER NOT NULL DEFAULT 0,
     UNIQUE (source, record_id)
   );
   CREATE INDEX company_registry_name_key ON company_registry (name_key);
   -- Companies House rows are found by record_id (= their number); only GLEIF needs registeredAs.
   CREATE INDEX company_registry_gleif_reg ON company_registry (reg_number) WHERE source = 'gleif';
   CREATE VIRTUAL TABLE company_registry_fts USING fts5 (
     name_key, content = 'company_registry', content_rowid = 'rid', tokenize = 'unicode61'
   );
   CREATE TABLE sec_tickers (
     cik INTEGER NOT NULL,
     ticker TEXT NOT NULL,
     title TEXT NOT NULL,
     name_key TEXT NOT NULL,
     PRIMARY KEY (cik, ticker)
   );
   CREATE INDEX sec_tickers_name_key ON sec_tickers (name_key);
   CREATE TABLE company_imports (
     dataset TEXT PRIMARY KEY,
     file TEXT NOT NULL,
     rows INTEGER NOT NULL,
     batch INTEGER NOT NULL,
     imported_at TEXT NOT NULL
   );`,
  // Import bookkeeping: 'fts_stale' is set while the text index awaits its end-of-import rebuild.
  `CREATE TABLE company_registry_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // bulk-import.ts rowHash of the stored values: unchanged rows are skipped on a re-import.
  `ALTER TABLE company_registry ADD COLUMN row_hash INTEGER;`,
];

export type LocalSource = 'companies_house' | 'gleif';

export interface LocalRow {
  source: LocalSource;
  record_id: string;
  name: string;
  name_key: string;
  reg_number: string | null;
  jurisdiction: string | null;
  status: string | null;
  incorporated_on: string | null;
  detail: string | null;
}

export interface LocalTicker {
  cik: number;
  ticker: string;
  title: string;
}

export interface ImportInfo {
  dataset: string;
  file: string;
  rows: number;
  imported_at: string;
}

/**
 * The secondary indexes of company_registry (as created by the first migration). A first
 * import drops them and builds them at its end; `IF NOT EXISTS` lets companyData() restore
 * them after an import that died in between.
 */
export const COMPANY_REGISTRY_INDEXES = `
  CREATE INDEX IF NOT EXISTS company_registry_name_key ON company_registry (name_key);
  CREATE INDEX IF NOT EXISTS company_registry_gleif_reg ON company_registry (reg_number) WHERE source = 'gleif';`;
export const DROP_COMPANY_REGISTRY_INDEXES = `
  DROP INDEX IF EXISTS company_registry_name_key;
  DROP INDEX IF EXISTS company_registry_gleif_reg;`;

const prepared = new WeakMap<Database, ReturnType<typeof prepare>>();

function prepare(db: Database) {
  const cols = 'source, record_id, name, name_key, reg_number, jurisdiction, status, incorporated_on, detail';
  return {
    byKey: db.prepare(`SELECT ${cols} FROM company_registry WHERE name_key = ? AND source = ? LIMIT ?`),
    byRecordId: db.prepare(`SELECT ${cols} FROM company_registry WHERE source = ? AND record_id = ?`),
    byGleifRegNumber: db.prepare(`SELECT ${cols} FROM company_registry WHERE source = 'gleif' AND reg_number = ? LIMIT 10`),
    // CROSS JOIN keeps the text index as the outer loop: otherwise the planner may scan every
    // row of the source and probe the index per row (50 ms instead of 0.1 ms at 300k rows).
    // All words required: few rows match, and they are re-ranked by name similarity anyway.
    ftsAll: db.prepare(
      `SELECT ${cols} FROM (SELECT rowid AS id FROM company_registry_fts WHERE company_registry_fts MATCH ? LIMIT 500) f
         CROSS JOIN company_registry r ON r.rid = f.id
        WHERE r.source = ? LIMIT ?`,
    ),
    // Any word: many rows can match, so let bm25 choose the best few first.
    ftsAny: db.prepare(
      `SELECT ${cols} FROM (SELECT rowid AS id FROM company_registry_fts WHERE company_registry_fts MATCH ? ORDER BY rank LIMIT 200) f
         CROSS JOIN company_registry r ON r.rid = f.id
        WHERE r.source = ? LIMIT ?`,
    ),
    tickersByKey: db.prepare('SELECT cik, ticker, title FROM sec_tickers WHERE name_key = ? ORDER BY cik LIMIT 20'),
    tickersByCik: db.prepare('SELECT cik, ticker, title FROM sec_tickers WHERE cik = ? LIMIT 1'),
    allTickers: db.prepare('SELECT cik, ticker, title, name_key FROM sec_tickers'),
    importInfo: db.prepare('SELECT dataset, file, rows, imported_at FROM company_imports WHERE dataset = ?'),
  };
}

/** Creates the tables on first use and returns the prepared look-ups for this database. */
export function companyData(store: Pick<Store, 'db'>) {
  const db = store.db;
  let p = prepared.get(db);
  if (!p) {
    migrate(db, COMPANIES_COMPONENT, COMPANIES_MIGRATIONS);
    db.exec(COMPANY_REGISTRY_INDEXES);
    p = prepare(db);
    prepared.set(db, p);
  }
  return p;
}

/** FTS5 query from a name key: every word must appear (quoted, so words are never operators). */
const ftsAll = (key: string): string =>
  key
    .split(' ')
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"`)
    .join(' ');
const ftsAny = (key: string): string => ftsAll(key).split(' ').join(' OR ');

export interface LocalLookup {
  source: LocalSource;
  /** matchKey of the requested name. */
  key?: string;
  /** Normalised registration number or LEI. */
  number?: string;
  limit?: number;
}

/** Candidate rows: by number when given, else the exact name key, else any/all words via FTS5. */
export function findLocal(store: Pick<Store, 'db'>, q: LocalLookup): LocalRow[] {
  const p = companyData(store);
  const limit = q.limit ?? 20;
  if (q.number) {
    const rows = p.byRecordId.all(q.source, q.number) as LocalRow[];
    if (!rows.length && q.source === 'gleif') rows.push(...(p.byGleifRegNumber.all(q.number) as LocalRow[]));
    if (rows.length || !q.key) return rows;
  }
  if (!q.key) return [];
  const exact = p.byKey.all(q.key, q.source, limit) as LocalRow[];
  if (exact.length) return exact;
  const all = p.ftsAll.all(ftsAll(q.key), q.source, limit) as LocalRow[];
  if (all.length) return all;
  return q.key.includes(' ') ? (p.ftsAny.all(ftsAny(q.key), q.source, limit) as LocalRow[]) : [];
}

export function findLocalTickers(store: Pick<Store, 'db'>, q: { key?: string; cik?: number }): LocalTicker[] {
  const p = companyData(store);
  if (q.cik !== undefined) return p.tickersByCik.all(q.cik) as LocalTicker[];
  if (!q.key) return [];
  return p.tickersByKey.all(q.key) as LocalTicker[];
}

/** Every imported ticker (about 10,000 rows): the fuzzy fallback scans them like the live file. */
export function allLocalTickers(store: Pick<Store, 'db'>): LocalTicker[] {
  return companyData(store).allTickers.all() as LocalTicker[];
}

/** What an interrupted `data import` left behind: rows up to its last commit are stored. */
export interface InterruptedImport {
  dataset: string;
  file: string;
  /** Rows read and committed before the interruption. */
  rows_committed: number;
  at: string;
}

const interruptedKey = (dataset: string): string => `interrupted:${dataset}`;

/** Marks (or, with null, clears) an interrupted import of `dataset`; later look-ups warn about it. */
export function markInterruptedImport(store: Pick<Store, 'db'>, dataset: string, mark: InterruptedImport | null): void {
  companyData(store);
  if (mark) store.db.prepare('INSERT OR REPLACE INTO company_registry_state (key, value) VALUES (?, ?)').run(interruptedKey(dataset), JSON.stringify(mark));
  else store.db.prepare('DELETE FROM company_registry_state WHERE key = ?').run(interruptedKey(dataset));
}

export function interruptedImport(store: Pick<Store, 'db'>, dataset: string): InterruptedImport | null {
  companyData(store);
  const v = store.db.prepare('SELECT value FROM company_registry_state WHERE key = ?').pluck().get(interruptedKey(dataset)) as string | undefined;
  if (!v) return null;
  try {
    return JSON.parse(v) as InterruptedImport;
  } catch {
    return null;
  }
}

export function importInfo(store: Pick<Store, 'db'>, dataset: 'companies-house' | 'gleif' | 'sec-tickers'): ImportInfo | null {
  return (companyData(store).importInfo.get(dataset) as ImportInfo | undefined) ?? null;
}
