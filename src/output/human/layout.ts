/**
 * Text layout for human output: wrapping at word boundaries only, borderless columns sized to
 * their content and to the terminal, and links that are never cut (printed whole on their own
 * line, as OSC 8 hyperlinks where the terminal supports them).
 *
 * Width comes from Output.width: the terminal's columns, else $COLUMNS, else none at all (piped
 * output is not wrapped: a script or a pager gets whole lines).
 */
import { stripVTControlCharacters } from 'node:util';
import type { Output } from '../output.js';

/** Visible width: escape sequences take no room; one column per code point is close enough here. */
export const visibleWidth = (s: string): number => [...stripVTControlCharacters(s)].length;

/**
 * Wraps `text` to lines of at most `width` columns at spaces, never inside a word (a word longer
 * than the line gets a line of its own). `indent` is put before every line after the first (the
 * caller's column: it does not count against `width`); null width: no wrapping.
 */
export function wrap(text: string, width: number | null, indent = ''): string {
  if (width === null) return text;
  const out: string[] = [];
  const room = Math.max(10, width);
  for (const para of text.split('\n')) {
    // Split on single spaces so that runs of spaces inside a line survive.
    const words = para.split(' ');
    let line = words[0]!;
    let used = visibleWidth(line);
    for (const word of words.slice(1)) {
      const w = visibleWidth(word);
      if (w > 0 && used + 1 + w > room) {
        out.push(line.trimEnd());
        line = word;
        used = w;
      } else {
        line += ` ${word}`;
        used += 1 + w;
      }
    }
    out.push(line);
  }
  return out.map((l, i) => (i === 0 ? l : `${indent}${l}`)).join('\n');
}

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
