#!/usr/bin/env node
// Runs the simple PDF text reader and pdf.js on each PDF and compares their text (issue 31).
//
//   node scripts/pdf-text-diff.mjs [--reader dist/.../simple-reader.js] [--pages 10] [--out diff.json]
//                                  [--skip FOLDER]... [--verbose] FILE_OR_FOLDER...
//
// The simple reader's contract: whenever `readSimplePdfFile(bytes, pages)` answers `{ ok: true,
// reading: { pages, text } }`, `text` is byte for byte what pdf.js gives through
// dist/engine/document/pdf/pdfjs-reader.js (`openPdfJs(bytes)` then `doc.text(pages)`) and `pages`
// is pdf.js's page count; otherwise it answers `{ ok: false, reason }` and pdf.js runs as before.
// This script counts, per producer and in total: files, eligible (ok), equal, unequal (each with
// its first differing line), the reasons of the files it turned down, pdf.js failures, and the
// in-process time of each reader (sums, and their ratio). Exits 1 when an eligible file is
// unequal or the simple reader threw; 2 on bad usage.
//
// The producer of a file is the `producer` its folder's manifest.json records (written by
// scripts/pdf-text-corpus.mjs: `{ "files": { "<path relative to the folder>": { "producer": … } } }`),
// else the Info dictionary's /Producer with version numbers removed; where the manifest gives sets
// ("real-world-like", "stress", "hostile", "fixture"), each set gets a total line too. Files are read once each
// (identical bytes found twice are counted once). Needs a built dist/ (`npm run build`).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function usage(message, code = 2) {
  process[code ? 'stderr' : 'stdout'].write(`${code ? `pdf-text-diff: ${message}\n` : ''}usage: node scripts/pdf-text-diff.mjs [--reader FILE] [--pages N] [--out FILE] [--skip FOLDER] [--verbose] FILE_OR_FOLDER...\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { reader: join(root, 'dist/engine/document/pdf/text/simple-reader.js'), pages: 10, out: undefined, verbose: false, inputs: [], skip: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--reader') opts.reader = resolve(value());
    else if (a === '--pages') opts.pages = Number(value());
    else if (a === '--out') opts.out = resolve(value());
    else if (a === '--skip') opts.skip.push(resolve(value()));
    else if (a === '--verbose' || a === '-v') opts.verbose = true;
    else if (a === '--help' || a === '-h') usage('', 0);
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else opts.inputs.push(resolve(a));
  }
  if (!opts.inputs.length) usage('no files or folders given');
  if (!Number.isInteger(opts.pages) || opts.pages < 1) usage('--pages must be a positive integer');
  return opts;
}

/** Every *.pdf under the inputs, with the producer a manifest.json records for it (if any). */
function collect(inputs, skip) {
  const files = [];
  const walk = (dir, manifests) => {
    if (skip.includes(dir)) return;
    const m = join(dir, 'manifest.json');
    if (existsSync(m)) {
      try {
        manifests = [...manifests, { dir, files: JSON.parse(readFileSync(m, 'utf8')).files ?? {} }];
      } catch (err) {
        usage(`${m}: ${err.message}`);
      }
    }
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p, manifests);
      else if (st?.isFile() && /\.pdf$/i.test(name)) files.push({ path: p, entry: lookup(manifests, p) });
    }
  };
  /** The nearest manifest.json in the folders above `dir` (a part of a corpus given on its own). */
  const above = (dir) => {
    for (let d = dirname(dir); ; d = dirname(d)) {
      if (existsSync(join(d, 'manifest.json'))) return [{ dir: d, files: JSON.parse(readFileSync(join(d, 'manifest.json'), 'utf8')).files ?? {} }];
      if (dirname(d) === d) return [];
    }
  };
  for (const input of inputs) {
    const st = statSync(input, { throwIfNoEntry: false });
    if (!st) usage(`${input}: no such file or folder`);
    if (st.isDirectory()) walk(input, above(input));
    else files.push({ path: input, entry: lookup(above(input), input) });
  }
  return files;
}

function lookup(manifests, file) {
  for (let i = manifests.length - 1; i >= 0; i--) {
    const e = manifests[i].files[relative(manifests[i].dir, file)];
    if (e) return e;
  }
  return undefined;
}

/** "pdfTeX-1.40.25" → "pdfTeX", "Skia/PDF m120" → "Skia/PDF", "GPL Ghostscript 10.00.0" → "GPL Ghostscript". */
function producerName(raw) {
  if (typeof raw !== 'string' || !raw.trim()) return '(no /Producer)';
  const s = raw
    .split(/,| - | by | version /i)[0]
    .replace(/\([^)]*\)/g, ' ')
    .replace(/[\s/-]*\bv?m?\d[\w.+~-]*/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return (s || raw.trim()).slice(0, 48);
}

/** /Producer read from the raw bytes when pdf.js could not open the file (first literal string only). */
function rawProducer(bytes) {
  const m = /\/Producer\s*\(((?:\\.|[^\\)])*)\)/.exec(bytes.toString('latin1'));
  if (!m) return undefined;
  // Enough of the literal-string escapes for a name (octal codes, escaped characters); a UTF-16 name keeps its ASCII letters.
  return m[1]
    .replace(/\\([0-7]{1,3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)))
    .replace(/\\(.)/g, '$1')
    .replace(/[^\x20-\x7e]/g, '');
}

/** The reason with its numbers and quoted names made generic, so the histogram groups like with like. */
function reasonKey(reason) {
  return String(reason)
    .replace(/\b\d+(\.\d+)?\b/g, "N")
    .replace(/(['"`])[^'"`]*\1/g, '$1…$1')
    .slice(0, 100);
}

