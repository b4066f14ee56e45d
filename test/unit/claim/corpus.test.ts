import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimResult } from '../../../src/api/results.js';
import { createDefaultPorts } from '../../../src/engine/default-ports.js';
import { createEngine } from '../../../src/engine/index.js';
import { openStore, type Store } from '../../../src/store/local/database.js';
import { corpusFiles, corpusSize, importCorpus, removeCorpusRows } from '../../../src/sources/local-corpus.js';
import { ports, testHttp } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'verity-corpus-'));
const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));
const store = async (): Promise<Store> => {
  const s = await openStore(':memory:');
  stores.push(s);
  return s;
};

const JSONL = [
  { text: 'The city council approved the new bridge budget of 12 million euros in March 2023.', url: 'https://council.example.gov/minutes/2023-03', source: 'Council minutes', published_at: '2023-03-14', authority: 0.95 },
  { text: 'Local blog: the bridge will never be built, the budget was rejected.', url: 'https://blog.example.com/bridge', source: 'Blog', authority: 0.2 },
  { text: '' },
  { text: 'bad authority', url: 'x', authority: 7 },
].map((r) => JSON.stringify(r));

describe('importCorpus', () => {
  it('imports .jsonl rows, rejects invalid ones with line numbers, and is idempotent on re-import', async () => {
    const s = await store();
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, [...JSONL, 'not json', ''].join('\n'));
    const progress: number[] = [];
    const first = await importCorpus(s, file, { onProgress: (p) => progress.push(p.read) });
    expect(first).toEqual({
      added: 2,
      skipped: 0,
      rejected: 3,
      errors: ['line 3: text is empty or missing', 'line 4: authority "7" is not a number between 0 and 1', 'line 5: not valid JSON'],
    });
    expect(progress.at(-1)).toBe(5);
    const again = await importCorpus(s, file);
    expect(again).toMatchObject({ added: 0, skipped: 2 });
    expect(corpusSize(s.db)).toBe(2);
  });

  it('imports .csv with a header row (quoted commas, BOM)', async () => {
    const s = await store();
    const file = join(dir, 'b.csv');
    writeFileSync(file, '\uFEFFtext,url,source,published_at,authority\n"Water boils at 100 degrees Celsius at sea level, per the handbook.",https://nist.example.gov/water,NIST,2020-01-01,0.9\n');
    expect(await importCorpus(s, file)).toMatchObject({ added: 1, rejected: 0 });
  });

  it('reads JSONL lines ended by LF, CRLF or a lone CR, also where a CRLF spans two reads (a BOM dropped)', async () => {
    const s = await store();
    const file = join(dir, 'endings.jsonl');
    const row = (i: number, pad = 0): string => JSON.stringify({ text: `Ending row ${i}`, url: `https://e.example/${i}`, pad: 'x'.repeat(pad) });
    // The first line ends with a CR as the last byte of the first 1 MB read, its LF in the next.
    const first = row(0, (1 << 20) - 4 - row(0).length);
    writeFileSync(file, `\uFEFF${first}\r\n${row(1)}\n${row(2)}\r${row(3)}\r\n\r\n{bad\n${row(4)}`);
    expect(Buffer.byteLength(`\uFEFF${first}`) + 1).toBe(1 << 20);
    const r = await importCorpus(s, file);
    expect(r).toEqual({ added: 5, skipped: 0, rejected: 1, errors: ['line 6: not valid JSON'] });
    expect(s.db.prepare('SELECT text FROM corpus_docs ORDER BY id').pluck().all()).toEqual([0, 1, 2, 3, 4].map((i) => `Ending row ${i}`));
  });

  it('refuses a JSONL line longer than 8 MB rather than buffering it', async () => {
    const s = await store();
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, `${JSONL[0]}\n{"text":"${'a'.repeat((8 << 20) + 10)}"}\n`);
    await expect(importCorpus(s, file)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringContaining('line 2 is longer') });
  });

  it('reads CSV columns by their header names (any case, any order, others ignored), quoted line breaks, short records', async () => {
    const s = await store();
    const file = join(dir, 'columns.csv');
    writeFileSync(
      file,
      [
        'Notes, URL ,TEXT,Authority',
        'ignored,https://c.example/1,"A passage, with a comma and a',
        'line break, and ""quotes"".",0.5',
        'ignored,https://c.example/2,Plain passage two.',
        '',
        'ignored,https://c.example/3,,0.5',
        'ignored,https://c.example/4,Bad authority.,2',
      ].join('\r\n') + '\r\n',
    );
    expect(await importCorpus(s, file)).toEqual({
      added: 2,
      skipped: 0,
      rejected: 2,
      errors: ['line 4: text is empty or missing', 'line 5: authority "2" is not a number between 0 and 1'],
    });
    expect(s.db.prepare('SELECT text, url, authority FROM corpus_docs ORDER BY id').all()).toEqual([
      { text: 'A passage, with a comma and a\r\nline break, and "quotes".', url: 'https://c.example/1', authority: 0.5 },
      { text: 'Plain passage two.', url: 'https://c.example/2', authority: null },
    ]);
  });

  it('refuses missing files, other extensions and files without a valid row', async () => {
    const s = await store();
    await expect(importCorpus(s, join(dir, 'none.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(importCorpus(s, join(dir, 'x.txt'))).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"url":"only"}\n[1,2]\n');
    await expect(importCorpus(s, bad)).rejects.toMatchObject({ code: 'UNPROCESSABLE_CONTENT' });
  });
});

