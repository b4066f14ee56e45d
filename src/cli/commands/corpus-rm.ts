import type { Command } from 'commander';
import { VerityError } from '../../api/errors.js';
import { confirmed } from '../confirm.js';
import type { CliRuntime } from '../runtime.js';

/** Removes the rows one file brought into the corpus, or all of them: asks first on a terminal. */
export default async function corpusRm(rt: CliRuntime, cmd: Command): Promise<void> {
  const file = cmd.args[0] as string | undefined;
  const o = cmd.opts<{ all?: boolean; yes?: boolean }>();
  if ((file === undefined) === !o.all)
    throw new VerityError('VALIDATION_FAILED', file ? 'Give a file or --all, not both' : 'Give the file whose rows to remove, or --all', {
      details: [{ field: 'file', issue: 'a file imported with `verity corpus add` (see `verity corpus ls`), or --all' }],
    });
  const { corpusFiles, removeCorpusRows } = await import('../../sources/local-corpus.js');
  const store = await rt.openStore();
  try {
    const files = corpusFiles(store.db);
    const total = files.reduce((n, f) => n + f.rows, 0);
    // The question names what goes: the file matched and its row count (an unknown file fails first).
    let question: string;
    if (o.all) {
      if (total === 0) {
        if (rt.out.machine) return rt.out.json({ removed: 0, file: null });
        rt.out.info('The local corpus is already empty.');
        return;
      }
      question = `Remove all ${total} rows of the local corpus (${files.length} file${files.length === 1 ? '' : 's'})? This cannot be undone.`;
    } else {
      const { resolve } = await import('node:path');
      const match = files.find((f) => f.file === file) ?? files.find((f) => f.file === resolve(file!));
      if (!match) removeCorpusRows(store.db, { file: file! }); // throws NOT_FOUND naming the known files
      question = `Remove the ${match!.rows} rows imported from ${match!.file}? This cannot be undone.`;
    }
    if (!(await confirmed(rt, question, o.yes))) {
      rt.out.info('Nothing removed.');
      return;
    }
    const r = removeCorpusRows(store.db, o.all ? { all: true } : { file: file! });
    if (rt.out.machine) return rt.out.json(r);
    rt.out.success(`Removed ${r.removed} row${r.removed === 1 ? '' : 's'}${r.file ? ` imported from ${r.file}` : ' (the whole corpus)'}`);
  } finally {
    store.close();
  }
}
