import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildQuery } from '../../../src/engine/claim/query.js';
import { topKCorpus } from '../../../src/sources/corpus-topk.js';
import { CORPUS_MIGRATIONS, corpusSize, corpusStats, ftsPhrases, importCorpus, migrateCorpus, removeCorpusRows, searchCorpus } from '../../../src/sources/local-corpus.js';
import { openStore, type Store } from '../../../src/store/local/database.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-topk-'));
const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = async (): Promise<Store> => {
  const s = await openStore(':memory:');
  stores.push(s);
  return s;
};
const count = (s: Store): number => s.db.prepare('SELECT count(*) FROM corpus_docs').pluck().get() as number;

/** Filler passages: each holds one common claim word and nothing else the claim has. */
function corpus(n: number): string[] {
  const common = ['tower', 'paris', 'built'];
  const rows = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ text: `Row r${i} mentions the ${common[i % 3]} once among filler words alpha beta gamma delta.`, url: `https://f.example/${i}` }),
  );
  rows.push(JSON.stringify({ text: 'The Eiffel Tower in Paris was completed in 1889.', url: 'https://gold.example/1' }));
  rows.push(JSON.stringify({ text: 'The tower stands in Paris on the Champ de Mars.', url: 'https://gold.example/2' }));
  rows.push(JSON.stringify({ text: 'A long passage about the Eiffel tower ' + 'with many unrelated words in it '.repeat(30), url: 'https://long.example/1' }));
  return rows;
}

describe('bounded top-k over the local corpus', () => {
  it('ranks the passages holding several claim words first, like bm25() over every match', async () => {
    const s = await store();
    const file = join(dir, 'topk.jsonl');
    writeFileSync(file, corpus(3000).join('\n'));
    await importCorpus(s, file);
    const q = buildQuery('The Eiffel Tower was built in Paris in 1889', 'en');
    const bounded = searchCorpus(s.db, q, 5).map((h) => h.url);
    const exact = searchCorpus(s.db, q, 5, { exactPostings: Number.MAX_SAFE_INTEGER }).map((h) => h.url);
    expect(bounded[0]).toBe('https://gold.example/1');
    // The same two passages lead both rankings; then the long one with two claim words, ahead
    // of the 3,000 rows holding one word ("paris", which bm25() also counts as "pari"*).
    expect(new Set(exact.slice(0, 2))).toEqual(new Set(bounded.slice(0, 2)));
    expect(new Set(bounded.slice(0, 2))).toEqual(new Set(['https://gold.example/1', 'https://gold.example/2']));
    expect(bounded[2]).toBe('https://long.example/1');
  });

  it('takes the bounded path above the exact threshold and scores few rows with many matches', async () => {
    const s = await store();
    const file = join(dir, 'topk-path.jsonl');
    writeFileSync(file, corpus(600).join('\n'));
    await importCorpus(s, file);
    const phrases = ftsPhrases(['eiffel', 'tower', 'paris']);
    const r = topKCorpus(s.db, phrases, corpusStats(s.db), 3);
    expect(r.path).toBe('bounded');
    expect(r.ids.length).toBe(3);
    expect(topKCorpus(s.db, phrases, corpusStats(s.db), 3, { exactPostings: 1e9 }).path).toBe('exact');
  });

  it('finds rows of one term when no row holds two, and answers one-word queries', async () => {
    const s = await store();
    const file = join(dir, 'topk-fill.jsonl');
    writeFileSync(file, corpus(30).join('\n'));
    await importCorpus(s, file);
    const hits = searchCorpus(s.db, buildQuery('Champ Mars', 'en'), 10);
    expect(hits[0]!.url).toBe('https://gold.example/2');
    expect(searchCorpus(s.db, buildQuery('1889', 'en'), 10).map((h) => h.url)).toEqual(['https://gold.example/1']);
    // No row holds two of the claim's words (two are in no row at all): the rows holding one.
    expect(searchCorpus(s.db, buildQuery('Eiffel was renamed by the Romans', 'en'), 10).map((h) => h.url).sort()).toEqual([
      'https://gold.example/1',
      'https://long.example/1',
    ]);
    // Words with diacritics find their unaccented form in the index (and the other way round).
    const accents = join(dir, 'accents.jsonl');
    writeFileSync(accents, [JSON.stringify({ text: 'Le café de la gare ouvre à six heures.', url: 'https://cafe.example/1' })].join('\n'));
    await importCorpus(s, accents);
    expect(searchCorpus(s.db, buildQuery('cafe gare heures', 'fr'), 3)[0]?.url).toBe('https://cafe.example/1');
  });
  it('fills the rest of a short list with rows holding one claim word, ranked after the rows holding two', async () => {
    const s = await store();
    const file = join(dir, 'topk-pad.jsonl');
    const common = ['tower', 'paris', 'built'];
    const rows = Array.from({ length: 40 }, (_, i) => ({ text: `Row r${i} mentions the ${common[i % 3]} once among filler words alpha beta gamma delta.`, url: `https://f.example/${i}` }));
    rows.push({ text: 'The tower was built long ago, ' + 'and the street and the square and the market were added later, '.repeat(6), url: 'https://two.example/1' });
    rows.push({ text: 'Paris has a tower among many other buildings, streets and squares.', url: 'https://two.example/2' });
    // One rare claim word in a short row: bm25() over every match ranks it first of all.
    rows.push({ text: 'Eiffel.', url: 'https://one.example/eiffel' });
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    await importCorpus(s, file);
    const q = buildQuery('The Eiffel Tower was built in Paris', 'en');
    expect(searchCorpus(s.db, q, 8, { exactPostings: Number.MAX_SAFE_INTEGER })[0]!.url).toBe('https://one.example/eiffel');
    const hits = searchCorpus(s.db, q, 8);
    const urls = hits.map((h) => h.url);
    // Two rows hold two of the claim's words: they come first, then six rows holding one, the
    // row of the rarest word first.
    expect(urls).toHaveLength(8);
    expect(new Set(urls.slice(0, 2))).toEqual(new Set(['https://two.example/1', 'https://two.example/2']));
    expect(urls[2]).toBe('https://one.example/eiffel');
    expect(urls.slice(3).every((u) => u.startsWith('https://f.example/'))).toBe(true);
    expect(new Set(urls).size).toBe(8);
    // The rows of one word are marked, so their passages rank after the others' (rankPassages).
    expect(hits.map((h) => h.fill === true)).toEqual([false, false, true, true, true, true, true, true]);
    // A list that rows holding two words fill is not padded: the same two lead, and a limit of
    // two returns only them.
    expect(new Set(searchCorpus(s.db, q, 2).map((h) => h.url))).toEqual(new Set(['https://two.example/1', 'https://two.example/2']));
  });
});

