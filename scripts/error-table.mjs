// The README's error table, generated from ERROR_CATALOGUE (src/api/errors.ts) so the two never
// drift: test/unit/api/error-table.test.ts compares README.md's section between
// <!-- errors:start --> and <!-- errors:end --> with errorTable(ERROR_CATALOGUE).
// `node scripts/error-table.mjs` prints the table from the built catalogue (npm run build first).
import { pathToFileURL } from 'node:url';

const cell = (s) => String(s).replace(/\|/g, '\\|');

/** @param {Record<string, {status: number, exit: number, meaning: string}>} catalogue */
export function errorTable(catalogue) {
  const rows = Object.entries(catalogue).map(
    ([code, e]) => `| ${e.status} | \`${code}\` | ${e.exit} | ${cell(e.meaning)} |`,
  );
  return ['| HTTP | code | CLI exit | meaning |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { ERROR_CATALOGUE } = await import('../dist/api/errors.js');
  process.stdout.write(errorTable(ERROR_CATALOGUE));
}
