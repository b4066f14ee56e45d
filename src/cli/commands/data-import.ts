import type { Command } from 'commander';
import type { CliRuntime } from '../runtime.js';
import { requireFile } from '../input-files.js';

export default async function dataImport(rt: CliRuntime, cmd: Command): Promise<void> {
  const [dataset, file] = cmd.args as [string, string];
  const o = cmd.opts<{ replace?: boolean }>();
  await requireFile(file, 'file');
  const mod = await import('../../engine/business/bulk-import.js');
  const run = dataset === 'companies-house' ? mod.importCompaniesHouse : dataset === 'gleif' ? mod.importGleif : mod.importSecTickers;
  const store = await rt.openStore();
  const { interruptedImport } = await import('../../engine/business/local-registry.js');
  const unfinished = interruptedImport(store, dataset);
  if (unfinished)
    rt.out.info(
      `The last import of ${dataset} (${unfinished.file}) did not finish: ${unfinished.rows_committed.toLocaleString('en')} rows were stored; rows already stored are skipped.`,
    );
  const bar = rt.out.progress(`Importing ${dataset}`);
  const started = performance.now();
  let committed = 0;
  // Said on Ctrl-C (main.ts): what stays stored and how to finish.
  const resume = `verity data import ${dataset} ${quoteArg(file)}${o.replace ? ' --replace' : ''}`;
  if (rt.ctx.keptOnInterrupt)
    rt.ctx.keptOnInterrupt.note = () =>
      `${committed.toLocaleString('en')} rows of ${dataset} were committed; the name index is rebuilt by the next import. ` +
      `Run \`${resume}\` to finish (rows already stored are skipped).`;
  let counts;
  try {
    counts = await run(store, file, {
      replace: Boolean(o.replace),
      signal: rt.ctx.interrupted,
      now: () => rt.ctx.clock.now(),
      onProgress: (p) => {
        committed = p.committedRows;
        bar.update(p.bytes, p.totalBytes, `${p.rows.toLocaleString('en')} rows`);
      },
    });
  } finally {
    bar.done();
    store.close();
  }
  const seconds = (performance.now() - started) / 1000;
  if (rt.out.machine) rt.out.json({ dataset, file, ...counts, seconds: Math.round(seconds * 10) / 10 });
  else
    rt.out.success(
      `${dataset}: ${counts.rows.toLocaleString('en')} rows read, ${counts.upserted.toLocaleString('en')} stored, ${counts.skipped} skipped` +
        `${counts.removed ? `, ${counts.removed} removed` : ''} in ${seconds.toFixed(1)} s`,
    );
}

/** A file name as the user would type it again in a POSIX shell. */
const quoteArg = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