function firstDifference(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return { line: i + 1, pdfjs: la[i] ?? null, simple: lb[i] ?? null };
  }
  return { line: 0, pdfjs: null, simple: null };
}

const clip = (s, n = 160) => (s === null || s === undefined ? String(s) : JSON.stringify(s.length > n ? `${s.slice(0, n)}…` : s));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const readerUrl = pathToFileURL(opts.reader).href;
  const pdfjsReader = join(root, 'dist/engine/document/pdf/pdfjs-reader.js');
  if (!existsSync(pdfjsReader)) usage(`${pdfjsReader} is missing (run npm run build)`);
  if (!existsSync(opts.reader)) usage(`${opts.reader} is missing (build the simple reader, or give --reader)`);
  const { openPdfJs, loadPdfJs } = await import(pathToFileURL(pdfjsReader).href);
  const { readSimplePdfFile } = await import(readerUrl);
  if (typeof readSimplePdfFile !== 'function') usage(`${opts.reader} exports no readSimplePdfFile`);
  await loadPdfJs(); // loading pdf.js is not part of any file's time

  const seen = new Set();
  const results = [];
  for (const { path, entry } of collect(opts.inputs, opts.skip)) {
    const bytes = readFileSync(path);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (seen.has(hash)) continue;
    seen.add(hash);
    const r = { file: path, bytes: bytes.length, producer: entry?.producer ?? undefined, infoProducer: undefined, kind: entry?.kind, set: entry?.set, expect: entry?.expect };

    let t = performance.now();
    try {
      const answer = await readSimplePdfFile(bytes, opts.pages);
      r.simpleMs = performance.now() - t;
      if (answer?.ok === true) r.simple = { pages: answer.reading.pages, text: answer.reading.text };
      else if (answer?.ok === false) r.reason = String(answer.reason);
      else r.simpleThrew = `answered neither ok: true nor ok: false (${typeof answer})`;
    } catch (err) {
      r.simpleMs = performance.now() - t;
      r.simpleThrew = err?.stack ?? String(err);
    }

    t = performance.now();
    let doc;
    try {
      doc = await openPdfJs(bytes);
      r.infoProducer = typeof doc.info.Producer === 'string' ? doc.info.Producer : undefined;
      const text = await doc.text(opts.pages);
      r.pdfjsMs = performance.now() - t;
      r.pdfjs = { pages: doc.pages, text };
    } catch (err) {
      r.pdfjsMs = performance.now() - t;
      r.pdfjsFailed = `${err?.name ?? 'Error'}: ${err?.message ?? err}`;
      r.infoProducer ??= rawProducer(bytes);
    } finally {
      await doc?.destroy().catch(() => undefined);
    }

    r.group = r.producer ?? producerName(r.infoProducer);
    if (r.simple) {
      if (!r.pdfjs) r.verdict = 'unequal';
      else r.verdict = r.simple.text === r.pdfjs.text && r.simple.pages === r.pdfjs.pages ? 'equal' : 'unequal';
      if (r.verdict === 'unequal') {
        r.difference = r.pdfjs
          ? { pages: { pdfjs: r.pdfjs.pages, simple: r.simple.pages }, ...firstDifference(r.pdfjs.text, r.simple.text) }
          : { pdfjsFailed: r.pdfjsFailed };
      }
    } else r.verdict = r.simpleThrew ? 'threw' : 'ineligible';
    if (opts.verbose) process.stderr.write(`${r.verdict.padEnd(10)} ${r.group.padEnd(24)} ${relative(process.cwd(), path)}${r.reason ? `  (${r.reason})` : ''}\n`);
    results.push(r);
  }

  report(results, opts);
  if (opts.out) {
    const dump = results.map(({ simple, pdfjs, ...r }) => ({
      ...r,
      pages: pdfjs?.pages,
      simplePages: simple?.pages,
      ...(r.verdict === 'unequal' ? { simpleText: simple?.text, pdfjsText: pdfjs?.text } : {}),
    }));
    writeFileSync(opts.out, `${JSON.stringify({ reader: opts.reader, pages: opts.pages, files: dump }, null, 1)}\n`);
    process.stdout.write(`\nwrote ${opts.out}\n`);
  }
  const bad = results.filter((r) => r.verdict === 'unequal' || r.verdict === 'threw').length;
  process.exit(bad ? 1 : 0);
}

