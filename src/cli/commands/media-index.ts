import { basename } from 'node:path';
import type { Command } from 'commander';
import { columns, link } from '../../output/human/layout.js';
import type { CliRuntime } from '../runtime.js';
import { readInputFile } from './verify-common.js';

export async function add(rt: CliRuntime, cmd: Command): Promise<void> {
  const o = cmd.opts<{ source: string; url: string; seen: string }>();
  // Read every file first, so a missing one is a usage error before anything is stored.
  const files = await Promise.all((cmd.args as string[]).map(async (f) => ({ name: basename(f), bytes: await readInputFile(f, 'files') })));
  const { addToMediaIndex } = await import('../../engine/media/media-index.js');
  const store = await rt.openStore();
  try {
    const rows = await addToMediaIndex(store, files, { source: o.source, url: o.url, seen: o.seen, now: rt.ctx.clock.now() });
    if (rt.out.machine) rt.out.jsonList(rows);
    else for (const r of rows) rt.out.success(`${r.name}: ${r.format}${r.width ? ` ${r.width}×${r.height}` : ''}, seen ${r.first_seen} at ${r.url}`);
  } finally {
    store.close();
  }
}

export async function list(rt: CliRuntime): Promise<void> {
  const { listMediaIndex } = await import('../../engine/media/media-index.js');
  const store = await rt.openStore();
  try {
    const rows = listMediaIndex(store);
    if (rt.out.machine) return rt.out.jsonList(rows);
    if (rows.length === 0) return rt.out.info('The media index is empty; add files with `verity media index add`.');
    rt.out.print(
      columns(
        rt.out,
        [{ header: 'First seen' }, { header: 'Source' }, { header: 'File', flex: true }],
        rows.map((r) => ({ cells: [r.first_seen.slice(0, 10), r.source, r.name ?? r.sha256], below: [link(rt.out, r.url)] })),
      ),
    );
  } finally {
    store.close();
  }
}
