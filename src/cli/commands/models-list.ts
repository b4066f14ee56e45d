import type { CliRuntime } from '../runtime.js';

export interface ModelRow {
  kind: 'nli';
  id: string;
  path: string;
  /** Bytes on disk of the model's files. */
  size: number;
  /** true: every file matches the digest recorded at download; false: one does not; null: nothing recorded. */
  verified: boolean | null;
  problems: string[];
  integrity: 'pinned' | 'recorded' | 'local' | null;
  pulled_at: string | null;
  /** The model `claim.stance = nli` uses. */
  active: boolean;
}

export default async function modelsList(rt: CliRuntime): Promise<void> {
  const { readdirSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const [{ DEFAULT_NLI_MODEL, nliModelsRoot }, { checkModelFolder, readRecord }] = await Promise.all([
    import('../../engine/claim/nli/manifest.js'),
    import('../../engine/claim/nli/model-folder.js'),
  ]);
  const root = nliModelsRoot(rt.ctx.paths.dataDir);
  let names: string[] = [];
  try {
    names = readdirSync(root).filter((n) => !n.startsWith('.') && statSync(join(root, n)).isDirectory());
  } catch {
    names = [];
  }
  const claim = rt.config().claim;
  const activeId = claim?.stance === 'nli' ? (claim.nli_model ?? DEFAULT_NLI_MODEL) : undefined;
  const rows: ModelRow[] = [];
  for (const name of names.sort()) {
    const dir = join(root, name);
    const record = readRecord(dir);
    const check = await checkModelFolder(dir);
    const id = record?.id ?? name.replace('--', '/');
    rows.push({
      kind: 'nli',
      id,
      path: dir,
      size: check.size,
      verified: check.verified,
      problems: check.problems,
      integrity: record?.integrity ?? null,
      pulled_at: record?.pulled_at ?? null,
      active: id === activeId,
    });
  }
  if (rt.out.machine) return rt.out.jsonList(rows);
  if (rows.length === 0) {
    rt.out.info('No models in the data folder. Download the NLI model with: verity models pull nli');
    return;
  }
  const s = rt.out.style;
  const state = (r: ModelRow): string => (r.verified === true ? 'verified' : r.verified === false ? `CHANGED: ${r.problems.join('; ')}` : 'no record');
  const table = [
    ['', 'KIND', 'MODEL', 'SIZE', 'CHECK', 'PATH'],
    ...rows.map((r) => [r.active ? '*' : '', r.kind, r.id, `${(r.size / 1024 / 1024).toFixed(1)} MB`, state(r), r.path]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  const lines = table.map((row, i) => {
    const text = row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
    if (i === 0) return s.dim(text);
    const r = rows[i - 1]!;
    return r.verified === false ? s.red(text) : r.active ? s.green(text) : text;
  });
  rt.out.print(lines.join('\n'));
  if (activeId) rt.out.info(s.dim('* used for claims (claim.stance = nli)'));
  else rt.out.info(s.dim('claim.stance is local: set it to nli to use a model (verity config set claim.stance nli)'));
  for (const r of rows) if (r.verified === false) rt.out.warn(`${r.id} no longer matches its download; run: verity models pull nli --model ${r.id} --force`);
}
