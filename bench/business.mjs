#!/usr/bin/env node
/**
 * Business bulk-data benchmark (issue 8). Generates a 1,000,000-row Companies House "Free
 * Company Data Product" CSV in a temp folder (never committed), imports it into a fresh store
 * in a child process (rows/s and that process's peak RSS), then looks names up (p50/p99).
 * Goals: ≥ 50,000 rows/s, peak RSS < 300 MB, lookup p50 < 5 ms.
 *
 *   npx tsc -p tsconfig.build.json && node bench/business.mjs [rows]
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
const mod = (p) => import(new URL(p, dist).href);

const HEADER =
  'CompanyName, CompanyNumber,RegAddress.CareOf,RegAddress.POBox,RegAddress.AddressLine1, RegAddress.AddressLine2,RegAddress.PostTown,RegAddress.County,RegAddress.Country,RegAddress.PostCode,CompanyCategory,CompanyStatus,CountryOfOrigin,DissolutionDate,IncorporationDate,Accounts.AccountRefDay,Accounts.AccountRefMonth,Accounts.NextDueDate,Accounts.LastMadeUpDate,Accounts.AccountCategory,Returns.NextDueDate,Returns.LastMadeUpDate,Mortgages.NumMortCharges,Mortgages.NumMortOutstanding,Mortgages.NumMortPartSatisfied,Mortgages.NumMortSatisfied,SICCode.SicText_1,SICCode.SicText_2,SICCode.SicText_3,SICCode.SicText_4,LimitedPartnerships.NumGenPartners,LimitedPartnerships.NumLimPartners,URI,PreviousName_1.CONDATE, PreviousName_1.CompanyName, PreviousName_2.CONDATE, PreviousName_2.CompanyName,PreviousName_3.CONDATE, PreviousName_3.CompanyName,PreviousName_4.CONDATE, PreviousName_4.CompanyName,PreviousName_5.CONDATE, PreviousName_5.CompanyName,PreviousName_6.CONDATE, PreviousName_6.CompanyName,PreviousName_7.CONDATE, PreviousName_7.CompanyName,PreviousName_8.CONDATE, PreviousName_8.CompanyName,PreviousName_9.CONDATE, PreviousName_9.CompanyName,PreviousName_10.CONDATE, PreviousName_10.CompanyName,ConfStmtNextDueDate, ConfStmtLastMadeUpDate';

const WORDS = 'acme alpha apex atlas beacon birch blue bright cedar cobalt crown delta eagle echo ember falcon fern forge global granite harbor harvest horizon iron ivy jade keystone lantern maple meadow nova oak orbit pine pioneer quartz raven ridge river rose sage silver solar spring summit swift thistle titan union vale vertex willow zenith'.split(' ');
const KINDS = 'trading holdings consulting services logistics property ventures solutions digital engineering foods media capital design studios systems'.split(' ');
const FORMS = ['LIMITED', 'LTD', 'PLC', 'LLP', 'LIMITED'];
const STATUSES = ['Active', 'Active', 'Active', 'Active', 'Active - Proposal to Strike off', 'Liquidation', 'In Administration'];

// Deterministic PRNG so every run benchmarks the same file.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
function nameOf(i) {
  const r = rng(i * 2654435761);
  const w = (a) => a[Math.floor(r() * a.length)];
  return `${w(WORDS)} ${w(WORDS)} ${w(KINDS)} ${i.toString(36)} ${w(FORMS)}`.toUpperCase();
}
const pad = (n) => String(n).padStart(2, '0');
function row(i) {
  const r = rng(i + 17);
  const num = String(i + 1).padStart(8, '0');
  const d = `${pad(1 + Math.floor(r() * 28))}/${pad(1 + Math.floor(r() * 12))}/${1960 + Math.floor(r() * 64)}`;
  const f = [nameOf(i), num, '', '', `${1 + (i % 300)} HIGH STREET`, '', 'LONDON', '', 'UNITED KINGDOM', 'EC1A 1AA', 'Private Limited Company', STATUSES[i % STATUSES.length], 'United Kingdom', '', d, '31', '12', '30/09/2025', '31/12/2023', 'TOTAL EXEMPTION FULL', '', '', '0', '0', '0', '0', '62020 - Information technology consultancy activities', '', '', '', '0', '0', `http://business.data.gov.uk/id/company/${num}`];
  for (let k = 0; k < 20; k++) f.push('');
  f.push('01/01/2026', '01/01/2025');
  return f.map((x) => `"${x}"`).join(',');
}

async function generate(file, rows) {
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  const write = (s) => (out.write(s) ? Promise.resolve() : new Promise((r) => out.once('drain', r)));
  await write(HEADER + '\r\n');
  let buf = '';
  for (let i = 0; i < rows; i++) {
    buf += row(i) + '\r\n';
    if (buf.length > 1 << 20) {
      await write(buf);
      buf = '';
    }
  }
  await write(buf);
  await new Promise((r) => out.end(r));
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function child(dbPath, csv, rows) {
  const { openStore } = await mod('store/local/database.js');
  const { importCompaniesHouse } = await mod('engine/business/bulk-import.js');
  const { findLocal } = await mod('engine/business/local-registry.js');
  const { rankCandidates } = await mod('engine/business/registry-search.js');
  const { fromLocalRow } = await mod('engine/business/records.js');
  const { matchKey } = await mod('engine/business/names.js');
  const store = await openStore(dbPath);
  let peak = process.memoryUsage().rss;
  const t0 = performance.now();
  const first = await importCompaniesHouse(store, csv, { onProgress: () => (peak = Math.max(peak, process.memoryUsage().rss)) });
  const importMs = performance.now() - t0;
  const peakImport = Math.max(peak, process.resourceUsage().maxRSS * 1024);
  const t1 = performance.now();
  const again = await importCompaniesHouse(store, csv);
  const rerunMs = performance.now() - t1;
  // The same file as a complete snapshot: unchanged rows must still be marked as present.
  const t2 = performance.now();
  const snapshot = await importCompaniesHouse(store, csv, { replace: true });
  const replaceMs = performance.now() - t2;

  // Look-ups as the engine makes them: candidates from the store, then ranking by similarity.
  const r = rng(99);
  const lookup = (name) => {
    const s = performance.now();
    const rowsFound = findLocal(store, { source: 'companies_house', key: matchKey(name) });
    const ranked = rankCandidates({ company_name: name, officers: false, filings: false }, rowsFound.map((x) => fromLocalRow(x, new Date().toISOString())), () => false);
    return { ms: performance.now() - s, hit: ranked.length > 0 };
  };
  const timings = (make) => {
    const ms = [];
    let hits = 0;
    for (let k = 0; k < 2000; k++) {
      const res = lookup(make(Math.floor(r() * rows)));
      ms.push(res.ms);
      if (res.hit) hits++;
    }
    ms.sort((a, b) => a - b);
    return { p50: pct(ms, 50), p99: pct(ms, 99), hits };
  };
  // A variant spelling of a stored name ("… Limited" for "… LTD", other case): exact key hits.
  const variant = timings((i) => nameOf(i).toLowerCase().replace(/ ltd$/, ' limited'));
  // The distinctive words only, out of order: the FTS5 path.
  const fuzzy = timings((i) => nameOf(i).split(' ').slice(0, 4).reverse().join(' '));
  store.close();
  process.stdout.write(JSON.stringify({ first, importMs, again, rerunMs, snapshot, replaceMs, peakImport, variant, fuzzy }));
}

async function main() {
  const rows = Number(process.argv[2] ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'verity-bench-business-'));
  try {
    const csv = join(dir, 'BasicCompanyData.csv');
    const g0 = performance.now();
    await generate(csv, rows);
    const size = statSync(csv).size;
    console.error(`generated ${rows.toLocaleString()} rows (${(size / 1048576).toFixed(0)} MB) in ${((performance.now() - g0) / 1000).toFixed(1)} s`);
    const res = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', join(dir, 'verity.db'), csv, String(rows)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    if (res.status !== 0) throw new Error(`import child failed (${res.status})`);
    const m = JSON.parse(res.stdout);
    const rowsPerS = rows / (m.importMs / 1000);
    const table = [
      ['metric', 'value', 'goal'],
      ['rows imported', m.first.rows.toLocaleString(), ''],
      ['import rows/s', Math.round(rowsPerS).toLocaleString(), '≥ 50,000'],
      ['import time', `${(m.importMs / 1000).toFixed(1)} s`, ''],
      ['re-import (idempotent) time', `${(m.rerunMs / 1000).toFixed(1)} s`, ''],
      ['re-import rows unchanged', `${(m.again.unchanged ?? 0).toLocaleString()}`, ''],
      ['re-import with replace', `${(m.replaceMs / 1000).toFixed(1)} s (${m.snapshot.removed} removed)`, ''],
      ['peak RSS (import process)', `${(m.peakImport / 1048576).toFixed(0)} MB`, '< 300 MB'],
      ['lookup p50 (variant spelling)', `${m.variant.p50.toFixed(3)} ms`, '< 5 ms'],
      ['lookup p99 (variant spelling)', `${m.variant.p99.toFixed(3)} ms`, ''],
      ['variant hits', `${m.variant.hits}/2000`, ''],
      ['lookup p50 (words reordered, FTS5)', `${m.fuzzy.p50.toFixed(3)} ms`, ''],
      ['lookup p99 (words reordered, FTS5)', `${m.fuzzy.p99.toFixed(3)} ms`, ''],
      ['fuzzy hits', `${m.fuzzy.hits}/2000`, ''],
    ];
    const w = [0, 1, 2].map((c) => Math.max(...table.map((r) => r[c].length)));
    for (const r of table) console.log(r.map((c, i) => c.padEnd(w[i])).join('  '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--generate') await generate(process.argv[3], Number(process.argv[4] ?? 300_000));
else if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], Number(process.argv[5]));
else await main();