describe('the row counter', () => {
  it('follows imports, re-imports and removals', async () => {
    const s = await store();
    const a = join(dir, 'count-a.jsonl');
    const b = join(dir, 'count-b.jsonl');
    writeFileSync(a, corpus(10).join('\n'));
    writeFileSync(b, [JSON.stringify({ text: 'Only in b.', url: 'https://b.example/1' }), corpus(2)[0]].join('\n'));
    await importCorpus(s, a);
    await importCorpus(s, a);
    await importCorpus(s, b);
    const counted = (): { rows: number; chars: number } =>
      s.db.prepare('SELECT count(*) AS rows, coalesce(sum(length(text)), 0) AS chars FROM corpus_docs').get() as { rows: number; chars: number };
    expect(corpusStats(s.db)).toEqual(counted());
    expect(corpusSize(s.db)).toBe(14);
    removeCorpusRows(s.db, { file: a });
    expect(corpusStats(s.db)).toEqual(counted());
    expect(corpusSize(s.db)).toBe(count(s));
    removeCorpusRows(s.db, { all: true });
    expect(corpusStats(s.db)).toEqual({ rows: 0, chars: 0 });
  });

  it('is created with the right count for a corpus made before it, which keeps working', async () => {
    const s = await store();
    // A corpus as the earlier schema left it: the first two migrations only, rows already in.
    s.db.exec(CORPUS_MIGRATIONS[0]!);
    s.db.exec(CORPUS_MIGRATIONS[1]!);
    const at = '2026-01-01T00:00:00Z';
    for (const [i, text] of ['The Eiffel Tower is in Paris.', 'The tower was built in 1889 in Paris.', 'Unrelated row.'].entries())
      s.db.prepare('INSERT INTO corpus_docs (hash, text, url, added_at, file) VALUES (?, ?, ?, ?, NULL)').run(`h${i}`, text, `https://old.example/${i}`, at);
    s.db.prepare(`INSERT INTO schema_migrations (component, version, applied_at) VALUES ('corpus', 1, ?), ('corpus', 2, ?)`).run(at, at);
    expect(corpusSize(s.db)).toBe(3);
    migrateCorpus(s.db);
    expect(corpusStats(s.db)).toEqual({ rows: 3, chars: s.db.prepare('SELECT sum(length(text)) FROM corpus_docs').pluck().get() });
    const hits = searchCorpus(s.db, buildQuery('The Eiffel Tower was built in Paris', 'en'), 3);
    expect(hits.map((h) => h.url)).toEqual(expect.arrayContaining(['https://old.example/0', 'https://old.example/1']));
    expect(hits.map((h) => h.url)).not.toContain('https://old.example/2');
  });
});

