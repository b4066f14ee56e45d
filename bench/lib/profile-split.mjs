// Where a process's milliseconds go: the self time of a V8 CPU profile (`node --cpu-prof`, one
// file per thread) split into a few named parts by each sample's stack. Used by
// bench/small-files.mjs --profile; the parts are the ones docs/performance.md names.
import { readFileSync } from 'node:fs';

/** Parts in the order they are tested: the first that matches a sample takes it. */
const PARTS = [
  ['waiting (idle)', (s) => s.self === '(idle)'],
  ['garbage collection', (s) => s.self === '(garbage collector)'],
  // With the detector's warm-up, which the CLI thread runs while pdf.js reads (document/verify.ts).
  ['AI-text features', (s) => s.names.has('analyzeAiText') || s.names.has('prepareAiTextDetector')],
  ['pdf.js (open, text)', (s) => s.urls.some((u) => u.endsWith('/pdfjs.cjs'))],
  ['code caches (read, deserialise)', (s) => (s.self === 'Script' && s.selfUrl === 'node:vm') || (/^readFile/.test(s.self) && (s.names.has('runBundle') || s.names.has('runCommonJsWithCodeCache')) && s.depthTo('runBundle', 'runCommonJsWithCodeCache') <= 3)],
  ['PDF structure, streams, signatures', (s) => s.names.has('analyzePdf') || s.names.has('readPdfStructure')],
  ['starting the PDF thread (new Worker)', (s) => s.names.has('startEarlyPdfThread')],
  ['Node start-up, built-in modules', (s) => s.self === '(program)' || s.names.has('compileForInternalLoader') || s.names.has('requireBuiltin') || s.urls.some((u) => /bootstrap|pre_execution|internal\/main\//.test(u))],
  ['CLI and engine code (load, run, output)', (s) => /\/(verity|extraction-thread|engine-worker)\.cjs$/.test(s.selfUrl) || s.urls.some((u) => /\/(verity|extraction-thread)\.cjs$/.test(u))],
  ['other Node internals', () => true],
];

/** Milliseconds per part of one profile file, and the profile's span. */
export function splitProfile(file) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stackOf = new Map();
  const sample = (id) => {
    let s = stackOf.get(id);
    if (s) return s;
    const frames = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) frames.push(byId.get(cur).callFrame);
    const names = new Set(frames.map((f) => f.functionName));
    s = {
      self: frames[0].functionName,
      selfUrl: frames[0].url,
      names,
      urls: frames.map((f) => f.url),
      depthTo: (...wanted) => frames.findIndex((f) => wanted.includes(f.functionName)),
    };
    stackOf.set(id, s);
    return s;
  };
  const ms = Object.fromEntries(PARTS.map(([name]) => [name, 0]));
  for (let i = 0; i < p.samples.length; i++) {
    const s = sample(p.samples[i]);
    const [name] = PARTS.find(([, test]) => test(s));
    ms[name] += (p.timeDeltas[i + 1] ?? 0) / 1000;
  }
  return { ms, spanMs: (p.endTime - p.startTime) / 1000 };
}

export const PART_NAMES = PARTS.map(([name]) => name);
