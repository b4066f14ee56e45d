#!/usr/bin/env node
/**
 * Bulk imports as whole processes against `sqlite3 .import` into the same table shape (issue 31:
 * `corpus add` and `data import` within 1.3× of sqlite3's CPU). Each pair runs the shipped CLI
 * (bin/verity.js, built) on a fresh store and the sqlite3 shell on a fresh database, in turn
 * (A B A B …, one warm-up each), through /usr/bin/time; the ratio is taken pair by pair and its
 * median reported (bench/lib/interleave.mjs).
 *
 * - `corpus add FILE.csv` and `corpus add FILE.jsonl`: N generated passages (bench/lib/passages.mjs:
 *   1–3 sentences of Zipf-distributed words, no two alike) with url, source, published_at and
 *   authority. The anchor: the corpus tables created by the same migrations
 *   (CORPUS_MIGRATIONS), the CSV read by `.import` into a staging table, one INSERT … SELECT
 *   computing the same kind of content hash (`sha3(text || NUL || url)`: a SHA-256 in verity),
 *   the stored counters set, the FTS5 index built by one `'rebuild'`, one transaction. The JSONL
 *   import is compared with the same anchor (sqlite3 has no JSONL reader).
 * - `data import companies-house`: the Companies House CSV of bench/business.mjs (55 columns);
 *   the anchor reads every column with `.import`, inserts the six kept into the registry's tables
 *   (COMPANIES_MIGRATIONS), builds the name index after the load and the FTS5 index by
 *   `'rebuild'` + `'optimize'`, one transaction.
 *
 *   npm run build && node bench/corpus-import.mjs [--rows 100000] [--ch-rows 300000] [--runs 5]
 *     [--only corpus-csv,corpus-jsonl,companies-house] [--anchor-trigger]
 *
 * `--generate DIR` writes the corpus files (corpus.csv, corpus.jsonl) and the sqlite3 script
 * (anchor-corpus.sql) into DIR and stops: for profiling one side by hand.
 *
 * `--anchor-trigger`: the corpus anchor indexes by the per-row trigger instead of a rebuild (the
 * slower sqlite3 way; the figure issue 31 first quoted).
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { interleave } from './lib/interleave.mjs';
import { passageGenerator } from './lib/passages.mjs';

const arg = (name, d) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const ROWS = Number(arg('rows', 100_000));
const CH_ROWS = Number(arg('ch-rows', 300_000));
const RUNS = Number(arg('runs', 5));
const ONLY = new Set(arg('only', 'corpus-csv,corpus-jsonl,companies-house').split(','));
const ANCHOR_TRIGGER = process.argv.includes('--anchor-trigger');
const GOAL = 1.3;

const dist = new URL('../dist/', import.meta.url);
const { CORPUS_MIGRATIONS } = await import(new URL('sources/local-corpus.js', dist).href);
const { COMPANIES_MIGRATIONS } = await import(new URL('engine/business/local-registry.js', dist).href);
const cli = fileURLToPath(new URL('../bin/verity.js', import.meta.url));
const sqlite3 = spawnSync('sqlite3', ['-version'], { encoding: 'utf8' });
if (sqlite3.status !== 0) {
  console.error('sqlite3 (the shell) is not installed: nothing to compare with');
  process.exit(2);
}

const GENERATE = arg('generate', undefined);
const dir = GENERATE ?? mkdtempSync(join(tmpdir(), 'verity-bench-import-'));
if (GENERATE) mkdirSync(GENERATE, { recursive: true });
const home = join(dir, 'home');
const anchorDb = join(dir, 'anchor.db');
const env = { ...process.env, VERITY_HOME: home, NO_COLOR: '1' };
const fresh = () => rmSync(join(home, 'data'), { recursive: true, force: true });
const freshAnchor = () => ['', '-wal', '-shm', '-journal'].forEach((s) => rmSync(anchorDb + s, { force: true }));
const sqlQuote = (s) => `'${s.replaceAll("'", "''")}'`;

async function writeLines(file, count, line) {
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  let buf = '';
  for (let i = 0; i < count; i++) {
    buf += line(i);
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await new Promise((r) => out.once('drain', r));
      buf = '';
    }
  }
  out.write(buf);
  await new Promise((r) => out.end(r));
}

/** The same N passages as CSV and JSONL (text, url, source, published_at, authority). */
async function corpusFiles() {
  const rows = [];
  const { rand, passage } = passageGenerator({ seed: 7 });
  for (let i = 0; i < ROWS; i++)
    rows.push({
      text: passage(),
      url: `https://news${i % 997}.example/articles/${i}`,
      source: `news${i % 997}.example`,
      published_at: `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}`,
      authority: i % 4 === 0 ? '' : (Math.floor(rand() * 100) / 100).toFixed(2),
    });
  const csv = join(dir, 'corpus.csv');
  const jsonl = join(dir, 'corpus.jsonl');
  const q = (s) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  await writeLines(csv, ROWS + 1, (i) => (i === 0 ? 'text,url,source,published_at,authority\n' : `${Object.values(rows[i - 1]).map(q).join(',')}\n`));
  await writeLines(jsonl, ROWS, (i) => {
    const { authority, ...r } = rows[i];
    return `${JSON.stringify(authority ? { ...r, authority: Number(authority) } : r)}\n`;
  });
  return { csv, jsonl };
}