describe('--sources local', () => {
  it('answers from the corpus alone, weighting declared authority', async () => {
    const { http } = testHttp();
    const p = ports({}, http, true);
    const file = join(dir, 'c.jsonl');
    writeFileSync(file, JSONL.join('\n'));
    await importCorpus(await p.store!(), file);
    const r = await createEngine(p).verifyClaim({ claim: 'The city council approved a bridge budget of 12 million euros', sources: ['local'] });
    ClaimResult.parse(r);
    expect(r.verdict).toBe('true');
    expect(r.evidence[0]).toMatchObject({ source: 'local', url: 'https://council.example.gov/minutes/2023-03', supports_claim: true, authority_score: 0.95 });
    // Nothing was fetched over the network; the only missing input is an LLM.
    expect(r.warnings).toEqual(["no LLM configured: llm_analysis is the local stance model's reading"]);
  });

  it('is included in the default sources only when the corpus has rows', async () => {
    const { http } = testHttp({ timeoutMs: 50 });
    const p = ports({ sources: { wikipedia: { base_url: 'http://127.0.0.1:9/w/api.php' }, semantic_scholar: { base_url: 'http://127.0.0.1:9' }, gdelt: { base_url: 'http://127.0.0.1:9' } } }, http, true);
    const engine = createEngine(p);
    const empty = await engine.verifyClaim({ claim: 'bridge budget' }).catch((e: Error) => e.message);
    expect(empty).not.toContain('local');
    const file = join(dir, 'd.jsonl');
    writeFileSync(file, JSONL.join('\n'));
    await importCorpus(await p.store!(), file);
    const r = await engine.verifyClaim({ claim: 'The city council approved a bridge budget of 12 million euros' });
    expect(r.evidence.some((e) => e.source === 'local')).toBe(true);
    expect(r.warnings?.some((w) => w.startsWith('wikipedia failed'))).toBe(true);
  });
});

describe('an empty corpus asked for by name', () => {
  it('alone: NOT_FOUND naming `verity corpus add`, not an unverifiable answer', async () => {
    const { http } = testHttp();
    const err = await createEngine(ports({}, http, true))
      .verifyClaim({ claim: 'The bridge budget was approved', sources: ['local'] })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'sources' }] });
    expect((err as Error).message).toContain('verity corpus add');
  });

  it('beside other sources: a warning, and the others answer', async () => {
    const { http } = testHttp({ timeoutMs: 50 });
    const p = ports({ sources: { wikipedia: { base_url: 'http://127.0.0.1:9/w/api.php' } } }, http, true);
    const err = await createEngine(p).verifyClaim({ claim: 'bridge budget approved', sources: ['local', 'wikipedia'] }).catch((e: Error) => e);
    // Both fail here (no network): the message names the empty corpus among the reasons.
    expect((err as Error).message).toContain('local skipped: the local corpus is empty');
  });
});

