import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { requireFile } from '../input-files.js';

export default async function corpusAdd(rt: CliRuntime, cmd: Command): Promise<void> {
  const files = cmd.args as string[];
  // Every file is checked first, so a missing one is a usage error before anything is stored.
  for (const f of files) await requireFile(f, 'files');
  const { importCorpus } = await import('../../sources/local-corpus.js');
  const store = await rt.openStore();
  const results: Array<{ file: string; added: number }> = [];
  let current = '';
  if (rt.ctx.keptOnInterrupt)
    rt.ctx.keptOnInterrupt.note = () =>
      `${results.map((r) => `${r.file}: ${r.added} added`).join('; ') || 'no file finished'}; ${current} was not finished. ` +
      'Run the same `verity corpus add` again: rows already stored are not added twice.';
  try {
    for (const file of files) {
      current = file;
      const bar = rt.out.progress(`Importing ${file}`);
      const r = await importCorpus(store, file, {
        signal: rt.ctx.interrupted,
        now: () => rt.ctx.clock.now(),
        onProgress: (p) => bar.update(p.read, null, `${p.read} rows read, ${p.added} added`),
      });
      bar.done();
      results.push({ file, ...r });
      if (!rt.out.machine) {
        rt.out.success(`${file}: ${r.added} added, ${r.skipped} already present, ${r.rejected} rejected`);
        for (const e of r.errors) rt.out.warn(e);
      }
    }
  } finally {
    store.close();
  }
  if (rt.out.machine) rt.out.jsonList(results);
}
