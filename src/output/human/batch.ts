/**
 * A batch's end for a person at a terminal (issue 32 item 2): one summary table by kind — items,
 * succeeded, failed, gate hits, how the results came out — then the failures and gate hits by
 * line, and where the results are. The per-item JSON is for scripts (pipes, --ndjson, --out).
 */
import type { BatchSummary } from '../../batch/outcome.js';
import type { TypeCounts } from '../../batch/tally.js';
import type { Output } from '../output.js';
import { field } from './common.js';
import { borderedTable, MIN_TABLE_WIDTH, wrap } from './layout.js';

/** Failures and gate hits listed by line; the rest are counted (all are in --json and the journal). */
const SHOW = 10;

const KIND: Record<string, string> = { claim: 'claims', business: 'companies', media: 'images/videos', document: 'documents' };

export interface BatchView {
  summary: BatchSummary;
  byType: ReadonlyMap<string, TypeCounts>;
  /** What the user gave as --out (as typed), when a journal was kept. */
  out?: string;
}

const outcomes = (o: Record<string, number>): string =>
  Object.entries(o)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([w, n]) => `${w} ${n}`)
    .join(', ');

export function renderBatchSummary(v: BatchView, out: Output): string {
  const s = v.summary;
  const st = out.style;
  const secs = (s.elapsed_ms / 1000).toFixed(1);
  const head = [`${s.total} item${s.total === 1 ? '' : 's'}`, `${s.succeeded} succeeded`, `${s.failed} failed`];
  if (s.resumed) head.push(`${s.resumed} from the earlier run`);
  if (s.not_run) head.push(`${s.not_run} not run`);
  const tone = s.failed || s.not_run || !s.gate.passed ? st.yellow.bold : st.green.bold;
  const lines = [field(out, 'Batch', `${tone(head.join(' · '))} ${st.dim(`in ${secs} s`)}`)];
  lines.push(
    field(
      out,
      'Results',
      v.out
        ? `one JSON line per item in ${v.out}${s.failed || s.not_run ? st.dim(' (run the same command with --resume to retry the failed and unrun items)') : ''}`
        : st.dim('not kept: add --out FILE to keep every result as NDJSON, or --ndjson to print them'),
    ),
  );
  if (s.gate.set) lines.push(field(out, 'Gate', s.gate.passed ? st.green('passed') : st.red.bold(`failed by ${s.gate.failed_items.length} item${s.gate.failed_items.length === 1 ? '' : 's'}`)));

  const w = out.width;
  const kinds = [...v.byType.entries()];
  const table = (cols: Parameters<typeof borderedTable>[1], rows: string[][]): string | null =>
    w !== null && w >= MIN_TABLE_WIDTH ? borderedTable(out, cols, rows, w, 12, true) : null;

  const byKind = table(
    [{ header: 'Kind', width: 13 }, { header: 'Items', width: 5, align: 'right' }, { header: 'OK', width: 5, align: 'right' }, { header: 'Failed', width: 6, align: 'right' }, { header: 'Gate', width: 4, align: 'right' }, { header: 'Outcomes' }],
    kinds.map(([t, k]) => [KIND[t] ?? t, String(k.items), String(k.succeeded), String(k.failed), String(k.gateHits), outcomes(k.outcomes) || '—']),
  );
  lines.push('');
  if (byKind) lines.push(byKind);
  else for (const [t, k] of kinds) lines.push(wrap(`${st.bold(KIND[t] ?? t)}: ${k.items} items, ${k.succeeded} ok, ${k.failed} failed, ${k.gateHits} gate hits${Object.keys(k.outcomes).length ? ` · ${outcomes(k.outcomes)}` : ''}`, w, '  '));

  const listed = <T>(title: string, items: T[], cols: Parameters<typeof borderedTable>[1], row: (x: T) => string[]): void => {
    if (!items.length) return;
    lines.push('', st.bold(`${title} (${items.length})`));
    const shown = items.slice(0, SHOW);
    const t = table(cols, shown.map(row));
    if (t) lines.push(t);
    else for (const x of shown) lines.push(wrap(`  ${row(x).join('  ')}`, w, '    '));
    if (items.length > SHOW) lines.push(st.dim(`  … and ${items.length - SHOW} more (all in --json${v.out ? ` and in ${v.out}` : ''})`));
  };
  listed('Failed items', s.failures, [{ header: 'Line', width: 5, align: 'right' }, { header: 'Item', width: idWidth(s.failures, w) }, { header: 'Error' }], (f) => [
    String(f.line ?? ''),
    f.custom_id,
    `${f.error.message} ${st.dim(`(${f.error.code})`)}`,
  ]);
  listed('Gate hits', s.gate.failed_items, [{ header: 'Line', width: 5, align: 'right' }, { header: 'Item', width: idWidth(s.gate.failed_items, w) }, { header: 'Why' }], (g) => [
    String(g.line ?? ''),
    g.custom_id,
    g.reasons.join('; '),
  ]);
  return lines.join('\n');
}

/** The item column: as wide as the longest custom_id (ids are copied: whole), up to half the terminal. */
const idWidth = (xs: Array<{ custom_id: string }>, w: number | null): number =>
  Math.max(6, Math.min(Math.floor((w ?? 80) / 2), ...xs.map((x) => [...x.custom_id].length)));
