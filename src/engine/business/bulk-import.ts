/**
 * Streaming importers for the offline registry files (`verity data import …`). Each reads its
 * file in chunks (constant memory), writes rows in transactions of BATCH_ROWS, and upserts on
 * the record's key, so running the same import twice leaves the same data. With `replace`, the
 * file is taken as the whole snapshot: rows of that registry it no longer contains are removed
 * (use it with the single-file product, not with one part of a multi-part download).
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { VerityError } from '../../api/errors.js';
import { normalizeCompanyNumber } from '../../sources/companies-house.js';
import type { Store } from '../../store/database.js';
import { csvRecords } from './csv-records.js';
import { fromIso } from './jurisdictions.js';
import { companyData } from './local-registry.js';
import { matchKey } from './names.js';

export const BATCH_ROWS = 10_000;

export interface ImportProgress {
  rows: number;
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
  /** Rows written (inserted, or updated in place on a re-run). */
  upserted: number;
  /** Rows skipped as unusable (no name or number). */
  skipped: number;
  /** Rows removed because a `replace` snapshot no longer has them. */
  removed: number;
}

type Source = string | Readable;

function open(file: Source): { stream: Readable; totalBytes: number | null; label: string } {
  if (typeof file !== 'string') return { stream: file, totalBytes: null, label: '(stream)' };
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new VerityError('NOT_FOUND', `no such file: ${file}`);
  }
  return { stream: createReadStream(file, { highWaterMark: 1 << 20 }), totalBytes: size, label: file };
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

interface Row {
  record_id: string;
  name: string;
  reg_number: string | null;
  jurisdiction: string | null;
  status: string | null;
  incorporated_on: string | null;
  detail: string | null;
}

