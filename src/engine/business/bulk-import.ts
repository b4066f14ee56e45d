/**
 * Streaming importers for the offline registry files (`verity data import …`). Each reads its
 * file in chunks (constant memory) and writes rows keyed on the record's id, so running the same
 * import twice leaves the same data; the registry CSVs skip rows whose stored hash is unchanged
 * and commit about once a second (sec_tickers, ~10,000 rows: BATCH_ROWS). With `replace`, the
 * file is taken as the whole snapshot: rows of that registry it no longer contains are removed
 * (use it with the single-file product, not with one part of a multi-part download).
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { VerityError } from '../../api/errors.js';
import { normalizeCompanyNumber } from '../../sources/companies-house.js';
import type { Store } from '../../store/local/database.js';
import { csvColumnBatches } from '../../sources/csv-records.js';
import { fromIso } from './jurisdictions.js';
import { COMPANY_REGISTRY_INDEXES, DROP_COMPANY_REGISTRY_INDEXES, companyData, interruptedImport, markInterruptedImport } from './local-registry.js';
import { matchKey } from './names.js';

/** Rows per transaction of the SEC tickers import. */
export const BATCH_ROWS = 10_000;

export interface ImportProgress {
  rows: number;
  /** Rows committed so far: what an interruption keeps. */
  committedRows: number;
  bytes: number;
  /** File size when known (a path was given), for a progress bar. */
  totalBytes: number | null;
}

export interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  /** The file is a complete snapshot: remove this registry's rows it does not contain. */
  replace?: boolean;
  signal?: AbortSignal;
  /** Clock for `imported_at` (tests). */
  now?: () => Date;
}

export interface ImportCounts {
  /** Data rows read from the file. */
  rows: number;
  /** Rows stored: inserted, updated in place, or found unchanged on a re-run. */
  upserted: number;
  /** Of those, rows already stored with the same values (not rewritten). */
  unchanged: number;
  /** Rows skipped as unusable (no name or number). */
  skipped: number;
  /** Rows removed because a `replace` snapshot no longer has them. */
  removed: number;
}

type Source = string | Readable;

function open(file: Source): { stream: () => Readable; totalBytes: number | null; label: string } {
  if (typeof file !== 'string') return { stream: () => file, totalBytes: null, label: '(stream)' };
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new VerityError('NOT_FOUND', `no such file: ${file}`);
  }
  return { stream: () => createReadStream(file, { highWaterMark: 1 << 20 }), totalBytes: size, label: file };
}

/** Counts bytes as the stream is read, for progress. */
async function* counted(stream: Readable, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    onBytes(b.length);
    yield b;
  }
}

/** "DD/MM/YYYY" (the Free Company Data Product) → "YYYY-MM-DD"; "" or malformed → null. */
export function ukDate(s: string | undefined): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec((s ?? '').trim());
  return m ? `${m[3]}-${m[2]}-${m[1]}` : null;
}
/** ISO timestamps of the golden copy ("2012-11-29T00:00:00.000Z") → date part. */
const isoDate = (s: string | undefined): string | null => (/^\d{4}-\d{2}-\d{2}/.test(s ?? '') ? s!.slice(0, 10) : null);

/** Values of one registry row as read from its file, in the order of the table's columns. */
type Row = [
  record_id: string,
  name: string,
  reg_number: string | null,
  jurisdiction: string | null,
  status: string | null,
  incorporated_on: string | null,
  detail: string | null,
];

/**
 * A registry CSV importer: the file's columns it reads (`required` ones must be in the header)
 * and how one record's values (trimmed, in `columns` order, '' when absent) become a row.
 */
interface RegistryCsv {
  source: 'companies_house' | 'gleif';
  columns: readonly string[];
  required: readonly string[];
  toRow: (v: readonly string[]) => Row | null;
}
export type RegistryDataset = 'companies-house' | 'gleif';

/** Values per stored row in a ParsedBatch: record_id, name, name_key, reg_number, jurisdiction, status, incorporated_on, detail. */
export const PARSED_WIDTH = 8;

/** The rows of one chunk of a registry file, ready to store (plain data: it crosses threads). */
export interface ParsedBatch {
  values: Array<string | null>;
  /** rowHash of each row's values. */
  hashes: number[];
  /** Data records read (stored + skipped). */
  rows: number;
  skipped: number;
  /** File bytes read so far. */
  bytes: number;
}

