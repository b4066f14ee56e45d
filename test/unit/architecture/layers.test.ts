/**
 * The shape of src/ (issue 33, docs/architecture.md): imports point down the layers, no folder
 * forms an import circle, SQL lives in src/store/ (and the engine's own local data files), and the
 * store's files and functions stay small enough to read. Read from the source, so a change that
 * breaks a rule fails `npm test` with the offending edge or file named.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper, no types
import { cycles, groupGraph, importGraph } from '../../../scripts/import-graph.mjs';
// @ts-expect-error plain ESM helper, no types
import { functionLengths } from '../../../scripts/function-lengths.mjs';

type Graph = { files: string[]; edges: Map<string, Set<string>>; packages: Map<string, Set<string>> };
const root = new URL('../../../', import.meta.url).pathname;
const graph = importGraph(root) as Graph;

/** Layers, lowest first; a file belongs to the layer with the longest matching path prefix. */
const LAYERS: Record<string, string[]> = {
  // The apps' verifier (`verity/webhooks`): published alone, so it stands on nothing.
  'webhooks-verify': ['src/webhooks-verify/'],
  api: ['src/api/', 'src/version.ts'],
  config: ['src/config/'],
  domain: ['src/domain/'],
  'store-ports': ['src/store/ports/'],
  'local-store': ['src/store/local/'],
  sqlite: ['src/store/sqlite/'],
  postgres: ['src/store/postgres/'],
  'store-open': ['src/store/open.ts', 'src/store/migrate.ts', 'src/store/embedded-webhooks.ts'],
  sources: ['src/sources/'],
  engine: ['src/engine/'],
  webhooks: ['src/webhooks/'],
  server: ['src/server/'],
  shell: ['src/cli/', 'src/batch/', 'src/output/', 'src/report/', 'src/client/'],
};

/** What each layer may import besides itself (docs/architecture.md has the reasons). */
const MAY_IMPORT: Record<string, string[]> = {
  'webhooks-verify': [],
  api: ['webhooks-verify'],
  config: ['api'],
  domain: ['api', 'webhooks-verify'],
  'local-store': ['api'],
  'store-ports': ['api', 'domain', 'local-store'],
  sqlite: ['api', 'domain', 'store-ports', 'local-store'],
  postgres: ['api', 'domain', 'store-ports'],
  'store-open': ['api', 'domain', 'store-ports', 'local-store', 'sqlite', 'postgres'],
  sources: ['api', 'config', 'local-store'],
  engine: ['api', 'config', 'local-store', 'sources'],
  webhooks: ['api', 'domain', 'store-ports', 'sources'],
  server: ['api', 'domain', 'store-ports', 'local-store', 'sources', 'engine', 'webhooks'],
  shell: ['api', 'config', 'domain', 'store-ports', 'local-store', 'store-open', 'sources', 'engine', 'webhooks', 'server'],
};

/** Packages only some layers may use (drivers, the HTTP framework); `import type` counts too. */
const PACKAGE_LAYERS: Record<string, string[]> = {
  'better-sqlite3': ['local-store', 'sqlite'],
  // The port hands a store's transaction to hooks that write inside it: types only (see ports/).
  postgres: ['postgres', 'store-ports'],
  fastify: ['server'],
};

/**
 * Edges the table forbids that remain, each with its reason; the list may only shrink (a stale
 * entry fails). No inline exceptions anywhere else.
 */
const KNOWN_EDGES: Record<string, string> = {};

const prefixes = Object.entries(LAYERS)
  .flatMap(([layer, ps]) => ps.map((p) => [p, layer] as const))
  .sort((a, b) => b[0].length - a[0].length);
const layerOf = (file: string): string | undefined => prefixes.find(([p]) => file.startsWith(p))?.[1];

/** A folder of src/ as the circle check sees it: top-level folders, store/ by its sub-folders. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'store') return parts.length > 3 ? `src/store/${parts[2]}` : 'src/store';
  return parts.length > 2 ? `src/${parts[1]}` : file;
}

/**
 * Folder circles that stay inside one layer, each with its reason; the list may only shrink (an
 * entry that no longer holds fails too, so it is removed when fixed). Empty: keep it so.
 */
const KNOWN_FOLDER_CIRCLES: Record<string, string> = {};