describe('text index upkeep on import', () => {
  const integrity = (s: Store): void => void s.db.exec(`INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('integrity-check', 1)`);
  const indexed = (s: Store): number => s.db.prepare(`SELECT count(*) FROM corpus_fts WHERE corpus_fts MATCH '"common"'`).pluck().get() as number;

  it('indexes an import at its end, and an interrupted one at the next use of the corpus', async () => {
    const s = await store();
    const file = join(dir, 'interrupt.jsonl');
    writeFileSync(file, Array.from({ length: 2000 }, (_, i) => JSON.stringify({ text: `Row r${i} holds a common word.`, url: `https://i.example/${i}` })).join('\n'));
    const ac = new AbortController();
    await expect(importCorpus(s, file, { signal: ac.signal, onProgress: () => ac.abort() })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // The rows written before the interruption are kept, not yet in the text index.
    const kept = count(s);
    expect(kept).toBeGreaterThan(0);
    expect(indexed(s)).toBe(0);
    // Deleting a row that is not indexed yet leaves the index sound.
    s.db.prepare('DELETE FROM corpus_docs WHERE id = (SELECT max(id) FROM corpus_docs)').run();
    migrateCorpus(s.db);
    expect(indexed(s)).toBe(kept - 1);
    integrity(s);
    // The re-run adds the rest, indexed, and the per-row trigger is back for other writers.
    await importCorpus(s, file);
    expect(indexed(s)).toBe(2000);
    integrity(s);
    s.db.prepare(`INSERT INTO corpus_docs (hash, text, url, added_at) VALUES ('x', 'one more common row', 'u', 't')`).run();
    expect(indexed(s)).toBe(2001);
    removeCorpusRows(s.db, { all: true });
    expect(indexed(s)).toBe(0);
    integrity(s);
  });

  const mark = (s: Store): number | undefined => s.db.prepare(`SELECT value FROM corpus_stats WHERE key = 'fts_pending_from'`).pluck().get() as number | undefined;
  const rows = (name: string, n: number): string => {
    const file = join(dir, name);
    writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify({ text: `${name} row ${i} holds a common word.`, url: `https://${name}/${i}` })).join('\n'));
    return file;
  };

  it('indexes every row of an import when the highest row is deleted before the import writes (no id at or below its mark)', async () => {
    const s = await store();
    await importCorpus(s, rows('before.jsonl', 3));
    const running = importCorpus(s, rows('during.jsonl', 3));
    // The import sets its mark, then reads its file: no row of it is written until the file is read.
    for (let turn = 0; turn < 10_000 && mark(s) === undefined; turn++) await new Promise((r) => setImmediate(r));
    expect(mark(s)).toBe(3);
    expect(count(s)).toBe(3);
    // Another writer (`corpus rm`, another process) deletes the highest row meanwhile.
    s.db.prepare('DELETE FROM corpus_docs WHERE id = 3').run();
    expect(await running).toMatchObject({ added: 3 });
    expect(indexed(s)).toBe(5);
    integrity(s);
    // Each of them leaves the index, too.
    removeCorpusRows(s.db, { all: true });
    expect(indexed(s)).toBe(0);
    integrity(s);
  });
});