/**
 * Reads a registry CSV into batches of stored values (the name key computed here, the costly
 * part besides SQLite). Parsing stays on the importing thread: measured on 2 cores, the writer is
 * SQLite-bound and moving rows to a worker thread cost about what it saved (docs/business.md).
 */
export async function* parseRegistryCsv(input: AsyncIterable<Buffer | string>, dataset: RegistryDataset, label: string): AsyncGenerator<ParsedBatch> {
  const spec = REGISTRY_CSV[dataset];
  const width = spec.columns.length;
  let sawHeader = false;
  const select = (header: string[]): number[] => {
    sawHeader = true;
    // The product's header has stray spaces (" CompanyNumber"): trim before matching.
    const index = new Map(header.map((h, i) => [h.trim(), i]));
    const missing = spec.required.filter((c) => !index.has(c));
    if (missing.length) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is not a ${dataset} CSV: missing column(s) ${missing.join(', ')}`);
    return spec.columns.map((c) => index.get(c) ?? -1);
  };
  const rec = new Array<string>(width);
  for await (const chunk of csvColumnBatches(input, select)) {
    const v = chunk.values;
    const out: Array<string | null> = [];
    const hashes: number[] = [];
    let skipped = 0;
    for (let at = 0; at < v.length; at += width) {
      for (let k = 0; k < width; k++) rec[k] = v[at + k]!.trim();
      const r = spec.toRow(rec);
      if (r) {
        const key = matchKey(r[1]);
        out.push(r[0], r[1], key, r[2], r[3], r[4], r[5], r[6]);
        hashes.push(rowHash(r, key));
      } else skipped++;
    }
    yield { values: out, hashes, rows: chunk.records, skipped, bytes: chunk.bytes };
  }
  if (!sawHeader) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is empty: no header row`);
}

/**
 * A 53-bit hash of a row's stored values (name key included, so a change to the key algorithm
 * counts as a change): two 32-bit multiplicative lanes over the values and their separators.
 * It is compared with the stored one to skip unchanged rows; computed on the parsing thread, it
 * spares the writer the binding and comparing of every value. A collision (2^-53 per changed
 * row) would leave one row stale until its next change.
 */
export function rowHash(r: Row, key: string): number {
  // Module-level lanes rather than closures: this runs a million times per import.
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;
  hashValue(r[0]);
  hashValue(r[1]);
  hashValue(key);
  for (let k = 2; k < 7; k++) hashValue(r[k] as string | null);
  const a = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const b = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}
let h1 = 0;
let h2 = 0;
function hashValue(v: string | null): void {
  let a = h1;
  let b = h2;
  if (v === null) {
    a = Math.imul(a ^ 0x110000, 2654435761);
    b = Math.imul(b ^ 0x110000, 1597334677);
  } else {
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      a = Math.imul(a ^ c, 2654435761);
      b = Math.imul(b ^ c, 1597334677);
    }
  }
  // A separator after each value: ("ab", "c") and ("a", "bc") differ.
  h1 = Math.imul(a ^ 0x110001, 2654435761);
  h2 = Math.imul(b ^ 0x110001, 1597334677);
}

// Rows per write transaction, and the longest a transaction may stay open: other processes
// sharing the store (the server's key and webhook tables) wait at most this long for the lock,
// well inside their 5 s busy timeout. Fewer, larger transactions write each touched index page
// to the WAL once per transaction instead of once per 10,000 rows.
const TXN_MAX_MS = 1000;
// Below this share of the table changing, the text index is kept up to date row by row (cheap
// for a re-import where little changed); above it one rebuild at the end is cheaper.
const INCREMENTAL_FTS_SHARE = 0.25;
const INCREMENTAL_FTS_MIN = 20_000;

const FTS_TRIGGERS = `
  CREATE TEMP TRIGGER IF NOT EXISTS company_registry_fts_ins AFTER INSERT ON company_registry BEGIN
    INSERT INTO company_registry_fts (rowid, name_key) VALUES (new.rid, new.name_key);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS company_registry_fts_upd AFTER UPDATE OF name_key ON company_registry
    WHEN old.name_key IS NOT new.name_key BEGIN
    INSERT INTO company_registry_fts (company_registry_fts, rowid, name_key) VALUES ('delete', old.rid, old.name_key);
    INSERT INTO company_registry_fts (rowid, name_key) VALUES (new.rid, new.name_key);
  END;
  CREATE TEMP TRIGGER IF NOT EXISTS company_registry_fts_del AFTER DELETE ON company_registry BEGIN
    INSERT INTO company_registry_fts (company_registry_fts, rowid, name_key) VALUES ('delete', old.rid, old.name_key);
  END;`;