function corpusAnchorScript(csv) {
  const sql = join(dir, 'anchor-corpus.sql');
  const index = ANCHOR_TRIGGER ? '' : "INSERT INTO corpus_fts (corpus_fts) VALUES ('rebuild');";
  writeFileSync(
    sql,
    [
      'PRAGMA journal_mode = WAL;',
      'PRAGMA synchronous = NORMAL;',
      ...CORPUS_MIGRATIONS,
      ANCHOR_TRIGGER ? '' : 'DROP TRIGGER corpus_docs_ai;',
      'CREATE TEMP TABLE staging (text TEXT, url TEXT, source TEXT, published_at TEXT, authority TEXT);',
      `.import --csv --skip 1 --schema temp ${csv} staging`,
      'BEGIN;',
      `INSERT OR IGNORE INTO corpus_docs (hash, text, url, source, published_at, authority, added_at, file)
         SELECT lower(hex(sha3(text || char(0) || url, 256))), text, url, nullif(source, ''), nullif(published_at, ''),
                CAST(nullif(authority, '') AS REAL), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ${sqlQuote(csv)} FROM temp.staging;`,
      `UPDATE corpus_stats SET value = (SELECT count(*) FROM corpus_docs) WHERE key = 'rows';`,
      `UPDATE corpus_stats SET value = (SELECT sum(length(text)) FROM corpus_docs) WHERE key = 'chars';`,
      index,
      'COMMIT;',
    ].join('\n'),
  );
  return sql;
}

function companiesAnchorScript(csv) {
  const sql = join(dir, 'anchor-ch.sql');
  // dd/mm/yyyy → yyyy-mm-dd, as the importer stores it.
  const iso = (c) => `CASE WHEN length(${c}) = 10 THEN substr(${c}, 7, 4) || '-' || substr(${c}, 4, 2) || '-' || substr(${c}, 1, 2) END`;
  writeFileSync(
    sql,
    [
      'PRAGMA journal_mode = WAL;',
      'PRAGMA synchronous = NORMAL;',
      ...COMPANIES_MIGRATIONS,
      'DROP INDEX company_registry_name_key;',
      'DROP INDEX company_registry_gleif_reg;',
      `.import --csv --schema temp ${csv} staging`,
      'BEGIN;',
      `INSERT INTO company_registry (source, record_id, name, name_key, reg_number, jurisdiction, status, incorporated_on, detail, batch)
         SELECT 'companies_house', trim(" CompanyNumber"), trim(CompanyName), lower(trim(CompanyName)), trim(" CompanyNumber"), 'gb',
                nullif(CompanyStatus, ''), ${iso('IncorporationDate')}, json_object('category', CompanyCategory), 1
           FROM temp.staging WHERE CompanyName <> '';`,
      `CREATE INDEX company_registry_name_key ON company_registry (name_key);`,
      `CREATE INDEX company_registry_gleif_reg ON company_registry (reg_number) WHERE source = 'gleif';`,
      "INSERT INTO company_registry_fts (company_registry_fts) VALUES ('rebuild');",
      "INSERT INTO company_registry_fts (company_registry_fts) VALUES ('optimize');",
      'COMMIT;',
    ].join('\n'),
  );
  return sql;
}

