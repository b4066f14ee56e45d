/**
 * The bulk import's fast paths must give exactly what the general code gives: the byte-level
 * column reader against csvRecords, the plain-ASCII name folding against the general folding
 * (the reference below is the general algorithm of names.ts, before the fast path existed).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importCompaniesHouse } from '../../../src/engine/business/bulk-import.js';
import { csvColumnBatches, csvRecords } from '../../../src/sources/csv-records.js';
import { findLocal } from '../../../src/engine/business/local-registry.js';
import { LEGAL_FORMS, foldName, nameKey } from '../../../src/engine/business/names.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { CH_HEADER, chRow } from './bulk-import.test.js';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

async function columns(chunks: Buffer[], pick: number[]): Promise<string[][]> {
  const out: string[][] = [];
  let header: string[] = [];
  for await (const b of csvColumnBatches(Readable.from(chunks), (h) => ((header = h), pick))) {
    for (let i = 0; i < b.records; i++) out.push(b.values.slice(i * pick.length, (i + 1) * pick.length));
  }
  return [header, ...out];
}

describe('csvColumnBatches', () => {
  const text =
    '\uFEFFa,b,c,d\r\n"x, y","he said ""hi""","multi\nline",z\r\nplain,,last\n\n"Société","naïve ""q""",ü,"tail"x\r\n"",,"",\n' +
    'short\r\n"1","2","3","4"';
  const bytes = Buffer.from(text);

  it('gives the selected columns of what csvRecords reads, at every chunk border', async () => {
    const all = [];
    for await (const r of csvRecords(Readable.from([bytes]))) all.push(r);
    const pick = [2, 0, 3, -1];
    const expected = all.map((r, i) => (i === 0 ? r : pick.map((c) => (c >= 0 ? r[c] ?? '' : ''))));
    expect(await columns([bytes], pick)).toEqual(expected);
    // Every split point (multi-byte characters cut in half included), and one byte at a time.
    for (let cut = 1; cut < bytes.length; cut++) expect(await columns([bytes.subarray(0, cut), bytes.subarray(cut)], pick)).toEqual(expected);
    expect(await columns([...bytes].map((x) => Buffer.from([x])), pick)).toEqual(expected);
  });

  it('refuses a record that never ends (an unbalanced quote) instead of buffering the file', async () => {
    const huge = Buffer.alloc(1 << 20, 'a');
    async function* endless() {
      yield Buffer.from('h\n"open');
      for (let i = 0; i < 10; i++) yield huge;
    }
    await expect(columns([], [0]).then(() => 0)).resolves.toBe(0);
    const read = async () => {
      for await (const b of csvColumnBatches(endless(), () => [0])) void b;
    };
    await expect(read()).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});

// The general folding of names.ts (no fast path), as the reference.
function referenceFold(raw: string): string {
  let s = raw.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
  s = s.replace(/ß/g, 'ss').replace(/æ/g, 'ae').replace(/ø/g, 'o').replace(/œ/g, 'oe').replace(/ł/g, 'l');
  s = s.replace(/&/g, ' and ').replace(/\+/g, ' and ');
  s = s.replace(/\b((?:\p{L}\.){2,})/gu, (m) => m.replace(/\./g, ''));
  s = s.replace(/['’`]/g, '').replace(/[^\p{L}\p{N}]+/gu, ' ');
  return s.trim().replace(/\s+/g, ' ');
}

// The word-by-word legal-form stripping names.ts had before its string-scanning version.
function referenceNameKey(raw: string): { base: string; form: string } {
  let words = foldName(raw).split(' ').filter(Boolean);
  if (words[0] === 'the' && words.length > 1) words = words.slice(1);
  const forms: string[] = [];
  const byLength = [...LEGAL_FORMS].map(([s, c]) => [s.split(' '), c] as const).sort((a, b) => b[0].length - a[0].length);
  for (let changed = true; changed && words.length > 1; ) {
    changed = false;
    for (const [spelling, canon] of byLength) {
      if (spelling.length >= words.length || spelling.at(-1) !== words.at(-1)) continue;
      if (words.slice(words.length - spelling.length).every((w, i) => w === spelling[i])) {
        forms.unshift(canon);
        words = words.slice(0, words.length - spelling.length);
        changed = true;
        break;
      }
    }
  }
  return { base: words.join(' '), form: forms.join(' ') };
}

describe('name keys on the import fast path', () => {
  it('strip legal forms exactly as the word-by-word algorithm does', () => {
    const r = rng(11);
    const words = ['the', 'acme', 'co', 'ltd', 'limited', 'company', 'public', 'liability', 'partnership', 'pty', 'inc', 'sa', 'gmbh', 'x', 'holdings', 'proprietary', 'llc', 'lp'];
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor(r() * 6);
      const name = Array.from({ length: n }, () => words[Math.floor(r() * words.length)]).join(r() < 0.5 ? ' ' : ', ');
      expect(nameKey(name), name).toEqual(referenceNameKey(name));
    }
  });

  it('fold plain ASCII names exactly as the general path does', () => {
    const r = rng(7);
    const alphabet = 'ABCdefXYZ 0123456789 ,-_/()!#$%*:;<=>?@[]^{|}~"&.+\'`   ';
    const words = ['LTD', 'LIMITED', 'THE', 'CO', 'PLC', 'S.A.', 'L.L.C.', 'HOLDINGS', 'Pty Ltd', '&', 'A.B.', '_x.y.'];
    for (let i = 0; i < 20_000; i++) {
      let name = '';
      const len = Math.floor(r() * 6);
      for (let k = 0; k < len; k++) name += r() < 0.3 ? ` ${words[Math.floor(r() * words.length)]} ` : alphabet[Math.floor(r() * alphabet.length)];
      expect(foldName(name), JSON.stringify(name)).toBe(referenceFold(name));
    }
  });

  it('strip the same legal forms as before', () => {
    expect(nameKey('THE ACME HOLDINGS CO LTD')).toEqual({ base: 'acme holdings', form: 'co ltd' });
    expect(nameKey('THE LIMITED')).toEqual({ base: 'limited', form: '' });
    expect(nameKey('THE')).toEqual({ base: 'the', form: '' });
    expect(nameKey('  ')).toEqual({ base: '', form: '' });
    expect(nameKey('ALPHA PUBLIC LIMITED COMPANY')).toEqual({ base: 'alpha', form: 'plc' });
    expect(nameKey('LIMITED PARTNERSHIP LP')).toEqual({ base: 'limited partnership', form: 'lp' });
  });
});

describe('re-imports', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'verity-biz-fast-'));
    store = await openStore(join(dir, 'verity.db'));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
  const ftsHits = (q: string) => (store.db.prepare('SELECT COUNT(*) AS n FROM company_registry_fts WHERE company_registry_fts MATCH ?').get(q) as { n: number }).n;
  const write = (file: string, rows: string[]) => writeFileSync(file, [CH_HEADER, ...rows].join('\r\n') + '\r\n');
  const many = (n: number, rename = -1) =>
    Array.from({ length: n }, (_, i) => chRow(i === rename ? `RENAMED NUMBER ${i} LTD` : `COMPANY NUMBER ${i} LTD`, String(i + 1), 'Active', '01/01/2000'));

  it('skip unchanged rows, keep the text index in step row by row, and rebuild when much changes', async () => {
    const file = join(dir, 'ch.csv');
    write(file, many(300));
    expect(await importCompaniesHouse(store, file)).toMatchObject({ rows: 300, upserted: 300, unchanged: 0 });
    const versions = () => count("SELECT SUM(batch) AS n FROM company_registry WHERE source = 'companies_house'");
    const before = versions();
    // Same file: nothing is rewritten (the batch marks are untouched).
    expect(await importCompaniesHouse(store, file)).toMatchObject({ rows: 300, upserted: 300, unchanged: 300 });
    expect(versions()).toBe(before);
    // One renamed company: only that row changes, and the text index follows it (incremental path).
    write(file, many(300, 42));
    expect(await importCompaniesHouse(store, file)).toMatchObject({ unchanged: 299 });
    expect(findLocal(store, { source: 'companies_house', key: 'renamed' }).map((r) => r.record_id)).toEqual(['00000043']);
    expect(ftsHits('"company" "number" "42"')).toBe(0);
    expect(ftsHits('"renamed" "42"')).toBe(1);
    expect(count('SELECT COUNT(*) AS n FROM company_registry_state')).toBe(0);
    // The text index matches the table exactly (FTS5's own check of an external-content index).
    expect(() => store.db.exec("INSERT INTO company_registry_fts (company_registry_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow();
  });

  it('replace removes what a snapshot lacks even when every other row is unchanged', async () => {
    const file = join(dir, 'ch.csv');
    write(file, many(50));
    await importCompaniesHouse(store, file);
    write(file, many(50).slice(0, 40));
    expect(await importCompaniesHouse(store, file, { replace: true })).toMatchObject({ rows: 40, unchanged: 40, removed: 10 });
    expect(count("SELECT COUNT(*) AS n FROM company_registry WHERE source = 'companies_house'")).toBe(40);
    expect(ftsHits('"45"')).toBe(0);
    expect(ftsHits('"39"')).toBe(1);
    expect(findLocal(store, { source: 'companies_house', number: '00000045' })).toEqual([]);
    expect(() => store.db.exec("INSERT INTO company_registry_fts (company_registry_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow();
  });

  it('an interrupted import leaves no half-written batch and the next one rebuilds the text index', async () => {
    const file = join(dir, 'ch.csv');
    write(file, many(30));
    const stop = new AbortController();
    stop.abort();
    // Aborted before its first batch was written: nothing of it is stored.
    await expect(importCompaniesHouse(store, file, { signal: stop.signal })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(count('SELECT COUNT(*) AS n FROM company_registry_state')).toBe(1);
    expect(count('SELECT COUNT(*) AS n FROM company_registry')).toBe(0);
    await importCompaniesHouse(store, file);
    expect(count('SELECT COUNT(*) AS n FROM company_registry_state')).toBe(0);
    expect(findLocal(store, { source: 'companies_house', key: 'number 7' })[0]?.record_id).toBe('00000008');
  });
});