const DROP_FTS_TRIGGERS = `
  DROP TRIGGER IF EXISTS temp.company_registry_fts_ins;
  DROP TRIGGER IF EXISTS temp.company_registry_fts_upd;
  DROP TRIGGER IF EXISTS temp.company_registry_fts_del;`;

/**
 * Runs one import and keeps an unfinished one on record: rows up to the last commit stay stored,
 * and the store notes that the dataset is incomplete until an import of it finishes, so later
 * look-ups say so instead of answering from part of a register as if it were whole. The note is
 * written before the first row and cleared at the end, so it also survives a killed process.
 */
async function recordingInterruption(
  store: Pick<Store, 'db'>,
  file: Source,
  dataset: string,
  o: ImportOptions,
  run: (o: ImportOptions) => Promise<ImportCounts>,
): Promise<ImportCounts> {
  const before = interruptedImport(store, dataset);
  const mark = (rows: number): void =>
    markInterruptedImport(store, dataset, {
      dataset,
      file: typeof file === 'string' ? file : '(stream)',
      rows_committed: rows,
      at: (o.now?.() ?? new Date()).toISOString(),
    });
  mark(0);
  let committed = 0;
  try {
    const counts = await run({
      ...o,
      onProgress: (p) => {
        if (p.committedRows !== committed) mark((committed = p.committedRows));
        o.onProgress?.(p);
      },
    });
    markInterruptedImport(store, dataset, null);
    return counts;
  } catch (err) {
    // Nothing committed (a wrong file, interrupted at once): the data is as it was before.
    if (committed === 0) markInterruptedImport(store, dataset, before);
    throw err;
  }
}

function importRegistryCsv(store: Pick<Store, 'db'>, file: Source, dataset: RegistryDataset, o: ImportOptions): Promise<ImportCounts> {
  return recordingInterruption(store, file, dataset, o, (o2) => importRegistryCsvOnce(store, file, dataset, o2));
}

