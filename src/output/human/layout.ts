/**
 * Text layout for human output: wrapping at word boundaries only, borderless columns sized to
 * their content and to the terminal, and links that are never cut (printed whole on their own
 * line, as OSC 8 hyperlinks where the terminal supports them).
 *
 * Width comes from Output.width: the terminal's columns, else $COLUMNS, else none at all (piped
 * output is not wrapped: a script or a pager gets whole lines).
 */
import { stripVTControlCharacters } from 'node:util';
import Table from 'cli-table3';
import type { Output } from '../output.js';
import { visibleWidth, wrap } from '../wrap.js';

export { visibleWidth, wrap, wrapLines } from '../wrap.js';

/** A URL as the terminal can open it: an OSC 8 hyperlink where supported, always the whole text. */
export function link(out: Output, url: string): string {
  const shown = out.style.dim(url);
  if (!out.hyperlinks || !/^https?:\/\//i.test(url)) return shown;
  return `\u001b]8;;${url}\u001b\\${shown}\u001b]8;;\u001b\\`;
}

export interface Column {
  header: string;
  /** The column that wraps when the row is too wide (at most one; the last by default). */
  flex?: boolean;
}

/**
 * A borderless table (two spaces between columns), each column as wide as its widest cell; when
 * the terminal is narrower, the flexible column wraps at word boundaries. `below` cells (URLs,
 * ids) are printed whole on their own line under the row, never cut.
 */
export function columns(out: Output, cols: Column[], rows: Array<{ cells: string[]; below?: string[] }>): string {
  const gap = 2;
  const natural = cols.map((c, i) => Math.max(visibleWidth(c.header), ...rows.map((r) => visibleWidth(r.cells[i] ?? ''))));
  const marked = cols.findIndex((c) => c.flex);
  const flexAt = marked >= 0 ? marked : cols.length - 1;
  const widths = [...natural];
  const total = natural.reduce((a, b) => a + b, 0) + gap * (cols.length - 1);
  if (out.width !== null && total > out.width) {
    const others = total - natural[flexAt]!;
    // The flexible column keeps at least 20 columns: below that, wrapping helps nobody.
    widths[flexAt] = Math.max(20, out.width - others);
  }
  const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - visibleWidth(s)));
  const startOfFlex = widths.slice(0, flexAt).reduce((a, b) => a + b + gap, 0);
  const line = (cells: string[]): string => {
    const parts = cells.map((c, i) => {
      if (i !== flexAt) return i === cells.length - 1 ? c : pad(c, widths[i]!);
      const wrapped = out.width === null ? c : wrap(c, widths[i]!, ' '.repeat(startOfFlex));
      return i === cells.length - 1 ? wrapped : padFirstLine(wrapped, widths[i]!);
    });
    return parts.join(' '.repeat(gap)).trimEnd();
  };
  const padFirstLine = (s: string, w: number) => {
    const [first, ...rest] = s.split('\n');
    return [pad(first!, w), ...rest].join('\n');
  };
  const lines = [out.style.bold(line(cols.map((c) => c.header)))];
  for (const r of rows) {
    lines.push(line(r.cells));
    for (const b of r.below ?? []) lines.push(`  ${b}`);
  }
  return lines.join('\n');
}

/** A table needs this many columns; a narrower terminal gets the numbered list instead. */
export const MIN_TABLE_WIDTH = 60;

export interface TableColumn {
  header: string;
  /** Fixed content width (cells wrap at words inside it); omitted for the one column that takes the rest. */
  width?: number;
  align?: 'left' | 'right';
}

/**
 * A bordered cli-table3 table exactly `width` columns wide (or narrower): fixed columns keep their
 * widths, the one column without a width takes what is left; every cell wraps at word boundaries.
 * A word wider than its cell would be cut by cli-table3 with "…": it is split instead, so no
 * text is lost (only such a word is ever split). Returns null when the flexible column would get
 * fewer than `minFlex` columns (the caller prints a list instead).
 */
export function borderedTable(out: Output, cols: TableColumn[], rows: string[][], width: number, minFlex = 15, compact = false): string | null {
  // Each cell has one space of padding each side; n columns have n + 1 borders.
  const fixed = cols.reduce((a, c) => a + (c.width === undefined ? 0 : c.width + 2), 0);
  const flex = width - fixed - (cols.length + 1) - 2;
  if (flex < minFlex) return null;
  const inner = cols.map((c) => c.width ?? flex);
  const table = new Table({
    head: cols.map((c) => out.style.bold(c.header)),
    colWidths: inner.map((w) => w + 2),
    colAligns: cols.map((c) => c.align ?? 'left'),
    wordWrap: true,
    wrapOnWordBoundary: true,
    // Colour is ours (chalk, which follows --no-color and NO_COLOR), never cli-table3's own.
    style: { head: [], border: [], 'padding-left': 1, 'padding-right': 1 },
  });
  for (const r of rows) table.push(r.map((cell, i) => splitLongWords(cell, inner[i]!)));
  const text = table.toString();
  if (!compact) return text;
  // Compact: the rule under the header only (one-line rows read fine without rules between them).
  let rules = 0;
  return text
    .split('\n')
    .filter((l) => !stripVTControlCharacters(l).startsWith('├') || rules++ === 0)
    .join('\n');
}

/** Splits words wider than `width` (they would be cut with "…"): the only place a word is broken. */
function splitLongWords(cell: string, width: number): string {
  return cell
    .split('\n')
    .map((line) =>
      line
        .split(' ')
        .map((word) => {
          if (visibleWidth(word) <= width || word !== stripVTControlCharacters(word)) return word;
          const parts: string[] = [];
          for (let i = 0; i < word.length; i += width) parts.push(word.slice(i, i + width));
          return parts.join(' ');
        })
        .join(' '),
    )
    .join('\n');
}
