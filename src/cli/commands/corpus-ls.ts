import type { CliRuntime } from '../runtime.js';
import { ago } from './keys-list.js';

/** The files the local corpus holds rows from: path, rows, when imported. */
export default async function corpusLs(rt: CliRuntime): Promise<void> {
  const { corpusFiles } = await import('../../sources/local-corpus.js');
  const store = await rt.openStore();
  let files;
  try {
    files = corpusFiles(store.db);
  } finally {
    store.close();
  }
  if (rt.out.machine) return rt.out.jsonList(files);
  if (files.length === 0) {
    rt.out.info('The local corpus is empty. Import one with: verity corpus add FILE.jsonl|csv');
    return;
  }
  const s = rt.out.style;
  const now = rt.ctx.clock.now();
  const table = [
    ['ROWS', 'IMPORTED', 'FILE'],
    ...files.map((f) => [String(f.rows), ago(f.last_added_at, now), f.file ?? '(file not recorded: imported by an older version)']),
  ];
  const widths = [0, 1].map((c) => Math.max(...table.map((row) => row[c]!.length)));
  const lines = table.map((row, i) => {
    const text = [row[0]!.padStart(widths[0]!), row[1]!.padEnd(widths[1]!), row[2]].join('  ');
    return i === 0 ? s.dim(text) : text;
  });
  rt.out.print(lines.join('\n'));
  const total = files.reduce((n, f) => n + f.rows, 0);
  rt.out.info(s.dim(`${total} row${total === 1 ? '' : 's'} from ${files.length} file${files.length === 1 ? '' : 's'}; searched by --sources local`));
}