async function importRegistryCsvOnce(store: Pick<Store, 'db'>, file: Source, dataset: RegistryDataset, o: ImportOptions): Promise<ImportCounts> {
  const db = store.db;
  const { source } = REGISTRY_CSV[dataset];
  companyData(store);
  const { stream: openStream, totalBytes, label } = open(file);
  const batch = ((db.prepare('SELECT MAX(batch) AS b FROM company_registry').get() as { b: number | null }).b ?? 0) + 1;
  // Unchanged rows (same rowHash as stored) are not rewritten: a re-import touches only what
  // changed. The check is one probe of the (source, record_id) index, made only when this
  // registry already has rows.
  const probe = db.prepare('SELECT rid, row_hash FROM company_registry WHERE source = ? AND record_id = ?').raw();
  const hadRows = db.prepare('SELECT 1 FROM company_registry WHERE source = ? LIMIT 1').get(source) !== undefined;
  const upsert = db.prepare(
    `INSERT INTO company_registry (source, record_id, name, name_key, reg_number, jurisdiction, status, incorporated_on, detail, batch, row_hash)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (source, record_id) DO UPDATE SET
       name = excluded.name, name_key = excluded.name_key, reg_number = excluded.reg_number,
       jurisdiction = excluded.jurisdiction, status = excluded.status,
       incorporated_on = excluded.incorporated_on, detail = excluded.detail, batch = excluded.batch,
       row_hash = excluded.row_hash`,
  );
  // With `replace`, an unchanged row still has to be known as present in this snapshot: its
  // rowid goes to a temporary table (no WAL, no page of the store rewritten) instead of the row
  // getting the new batch number (which would rewrite the whole table on a re-import).
  if (o.replace) db.exec('CREATE TEMP TABLE IF NOT EXISTS company_import_seen (rid INTEGER PRIMARY KEY); DELETE FROM temp.company_import_seen');
  const markSeen = o.replace ? db.prepare('INSERT OR IGNORE INTO temp.company_import_seen (rid) VALUES (?)') : null;
  const state = db.prepare('SELECT value FROM company_registry_state WHERE key = ?').pluck();
  const setState = db.prepare('INSERT OR REPLACE INTO company_registry_state (key, value) VALUES (?, ?)');
  const clearState = db.prepare('DELETE FROM company_registry_state WHERE key = ?');

  // The text index: incremental (temporary triggers, this connection only) while few rows
  // change; otherwise one rebuild at the end. Until that rebuild is done the index is marked
  // stale in the database, so an interrupted import is followed by a rebuild, not by trust in
  // a half-updated index.
  const tableRows = (db.prepare('SELECT MAX(rid) AS n FROM company_registry').get() as { n: number | null }).n ?? 0;
  let incremental = tableRows > 0 && state.get('fts_stale') === undefined;
  const incrementalLimit = Math.max(INCREMENTAL_FTS_MIN, tableRows * INCREMENTAL_FTS_SHARE);
  let changed = 0;

  const cacheBefore = db.pragma('cache_size', { simple: true }) as number;
  // Random-order inserts into the name and record indexes need a page cache larger than
  // SQLite's 2 MB default to stay fast; 64 MB keeps the import well inside its memory budget.
  db.pragma('cache_size = -65536');
  db.exec(DROP_FTS_TRIGGERS);
  if (incremental) db.exec(FTS_TRIGGERS);
  else setState.run('fts_stale', String(batch));
  // A first import into an empty table: the secondary indexes are built once at the end from
  // sorted keys rather than grown by a million random-order inserts (about 3 s of 1M rows).
  // Nobody loses an index that had anything in it; should the process die meanwhile, opening
  // the registry (companyData) recreates them.
  const deferIndexes = tableRows === 0;
  if (deferIndexes) db.exec(DROP_COMPANY_REGISTRY_INDEXES);

  const counts: ImportCounts = { rows: 0, upserted: 0, unchanged: 0, skipped: 0, removed: 0 };
  let bytes = 0;
  let inTxn = false;
  let txnStarted = 0;
  const begin = () => {
    db.exec('BEGIN');
    inTxn = true;
    txnStarted = performance.now();
  };
  const commit = () => {
    if (!inTxn) return;
    inTxn = false;
    db.exec('COMMIT');
    o.onProgress?.({ rows: counts.rows, committedRows: counts.rows, bytes, totalBytes });
  };
  const write = (v: Array<string | null>, at: number, hash: number) => {
    const recordId = v[at]!;
    if (hadRows) {
      const prev = probe.get(source, recordId) as [number, number | null] | undefined;
      if (prev && prev[1] === hash) {
        counts.unchanged++;
        markSeen?.run(prev[0]);
        return;
      }
    }
    upsert.run(source, recordId, v[at + 1], v[at + 2], v[at + 3], v[at + 4], v[at + 5], v[at + 6], v[at + 7], batch, hash);
    if (++changed > incrementalLimit && incremental) {
      // Too much is changing for row-by-row index upkeep: rebuild at the end instead.
      db.exec(DROP_FTS_TRIGGERS);
      setState.run('fts_stale', String(batch));
      incremental = false;
    }
  };

  try {
    let stream: Readable | null = null;
    try {
      const batches = parseRegistryCsv(counted((stream = openStream()), () => {}), dataset, label);
      for await (const b of batches) {
        // Interrupted: the open transaction (at most TXN_MAX_MS of work) is rolled back below.
        if (o.signal?.aborted) throw new VerityError('UNAVAILABLE', 'import interrupted');
        if (!inTxn) begin();
        const { values: v, hashes } = b;
        for (let i = 0, at = 0; at < v.length; i++, at += PARSED_WIDTH) write(v, at, hashes[i]!);
        counts.rows += b.rows;
        counts.skipped += b.skipped;
        bytes = b.bytes;
        if (performance.now() - txnStarted >= TXN_MAX_MS) commit();
      }
      commit();
    } catch (err) {
      if (inTxn) db.exec('ROLLBACK');
      throw err;
    } finally {
      stream?.destroy();
    }
    counts.upserted = counts.rows - counts.skipped;
    // With an incremental text index the triggers take the removed rows out of it too.
    if (o.replace)
      counts.removed = db
        .prepare('DELETE FROM company_registry WHERE source = ? AND batch < ? AND rid NOT IN (SELECT rid FROM temp.company_import_seen)')
        .run(source, batch).changes;
  } finally {
    db.exec(DROP_FTS_TRIGGERS);
    if (o.replace) db.exec('DROP TABLE IF EXISTS temp.company_import_seen');
    // Indexes dropped for a first import are built in one sorted pass (also after a failure).
    if (deferIndexes) db.exec(COMPANY_REGISTRY_INDEXES);
  }
  try {
    if (!incremental) {
      // Many rows changed: one rebuild of the text index costs ~4.5 µs/row, per-row triggers ~20.
      db.transaction(() => {
        db.exec("INSERT INTO company_registry_fts (company_registry_fts) VALUES ('rebuild')");
        // Merge the rebuild's segments into one b-tree: fuzzy look-ups get about 3x faster.
        db.exec("INSERT INTO company_registry_fts (company_registry_fts) VALUES ('optimize')");
        clearState.run('fts_stale');
      })();
    }
  } finally {
    db.pragma(`cache_size = ${Number(cacheBefore) || -2000}`);
  }
  db.prepare(
    `INSERT INTO company_imports (dataset, file, rows, batch, imported_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (dataset) DO UPDATE SET file = excluded.file, rows = excluded.rows, batch = excluded.batch, imported_at = excluded.imported_at`,
  ).run(dataset, label, counts.rows, batch, (o.now?.() ?? new Date()).toISOString());
  o.onProgress?.({ rows: counts.rows, committedRows: counts.rows, bytes, totalBytes });
  return counts;
}

