// The import graph of src/: every relative import, re-export and import('…') between .ts files,
// read with a regular expression (the code base has one import style, and a miss here shows up
// as a missing edge in the architecture test, never as a false alarm). Used by
// test/unit/architecture.test.ts; `node scripts/import-graph.mjs` prints folder circles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SPEC = /(?:\bimport\s*(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?|\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+|\bimport\s*\(\s*)['"]([^'"]+)['"]/g;

export function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** Specifiers a file imports, comments stripped (a `//` inside a string is rare enough to accept). */
export function specifiersOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(SPEC)].map((m) => m[1]);
}

/** { files: [rel], edges: Map<rel, Set<rel>>, packages: Map<rel, Set<pkg>> } with paths relative to root. */
export function importGraph(root, srcDir = 'src') {
  const abs = listTs(resolve(root, srcDir));
  const rel = (p) => relative(root, p).split(sep).join('/');
  const known = new Set(abs.map(rel));
  const edges = new Map();
  const packages = new Map();
  for (const file of abs) {
    const from = rel(file);
    const to = new Set();
    const pk = new Set();
    for (const s of specifiersOf(readFileSync(file, 'utf8'))) {
      if (s.startsWith('.')) {
        const target = rel(resolve(dirname(file), s.replace(/\.js$/, '.ts')));
        const candidates = [target, target.endsWith('.ts') ? target : `${target}.ts`, `${target}/index.ts`];
        const hit = candidates.find((c) => known.has(c));
        if (hit) to.add(hit);
      } else {
        pk.add(s.startsWith('node:') ? s : s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
      }
    }
    edges.set(from, to);
    packages.set(from, pk);
  }
  return { files: [...known].sort(), edges, packages };
}

/** Collapse the file graph onto groups (group(file) → name or undefined to skip); self-edges dropped. */
export function groupGraph(graph, group) {
  const g = new Map();
  const witness = new Map();
  for (const [from, tos] of graph.edges) {
    const a = group(from);
    if (a === undefined) continue;
    if (!g.has(a)) g.set(a, new Set());
    for (const to of tos) {
      const b = group(to);
      if (b === undefined || a === b) continue;
      g.get(a).add(b);
      const k = `${a} -> ${b}`;
      if (!witness.has(k)) witness.set(k, `${from} -> ${to}`);
    }
  }
  return { graph: g, witness };
}

/** Strongly connected components with more than one member (Tarjan). */
export function cycles(g) {
  let index = 0;
  const idx = new Map(), low = new Map(), on = new Set(), stack = [], out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do { w = stack.pop(); on.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

export const folderOf = (file) => file.slice(0, file.lastIndexOf('/'));

if (import.meta.url === `file://${process.argv[1]}`) {
  const graph = importGraph(process.cwd());
  const { graph: g, witness } = groupGraph(graph, folderOf);
  for (const comp of cycles(g)) {
    console.log(`circle: ${comp.join(' ')}`);
    for (const a of comp) for (const b of g.get(a)) if (comp.includes(b)) console.log(`   ${witness.get(`${a} -> ${b}`)}`);
  }
  const files = cycles(graph.edges);
  for (const comp of files) console.log(`file circle: ${comp.join(' ')}`);
}