describe('a claim only reads the store', () => {
  // The CLI's ports: the store is a file, opened on first use. Network sources point at a closed
  // loopback port and fail at once; what matters is what the claim leaves on disk.
  const claimPorts = (storeFile: string) => {
    const { http } = testHttp({ timeoutMs: 50 });
    const dead = 'http://127.0.0.1:9';
    const config = { sources: { wikipedia: { base_url: `${dead}/w/api.php` }, semantic_scholar: { base_url: dead }, gdelt: { base_url: dead } } };
    return { ...createDefaultPorts({ config, storeFile, ssrfGuard: false }), http };
  };
  const tables = async (file: string): Promise<string[]> => {
    const s = await openStore(file);
    stores.push(s);
    return s.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all() as string[];
  };

  it('creates no store when there is none, with the default sources or `local` by name', async () => {
    const folder = join(dir, 'no-store');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'verity.db');
    const p = claimPorts(file);
    const engine = createEngine(p);
    await engine.verifyClaim({ claim: 'The bridge budget was approved' }).catch(() => undefined);
    await expect(engine.verifyClaim({ claim: 'The bridge budget was approved', sources: ['local'] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    p.closeStore();
    expect(existsSync(file)).toBe(false);
  });

  it('creates no corpus tables in a store that has none', async () => {
    const file = join(dir, 'other-tables.db');
    const made = await openStore(file);
    made.db.exec('CREATE TABLE unrelated (x)');
    made.close();
    const before = await tables(file);
    stores.splice(0).forEach((s) => s.close());
    const p = claimPorts(file);
    const engine = createEngine(p);
    await engine.verifyClaim({ claim: 'The bridge budget was approved' }).catch(() => undefined);
    await expect(engine.verifyClaim({ claim: 'The bridge budget was approved', sources: ['local'] })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    (await p.store!()).close();
    expect(await tables(file)).toEqual(before);
    expect(before).not.toContain('corpus_docs');
  });
});

describe('corpus files (ls / rm)', () => {
  it('records the file of each row; removes one file\'s rows or all; an unknown file names the known ones', async () => {
    const s = await store();
    const a = join(dir, 'ls-a.jsonl');
    const b = join(dir, 'ls-b.jsonl');
    writeFileSync(a, JSONL.slice(0, 2).join('\n'));
    writeFileSync(b, [JSONL[0], JSON.stringify({ text: 'Another row only b has.', url: 'https://b.example/1' })].join('\n'));
    let t = Date.parse('2026-01-01T00:00:00Z');
    await importCorpus(s, a, { now: () => new Date(t) });
    t += 60_000;
    await importCorpus(s, b, { now: () => new Date(t) });
    // The row both files hold belongs to a (first import); b brought one new row.
    expect(corpusFiles(s.db)).toEqual([
      { file: a, rows: 2, first_added_at: '2026-01-01T00:00:00.000Z', last_added_at: '2026-01-01T00:00:00.000Z' },
      { file: b, rows: 1, first_added_at: '2026-01-01T00:01:00.000Z', last_added_at: '2026-01-01T00:01:00.000Z' },
    ]);
    expect(() => removeCorpusRows(s.db, { file: join(dir, 'none.jsonl') })).toThrow(/ls-a\.jsonl, .*ls-b\.jsonl/);
    expect(removeCorpusRows(s.db, { file: a })).toEqual({ removed: 2, file: a });
    expect(corpusSize(s.db)).toBe(1);
    // The full-text index follows the deletions (its delete trigger).
    expect((s.db.prepare(`SELECT count(*) AS n FROM corpus_fts WHERE corpus_fts MATCH '"council"'`).get() as { n: number }).n).toBe(0);
    expect(removeCorpusRows(s.db, { all: true })).toEqual({ removed: 1, file: null });
    expect(corpusFiles(s.db)).toEqual([]);
  });
});