/** Files outside src/store/ that may hold SQL: the engine's own local data (not serve's state). */
const SQL_ALLOWED = new Set([
  'src/sources/local-corpus.ts', // the local evidence corpus (FTS5)
  'src/sources/corpus-topk.ts', // the local corpus's bounded top-k search (FTS5, fts5vocab)
  'src/engine/business/local-registry.ts', // the imported company registry
  'src/engine/business/bulk-import.ts', // bulk loading into the registry
  'src/engine/media/media-index.ts', // the perceptual-hash index of known images
]);
const SQL = /\b(?:SELECT\s+(?:DISTINCT\s+)?[\w*(]|INSERT\s+(?:OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(?:TEMP\s+)?(?:TABLE|INDEX|UNIQUE\s+INDEX|VIRTUAL\s+TABLE|TRIGGER|FUNCTION|OR\s+REPLACE)\b|ALTER\s+TABLE\s|DROP\s+(?:TABLE|INDEX)\s)/;

describe('layers (docs/architecture.md)', () => {
  it('every file of src/ belongs to a layer', () => {
    expect(graph.files.filter((f) => !layerOf(f))).toEqual([]);
  });

  it('imports point down: no file imports a layer its own may not', () => {
    const wrong: string[] = [];
    for (const [from, tos] of graph.edges) {
      const a = layerOf(from)!;
      for (const to of tos) {
        const b = layerOf(to)!;
        if (a !== b && !MAY_IMPORT[a]!.includes(b)) wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong.filter((e) => !(e in KNOWN_EDGES)).map((e) => `${e} (${layerOf(e.split(' -> ')[0]!)} may not import ${layerOf(e.split(' -> ')[1]!)})`)).toEqual([]);
    expect(Object.keys(KNOWN_EDGES).filter((e) => !wrong.includes(e))).toEqual([]);
  });

  it('drivers and the HTTP framework are imported only where they belong', () => {
    const wrong: string[] = [];
    for (const [from, pkgs] of graph.packages)
      for (const p of pkgs) {
        const allowed = PACKAGE_LAYERS[p];
        if (allowed && !allowed.includes(layerOf(from)!)) wrong.push(`${from} -> ${p} (only ${allowed.join(', ')})`);
      }
    expect(wrong).toEqual([]);
  });

  it('the contract and the rules stay pure: api/ and domain/ use only zod and node:crypto', () => {
    const PURE = new Set(['zod', 'node:crypto']);
    const wrong: string[] = [];
    for (const [from, pkgs] of graph.packages)
      if (['api', 'domain'].includes(layerOf(from)!)) for (const p of pkgs) if (!PURE.has(p)) wrong.push(`${from} -> ${p}`);
    expect(wrong).toEqual([]);
  });

  it('the apps\' verifier (verity/webhooks) imports nothing but node:crypto', () => {
    const files = graph.files.filter((f) => layerOf(f) === 'webhooks-verify');
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect([...(graph.packages.get(f) ?? [])].filter((p) => p !== 'node:crypto'), f).toEqual([]);
      expect([...(graph.edges.get(f) ?? [])].filter((t) => layerOf(t) !== 'webhooks-verify'), f).toEqual([]);
    }
  });

  it('the two stores never import each other, and the store never imports server/ or webhooks/', () => {
    const wrong: string[] = [];
    for (const [from, tos] of graph.edges)
      for (const to of tos) {
        const a = layerOf(from);
        const b = layerOf(to);
        if ((a === 'sqlite' && b === 'postgres') || (a === 'postgres' && b === 'sqlite')) wrong.push(`${from} -> ${to}`);
        if (from.startsWith('src/store/') && (to.startsWith('src/server/') || to.startsWith('src/webhooks/'))) wrong.push(`${from} -> ${to}`);
      }
    expect(wrong).toEqual([]);
  });

  it('no import circle between folders (top-level folders of src/, store/ by its sub-folders)', () => {
    const { graph: g, witness } = groupGraph(graph, folderOf) as { graph: Map<string, Set<string>>; witness: Map<string, string> };
    const found = (cycles(g) as string[][]).map((c) => c.join(' '));
    const unknown = found.filter((c) => !(c in KNOWN_FOLDER_CIRCLES));
    const explain = unknown.map((c) => {
      const members = c.split(' ');
      const edges = members.flatMap((a) => [...(g.get(a) ?? [])].filter((b) => members.includes(b)).map((b) => witness.get(`${a} -> ${b}`)));
      return `${c}: ${edges.join('; ')}`;
    });
    expect(explain).toEqual([]);
    expect(Object.keys(KNOWN_FOLDER_CIRCLES).filter((c) => !found.includes(c))).toEqual([]);
    for (const c of found) {
      const layers = new Set(c.split(' ').map((f) => layerOf(`${f}/x.ts`)));
      expect(layers.size, `${c} spans layers ${[...layers].join(', ')}`).toBe(1);
    }
  });

  it('no circle between the files of src/store/ or src/domain/', () => {
    const sub = new Map([...graph.edges].filter(([f]) => f.startsWith('src/store/') || f.startsWith('src/domain/')));
    expect(cycles(sub)).toEqual([]);
  });
});

describe('the store holds the SQL, in small files', () => {
  const read = (f: string): string => readFileSync(`${root}${f}`, 'utf8');

  it('no SQL outside src/store/ but the engine’s own local data files', () => {
    const found = graph.files.filter((f) => !f.startsWith('src/store/') && !SQL_ALLOWED.has(f) && SQL.test(read(f)));
    expect(found).toEqual([]);
    // The allowance stays honest: each allowed file still holds SQL.
    expect([...SQL_ALLOWED].filter((f) => !SQL.test(read(f)))).toEqual([]);
  });

  it('no file in src/store/ over 500 lines', () => {
    const long = graph.files.filter((f) => f.startsWith('src/store/')).map((f) => [f, read(f).split('\n').length] as const);
    expect(long.filter(([, n]) => n > 500)).toEqual([]);
  });

  it('no function in src/store/ over 80 lines', () => {
    const long: string[] = [];
    for (const f of graph.files.filter((x) => x.startsWith('src/store/')))
      for (const fn of functionLengths(read(f)) as Array<{ line: number; lines: number }>) if (fn.lines > 80) long.push(`${f}:${fn.line} (${fn.lines} lines)`);
    expect(long).toEqual([]);
  });

  it('the function counter sees functions (a check that finds nothing proves nothing)', () => {
    const sample = ['function a(x: number): Promise<void> {', '  if (x) {', '    return;', '  }', '}', 'const b = async () => {', '  return 1;', '};', 'class C {', '  m(): Promise<{ y: number }> {', '    return undefined;', '  }', '}'].join('\n');
    expect((functionLengths(sample) as Array<{ line: number; lines: number }>).map((f) => [f.line, f.lines])).toEqual([[1, 5], [6, 3], [10, 3]]);
  });
});