const results = [];
/** The rows each side stored after its last run: a comparison of unequal work is refused. */
function sameRows(table) {
  const count = (db) => spawnSync('sqlite3', [db, `SELECT count(*) FROM ${table}`], { encoding: 'utf8' }).stdout.trim();
  const [v, s] = [count(join(home, 'data', 'verity.db')), count(anchorDb)];
  if (v !== s || v === '0') throw new Error(`${table}: verity stored ${v} rows, sqlite3 ${s}`);
}
const cpuRow = (label, r) => {
  const ok = r.cpuRatio <= GOAL ? 'met' : 'NOT met';
  results.push(
    `| ${label} | ${(r.a.cpu / 1000).toFixed(2)} s | ${(r.b.cpu / 1000).toFixed(2)} s | **${r.cpuRatio.toFixed(2)}×** (goal ≤ ${GOAL}×: ${ok}) | ${r.wallRatio.toFixed(2)}× | ${r.a.rss.toFixed(0)} / ${r.b.rss.toFixed(0)} MB |`,
  );
  console.log(results.at(-1));
};

if (GENERATE) {
  corpusAnchorScript((await corpusFiles()).csv);
  process.exit(0);
}
try {
  const load0 = loadavg()[0];
  mkdirSync(home, { recursive: true });
  console.log(`| whole process, ${RUNS} interleaved pairs | verity CPU | sqlite3 CPU | CPU ratio (median of pairs) | wall ratio | peak RSS verity / sqlite3 |`);
  console.log('|---|---:|---:|---|---:|---:|');
  if (ONLY.has('corpus-csv') || ONLY.has('corpus-jsonl')) {
    const { csv, jsonl } = await corpusFiles();
    const anchor = { name: 'sqlite3 .import', steps: [['sqlite3', anchorDb, `.read ${corpusAnchorScript(csv)}`]], before: freshAnchor };
    const label = `${ROWS.toLocaleString('en')} passages`;
    for (const [kind, file] of [['csv', csv], ['jsonl', jsonl]]) {
      if (!ONLY.has(`corpus-${kind}`)) continue;
      const r = interleave({ name: 'verity corpus add', steps: [[process.execPath, cli, 'corpus', 'add', file]], before: fresh }, anchor, { runs: RUNS, env });
      sameRows('corpus_docs'); sameRows('corpus_fts_docsize');
      cpuRow(`\`corpus add\` ${label}, ${kind.toUpperCase()}${ANCHOR_TRIGGER ? ' (anchor: per-row trigger)' : ''}`, r);
    }
  }
  if (ONLY.has('companies-house')) {
    const csv = join(dir, 'BasicCompanyData.csv');
    const g = spawnSync(process.execPath, [fileURLToPath(new URL('./business.mjs', import.meta.url)), '--generate', csv, String(CH_ROWS)], { stdio: 'inherit' });
    if (g.status !== 0) throw new Error('generating the Companies House CSV failed');
    const r = interleave(
      { name: 'verity data import', steps: [[process.execPath, cli, 'data', 'import', 'companies-house', csv]], before: fresh },
      { name: 'sqlite3 .import', steps: [['sqlite3', anchorDb, `.read ${companiesAnchorScript(csv)}`]], before: freshAnchor },
      { runs: RUNS, env },
    );
    sameRows('company_registry'); sameRows('company_registry_fts_docsize');
    cpuRow(`\`data import companies-house\` ${CH_ROWS.toLocaleString('en')} rows`, r);
  }
  console.log(`\nload average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end; sqlite3 ${sqlite3.stdout.split(' ')[0]}, Node ${process.versions.node}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