// `detail` of a Companies House row: a handful of categories, so the JSON is built once each.
const chDetailCache = new Map<string, string>();
function chDetail(category: string, dissolvedOn: string | null): string | null {
  if (!category && !dissolvedOn) return null;
  if (dissolvedOn) return JSON.stringify({ category: category || undefined, dissolved_on: dissolvedOn });
  let d = chDetailCache.get(category);
  if (d === undefined) {
    d = JSON.stringify({ category });
    if (chDetailCache.size < 1000) chDetailCache.set(category, d);
  }
  return d;
}

const CH_COLUMNS = ['CompanyName', 'CompanyNumber', 'CompanyStatus', 'IncorporationDate', 'CompanyCategory', 'DissolutionDate'] as const;

const GLEIF_COLUMNS = [
  'LEI',
  'Entity.LegalName',
  'Entity.EntityStatus',
  'Entity.LegalJurisdiction',
  'Entity.RegistrationAuthority.RegistrationAuthorityEntityID',
  'Entity.EntityCreationDate',
  'Entity.RegistrationAuthority.RegistrationAuthorityID',
  'Registration.RegistrationStatus',
  'Entity.EntityExpirationReason',
  'Registration.LastUpdateDate',
] as const;

const REGISTRY_CSV: Record<RegistryDataset, RegistryCsv> = {
    // Companies House "Free Company Data Product"
    'companies-house': {
      source: 'companies_house',
      columns: CH_COLUMNS,
      required: CH_COLUMNS.slice(0, 4),
      toRow: ([name, rawNumber, status, incorporated, category, dissolved]) => {
        const number = normalizeCompanyNumber(rawNumber!);
        if (!name || !number) return null;
        return [number, name, number, 'gb', status || null, ukDate(incorporated), chDetail(category!, ukDate(dissolved))];
      },
    },
    // GLEIF golden copy, LEI-CDF level 1
    gleif: {
      source: 'gleif',
      columns: GLEIF_COLUMNS,
      required: GLEIF_COLUMNS.slice(0, 3),
      toRow: ([rawLei, name, status, legalJurisdiction, ra, created, raId, regStatus, expiration, lastUpdate]) => {
        const lei = rawLei!.toUpperCase();
        if (!lei || !name) return null;
        const jurisdiction = fromIso(legalJurisdiction!);
        return [
          lei,
          name,
          ra ? registeredAsKey(ra, jurisdiction) : null,
          jurisdiction,
          status || null,
          isoDate(created),
          JSON.stringify({
            registered_as: ra || undefined,
            registration_authority: raId || undefined,
            registration_status: regStatus || undefined,
            expiration_reason: expiration || undefined,
            last_update: isoDate(lastUpdate) ?? undefined,
          }),
        ];
      },
    },
};

/** Companies House "Free Company Data Product" CSV (BasicCompanyDataAsOneFile-*.csv or a part). */
export function importCompaniesHouse(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  return importRegistryCsv(store, file, 'companies-house', o);
}

/** GLEIF golden copy, LEI-CDF level 1 CSV (…-gleif-goldencopy-lei2-golden-copy.csv). */
export function importGleif(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  return importRegistryCsv(store, file, 'gleif', o);
}

/** A registry number as a join key: Companies House numbers in their 8-character form. */
export function registeredAsKey(raw: string, jurisdiction: string | null): string {
  const compact = raw.replace(/\s+/g, '').toUpperCase();
  if (jurisdiction?.startsWith('gb')) return normalizeCompanyNumber(compact) ?? compact;
  return compact;
}

