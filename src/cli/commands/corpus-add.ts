import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';

export default async function corpusAdd(rt: CliRuntime, cmd: Command): Promise<void> {
  const files = cmd.args as string[];
  const { importCorpus } = await import('../../sources/local-corpus.js');
  const store = await rt.openStore();
  const results = [];
  try {
    for (const file of files) {
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
  if (rt.out.machine) rt.out.json(results.length === 1 ? results[0] : results);
}
