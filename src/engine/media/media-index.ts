/**
 * The known-media index: images and videos whose first appearance the user knows (a wire photo,
 * an archive, a fact-check), keyed by SHA-256 and by perceptual hash, so verification can say
 * "this picture appeared at URL on DATE" even after resizing, recompression or a small crop.
 * Lives in the embedded store under the `media_index` component's own migrations.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { VerityError } from '../../api/errors.js';
import { migrate, type Database, type Store } from '../../store/local/database.js';
import { detectMediaType } from './detect-type.js';
import { readHeader } from './decode.js';
import { hamming, pHash } from './perceptual-hash.js';

const MIGRATIONS = [
  `CREATE TABLE media_index (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     sha256 TEXT NOT NULL,
     phash TEXT,
     name TEXT,
     format TEXT NOT NULL,
     width INTEGER,
     height INTEGER,
     source TEXT NOT NULL,
     url TEXT NOT NULL,
     first_seen TEXT NOT NULL,
     added_at TEXT NOT NULL,
     UNIQUE (sha256, url)
   );
   CREATE INDEX media_index_sha ON media_index (sha256);`,
];

export interface MediaIndexEntry {
  id: number;
  sha256: string;
  phash: string | null;
  name: string | null;
  format: string;
  width: number | null;
  height: number | null;
  source: string;
  url: string;
  first_seen: string;
  added_at: string;
}

export interface MediaIndexMatch extends MediaIndexEntry {
  /** 0 for the identical file; otherwise the pHash Hamming distance (of 64 bits). */
  distance: number;
  exact: boolean;
}

/** Near-duplicate threshold: resized/recompressed copies sit at 0–6 bits, small crops up to ~10. */
export const NEAR_DUPLICATE_BITS = 10;

const ready = new WeakSet<Database>();
function prepare(store: Store): Database {
  if (!ready.has(store.db)) {
    migrate(store.db, 'media_index', MIGRATIONS);
    ready.add(store.db);
  }
  return store.db;
}

/**
 * For reads: the index's database, migrated, when the index exists; undefined when it was never
 * created (nothing was ever added), so that a look-up never creates tables in a store it only reads.
 */
function existingIndex(store: Store): Database | undefined {
  if (ready.has(store.db)) return store.db;
  const found = store.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'media_index'`).get();
  return found ? prepare(store) : undefined;
}

/** `seen` as a date (YYYY-MM-DD) or a timestamp → ISO 8601 UTC; throws VALIDATION_FAILED otherwise. */
export function normaliseSeen(seen: string): string {
  const s = /^\d{4}-\d\d-\d\d$/.test(seen) ? `${seen}T00:00:00Z` : seen;
  const ms = Date.parse(s);
  if (!/^\d{4}-\d\d-\d\d/.test(seen) || !Number.isFinite(ms))
    throw new VerityError('VALIDATION_FAILED', `--seen must be a date (YYYY-MM-DD) or an ISO 8601 timestamp, got "${seen}"`, {
      details: [{ field: 'seen', issue: 'must be an ISO 8601 date or timestamp' }],
    });
  return new Date(ms).toISOString();
}

export interface IndexInput {
  /** File path (read here) or bytes with a display name. */
  file: string | { name: string; bytes: Buffer };
}

export interface AddOptions {
  /** Kind or name of the source, e.g. `reuters`, `archive`, `fact-check`. */
  source: string;
  url: string;
  /** When it was first seen there: YYYY-MM-DD or an ISO timestamp. */
  seen: string;
  now?: Date;
}

/** Adds files to the index (re-adding the same file and URL updates it). Returns the stored rows. */
export async function addToMediaIndex(
  store: Store,
  files: Array<string | { name: string; bytes: Buffer }>,
  opts: AddOptions,
): Promise<MediaIndexEntry[]> {
  if (!opts.source.trim()) throw new VerityError('VALIDATION_FAILED', '--source must not be empty');
  try {
    const u = new URL(opts.url);
    if (!/^https?:$/.test(u.protocol)) throw new Error('scheme');
  } catch {
    throw new VerityError('VALIDATION_FAILED', `--url must be an http(s) URL, got "${opts.url}"`);
  }
  const firstSeen = normaliseSeen(opts.seen);
  const db = prepare(store);
  const out: MediaIndexEntry[] = [];
  for (const f of files) {
    const { name, bytes } =
      typeof f === 'string'
        ? { name: basename(f), bytes: await readFile(f).catch((e: unknown) => { throw new VerityError('NOT_FOUND', `Cannot read ${f}: ${(e as Error).message}`); }) }
        : f;
    const type = await detectMediaType(bytes);
    let phash: string | null = null;
    let width: number | null = null;
    let height: number | null = null;
    if (type.kind === 'image') {
      const h = await readHeader(bytes, type.format);
      width = h.width;
      height = h.height;
      phash = await pHash(bytes).catch(() => null);
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const now = (opts.now ?? new Date()).toISOString();
    db.prepare(
      `INSERT INTO media_index (sha256, phash, name, format, width, height, source, url, first_seen, added_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (sha256, url) DO UPDATE SET source = excluded.source, first_seen = excluded.first_seen, name = excluded.name`,
    ).run(sha256, phash, name, type.format, width, height, opts.source, opts.url, firstSeen, now);
    out.push(db.prepare('SELECT * FROM media_index WHERE sha256 = ? AND url = ?').get(sha256, opts.url) as MediaIndexEntry);
  }
  return out;
}

/** All entries, earliest first-seen first. */
export function listMediaIndex(store: Store): MediaIndexEntry[] {
  const db = existingIndex(store);
  return db ? (db.prepare('SELECT * FROM media_index ORDER BY first_seen, id').all() as MediaIndexEntry[]) : [];
}

/** Identical files (same SHA-256) and near-duplicates (pHash within NEAR_DUPLICATE_BITS). */
export function findInMediaIndex(store: Store, sha256: string, phash: string | null, maxBits = NEAR_DUPLICATE_BITS): MediaIndexMatch[] {
  const db = existingIndex(store);
  if (!db) return [];
  const rows = db.prepare('SELECT * FROM media_index').all() as MediaIndexEntry[];
  const out: MediaIndexMatch[] = [];
  for (const r of rows) {
    if (r.sha256 === sha256) out.push({ ...r, distance: 0, exact: true });
    else if (phash && r.phash) {
      const d = hamming(phash, r.phash);
      if (d <= maxBits) out.push({ ...r, distance: d, exact: false });
    }
  }
  return out.sort((a, b) => a.first_seen.localeCompare(b.first_seen) || a.distance - b.distance);
}