/**
 * SEC `company_tickers.json`: `{"0":{"cik_str":…,"ticker":…,"title":…},…}`. Read as a stream:
 * each inner object is cut out by a small brace/string scanner and parsed on its own.
 */
export function importSecTickers(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  return recordingInterruption(store, file, 'sec-tickers', o, (o2) => importSecTickersOnce(store, file, o2));
}

async function importSecTickersOnce(store: Pick<Store, 'db'>, file: Source, o: ImportOptions): Promise<ImportCounts> {
  const db = store.db;
  companyData(store);
  const { stream: openStream, totalBytes, label } = open(file);
  const stream = openStream();
  const upsert = db.prepare(
    `INSERT INTO sec_tickers (cik, ticker, title, name_key) VALUES (?, ?, ?, ?)
     ON CONFLICT (cik, ticker) DO UPDATE SET title = excluded.title, name_key = excluded.name_key`,
  );
  const counts: ImportCounts = { rows: 0, upserted: 0, unchanged: 0, skipped: 0, removed: 0 };
  const seen: Array<[number, string]> = [];
  let pending: Array<{ cik_str: unknown; ticker: unknown; title: unknown }> = [];
  let bytes = 0;
  const write = db.transaction((rows: typeof pending) => {
    for (const t of rows) {
      const cik = Number(t.cik_str);
      if (!Number.isInteger(cik) || cik <= 0 || typeof t.title !== 'string' || !t.title.trim()) {
        counts.skipped++;
        continue;
      }
      const ticker = typeof t.ticker === 'string' ? t.ticker : '';
      upsert.run(cik, ticker, t.title, matchKey(t.title));
      if (o.replace) seen.push([cik, ticker]);
      counts.upserted++;
    }
  });
  const flush = () => {
    write(pending);
    pending = [];
    o.onProgress?.({ rows: counts.rows, committedRows: counts.rows, bytes, totalBytes });
  };
  // depth 0: before the outer object; 1: inside it; 2: inside one ticker object (captured).
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let obj = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of counted(stream, (n) => (bytes += n))) {
      if (o.signal?.aborted) throw new VerityError('UNAVAILABLE', 'import interrupted');
      const s = decoder.decode(chunk, { stream: true });
      let from = depth === 2 ? 0 : -1;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (c === 92) escaped = true;
          else if (c === 34) inString = false;
          continue;
        }
        if (c === 34) {
          inString = true;
        } else if (c === 123) {
          if (depth === 0) {
            if (started) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} has data after the outer object`);
            started = true;
            depth = 1;
          } else if (depth === 1) {
            depth = 2;
            from = i;
            obj = '';
          } else {
            throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is not company_tickers.json: nested objects`);
          }
        } else if (c === 125) {
          if (depth === 2) {
            obj += s.slice(from, i + 1);
            from = -1;
            depth = 1;
            counts.rows++;
            try {
              pending.push(JSON.parse(obj));
            } catch {
              counts.skipped++;
            }
            if (pending.length >= BATCH_ROWS) flush();
          } else if (depth === 1) {
            depth = 0;
          }
        } else if (depth === 0 && c !== 32 && c !== 9 && c !== 10 && c !== 13) {
          throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is not company_tickers.json: it does not hold one JSON object`);
        }
      }
      if (depth === 2) obj += s.slice(from);
    }
    if (!started) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is empty`);
    if (depth !== 0 || inString) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is truncated`);
    flush();
  } finally {
    stream.destroy();
  }
  if (o.replace) {
    db.exec('CREATE TEMP TABLE IF NOT EXISTS sec_seen (cik INTEGER, ticker TEXT, PRIMARY KEY (cik, ticker)); DELETE FROM sec_seen');
    const ins = db.prepare('INSERT OR IGNORE INTO sec_seen VALUES (?, ?)');
    db.transaction(() => seen.forEach(([c, t]) => ins.run(c, t)))();
    counts.removed = db.prepare('DELETE FROM sec_tickers WHERE (cik, ticker) NOT IN (SELECT cik, ticker FROM sec_seen)').run().changes;
  }
  db.prepare(
    `INSERT INTO company_imports (dataset, file, rows, batch, imported_at) VALUES ('sec-tickers', ?, ?, 0, ?)
     ON CONFLICT (dataset) DO UPDATE SET file = excluded.file, rows = excluded.rows, imported_at = excluded.imported_at`,
  ).run(label, counts.rows, (o.now?.() ?? new Date()).toISOString());
  return counts;
}