function tally(rs) {
  const n = (v) => rs.filter((r) => r.verdict === v).length;
  const eligible = rs.filter((r) => r.simple).length;
  const sum = (k) => rs.reduce((s, r) => s + (r[k] ?? 0), 0);
  return { files: rs.length, eligible, equal: n('equal'), unequal: n('unequal'), threw: n('threw'), pdfjsFailed: rs.filter((r) => r.pdfjsFailed).length, pdfjsMs: sum('pdfjsMs'), simpleMs: sum('simpleMs') };
}

function report(results, opts) {
  const groups = new Map();
  for (const r of results) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  const rows = [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(0)}%` : '-');
  const header = ['producer', 'files', 'eligible', 'elig%', 'equal', 'unequal', 'threw', 'pdfjs-fail', 'pdfjs ms', 'simple ms', 'pdfjs/simple'];
  const line = (name, t) => [name, t.files, t.eligible, pct(t.eligible, t.files), t.equal, t.unequal, t.threw, t.pdfjsFailed, t.pdfjsMs.toFixed(0), t.simpleMs.toFixed(0), t.simpleMs ? `${(t.pdfjsMs / t.simpleMs).toFixed(1)}x` : '-'];
  const sets = [...new Set(results.map((r) => r.set).filter(Boolean))].sort();
  const setRows = sets.length > 1 ? sets.map((name) => line(`total ${name}`, tally(results.filter((r) => r.set === name)))) : [];
  const table = [header, ...rows.map(([g, rs]) => line(g, tally(rs))), ...setRows, line('TOTAL', tally(results))];
  const widths = header.map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
  const out = [];
  out.push(`simple reader: ${opts.reader}`, `first ${opts.pages} pages; ${results.length} distinct files`, '');
  for (const [i, row] of table.entries()) {
    if (i === table.length - 1 - setRows.length) out.push(widths.map((w) => '-'.repeat(w)).join('  '));
    out.push(row.map((c, j) => (j === 0 ? String(c).padEnd(widths[j]) : String(c).padStart(widths[j]))).join('  '));
  }
  // Time on eligible files only: what the CLI saves where the fast path answers.
  const elig = tally(results.filter((r) => r.verdict === 'equal'));
  // What the CLI would spend with the fast path in front of pdf.js: the simple reader on every file, pdf.js where it declined.
  const all = tally(results);
  const withFastPath = results.reduce((sum, r) => sum + (r.simpleMs ?? 0) + (r.simple ? 0 : (r.pdfjsMs ?? 0)), 0);
  out.push('', `all files: pdf.js alone ${all.pdfjsMs.toFixed(0)} ms; the simple reader first, pdf.js where it declines ${withFastPath.toFixed(0)} ms (${(all.pdfjsMs / Math.max(withFastPath, 1e-6)).toFixed(2)}x)`);
  if (elig.files) out.push(`eligible and equal files only: pdf.js ${elig.pdfjsMs.toFixed(0)} ms, simple reader ${elig.simpleMs.toFixed(0)} ms (${(elig.pdfjsMs / Math.max(elig.simpleMs, 1e-6)).toFixed(1)}x); ineligible files cost the simple reader ${tally(results.filter((r) => r.verdict === 'ineligible')).simpleMs.toFixed(0)} ms before pdf.js ran`);

  const slowest = results.filter((r) => r.verdict === 'ineligible').sort((a, b) => b.simpleMs - a.simpleMs).slice(0, 5);
  if (slowest.length) out.push(`slowest to decline: ${slowest.map((r) => `${r.file} ${r.simpleMs.toFixed(0)} ms (${r.reason}; pdf.js ${r.pdfjsMs.toFixed(0)} ms)`).join(', ')}`);

  const reasons = new Map();
  for (const r of results) if (r.reason !== undefined) reasons.set(reasonKey(r.reason), (reasons.get(reasonKey(r.reason)) ?? 0) + 1);
  out.push('', 'reasons (not eligible):');
  for (const [k, v] of [...reasons].sort((a, b) => b[1] - a[1])) out.push(`  ${String(v).padStart(5)}  ${k}`);
  out.push('', 'reasons per producer:');
  for (const [g, rs] of rows) {
    const h = new Map();
    for (const r of rs) if (r.reason !== undefined) h.set(reasonKey(r.reason), (h.get(reasonKey(r.reason)) ?? 0) + 1);
    if (h.size) out.push(`  ${g}: ${[...h].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v}× ${k}`).join('; ')}`);
  }

  const unequal = results.filter((r) => r.verdict === 'unequal');
  out.push('', `unequal: ${unequal.length}`);
  for (const r of unequal) {
    const d = r.difference;
    out.push(`  ${r.file}  [${r.group}]`);
    if (d.pdfjsFailed) out.push(`    pdf.js failed (${d.pdfjsFailed}) but the simple reader answered ok`);
    else {
      if (d.pages.pdfjs !== d.pages.simple) out.push(`    pages: pdf.js ${d.pages.pdfjs}, simple ${d.pages.simple}`);
      if (d.line) out.push(`    line ${d.line}:`, `      pdf.js: ${clip(d.pdfjs)}`, `      simple: ${clip(d.simple)}`);
    }
  }
  const threw = results.filter((r) => r.verdict === 'threw');
  if (threw.length) {
    out.push('', `simple reader threw (or answered neither ok nor not ok): ${threw.length}`);
    for (const r of threw) out.push(`  ${r.file}: ${String(r.simpleThrew).split('\n')[0]}`);
  }
  const failed = results.filter((r) => r.pdfjsFailed);
  if (failed.length) {
    out.push('', `pdf.js failed: ${failed.length}`);
    for (const r of failed) out.push(`  ${r.file}: ${r.pdfjsFailed.slice(0, 120)} (simple reader: ${r.verdict === 'ineligible' ? `not eligible, ${r.reason}` : r.verdict})`);
  }
  const surprises = results.filter((r) => r.expect === 'ineligible' && r.simple);
  if (surprises.length) {
    out.push('', `eligible although the corpus expected "not eligible" (check these by eye; equal is what counts): ${surprises.length}`);
    for (const r of surprises) out.push(`  ${r.file} (${r.verdict})`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