async function importRegistryCsv(
  store: Pick<Store, 'db'>,
  file: Source,
  dataset: 'companies-house' | 'gleif',
  source: 'companies_house' | 'gleif',
  required: readonly string[],
  toRow: (get: (col: string) => string) => Row | null,
  o: ImportOptions,
): Promise<ImportCounts> {
  const db = store.db;
  companyData(store);
  const { stream, totalBytes, label } = open(file);
  const batch = ((db.prepare('SELECT MAX(batch) AS b FROM company_registry').get() as { b: number | null }).b ?? 0) + 1;
  const upsert = db.prepare(
    `INSERT INTO company_registry (source, record_id, name, name_key, reg_number, jurisdiction, status, incorporated_on, detail, batch)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (source, record_id) DO UPDATE SET
       name = excluded.name, name_key = excluded.name_key, reg_number = excluded.reg_number,
       jurisdiction = excluded.jurisdiction, status = excluded.status,
       incorporated_on = excluded.incorporated_on, detail = excluded.detail, batch = excluded.batch`,
  );
  const write = db.transaction((rows: Row[]) => {
    for (const r of rows)
      upsert.run(source, r.record_id, r.name, matchKey(r.name), r.reg_number, r.jurisdiction, r.status, r.incorporated_on, r.detail, batch);
  });
  // Random-order inserts into the name and text indexes need a page cache larger than SQLite's
  // 2 MB default to stay fast; 64 MB keeps the import well inside its memory budget.
  const cacheBefore = db.pragma('cache_size', { simple: true }) as number;
  db.pragma('cache_size = -65536');

  const counts: ImportCounts = { rows: 0, upserted: 0, skipped: 0, removed: 0 };
  let bytes = 0;
  let index: Map<string, number> | null = null;
  let pending: Row[] = [];
  const flush = () => {
    if (!pending.length) return;
    write(pending);
    pending = [];
    o.onProgress?.({ rows: counts.rows, bytes, totalBytes });
  };
  try {
    for await (const rec of csvRecords(counted(stream, (n) => (bytes += n)))) {
      if (!index) {
        // The product's header has stray spaces (" CompanyNumber"): trim before matching.
        index = new Map(rec.map((h, i) => [h.trim(), i]));
        const missing = required.filter((c) => !index!.has(c));
        if (missing.length)
          throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is not a ${dataset} CSV: missing column(s) ${missing.join(', ')}`);
        continue;
      }
      if (rec.length === 1 && rec[0] === '') continue;
      counts.rows++;
      const idx = index;
      const row = toRow((col) => {
        const i = idx.get(col);
        return i === undefined ? '' : (rec[i] ?? '').trim();
      });
      if (!row) {
        counts.skipped++;
        continue;
      }
      pending.push(row);
      if (pending.length >= BATCH_ROWS) {
        flush();
        if (o.signal?.aborted) throw new VerityError('UNAVAILABLE', 'import interrupted');
      }
    }
    if (!index) throw new VerityError('UNPROCESSABLE_CONTENT', `${label} is empty: no header row`);
    flush();
  } finally {
    stream.destroy();
    db.pragma(`cache_size = ${Number(cacheBefore) || -2000}`);
  }
  counts.upserted = counts.rows - counts.skipped;
  if (o.replace) counts.removed = db.prepare('DELETE FROM company_registry WHERE source = ? AND batch < ?').run(source, batch).changes;
  // The text index follows the table in one pass (local-registry.ts explains why not triggers).
  db.pragma('cache_size = -65536');
  try {
    db.exec("INSERT INTO company_registry_fts (company_registry_fts) VALUES ('rebuild')");
    // Merge the rebuild's segments into one b-tree: fuzzy look-ups get about 3x faster.
    db.exec("INSERT INTO company_registry_fts (company_registry_fts) VALUES ('optimize')");
  } finally {
    db.pragma(`cache_size = ${Number(cacheBefore) || -2000}`);
  }
  db.prepare(
    `INSERT INTO company_imports (dataset, file, rows, batch, imported_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (dataset) DO UPDATE SET file = excluded.file, rows = excluded.rows, batch = excluded.batch, imported_at = excluded.imported_at`,
  ).run(dataset, label, counts.rows, batch, (o.now?.() ?? new Date()).toISOString());
  o.onProgress?.({ rows: counts.rows, bytes, totalBytes });
  return counts;
}

/** Companies House "Free Company Data Product" CSV (BasicCompanyDataAsOneFile-*.csv or a part). */
export function importCompaniesHouse(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  return importRegistryCsv(
    store,
    file,
    'companies-house',
    'companies_house',
    ['CompanyName', 'CompanyNumber', 'CompanyStatus', 'IncorporationDate'],
    (get) => {
      const name = get('CompanyName');
      const number = normalizeCompanyNumber(get('CompanyNumber'));
      if (!name || !number) return null;
      const category = get('CompanyCategory');
      const dissolved = ukDate(get('DissolutionDate'));
      return {
        record_id: number,
        name,
        reg_number: number,
        jurisdiction: 'gb',
        status: get('CompanyStatus') || null,
        incorporated_on: ukDate(get('IncorporationDate')),
        detail: category || dissolved ? JSON.stringify({ category: category || undefined, dissolved_on: dissolved ?? undefined }) : null,
      };
    },
    o,
  );
}

/** GLEIF golden copy, LEI-CDF level 1 CSV (…-gleif-goldencopy-lei2-golden-copy.csv). */
export function importGleif(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  return importRegistryCsv(
    store,
    file,
    'gleif',
    'gleif',
    ['LEI', 'Entity.LegalName', 'Entity.EntityStatus'],
    (get) => {
      const lei = get('LEI').toUpperCase();
      const name = get('Entity.LegalName');
      if (!lei || !name) return null;
      const jurisdiction = fromIso(get('Entity.LegalJurisdiction'));
      const ra = get('Entity.RegistrationAuthority.RegistrationAuthorityEntityID');
      return {
        record_id: lei,
        name,
        reg_number: ra ? registeredAsKey(ra, jurisdiction) : null,
        jurisdiction,
        status: get('Entity.EntityStatus') || null,
        incorporated_on: isoDate(get('Entity.EntityCreationDate')),
        detail: JSON.stringify({
          registered_as: ra || undefined,
          registration_authority: get('Entity.RegistrationAuthority.RegistrationAuthorityID') || undefined,
          registration_status: get('Registration.RegistrationStatus') || undefined,
          expiration_reason: get('Entity.EntityExpirationReason') || undefined,
          last_update: isoDate(get('Registration.LastUpdateDate')) ?? undefined,
        }),
      };
    },
    o,
  );
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
export async function importSecTickers(store: Pick<Store, 'db'>, file: Source, o: ImportOptions = {}): Promise<ImportCounts> {
  const db = store.db;
  companyData(store);
  const { stream, totalBytes, label } = open(file);
  const upsert = db.prepare(
    `INSERT INTO sec_tickers (cik, ticker, title, name_key) VALUES (?, ?, ?, ?)
     ON CONFLICT (cik, ticker) DO UPDATE SET title = excluded.title, name_key = excluded.name_key`,
  );
  const counts: ImportCounts = { rows: 0, upserted: 0, skipped: 0, removed: 0 };
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
    o.onProgress?.({ rows: counts.rows, bytes, totalBytes });
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
