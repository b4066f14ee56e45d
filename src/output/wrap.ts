/**
 * Wrapping at word boundaries, for results (human/layout.ts) and for talk on stderr: a line is
 * only ever broken at a space, and a token longer than the line (a URL, a path, an id) keeps a
 * line of its own, whole. Dependency-free: main.ts uses it for the interrupt note.
 */
import { stripVTControlCharacters } from 'node:util';

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
    // Split on single spaces so that runs of spaces inside a line survive; a `quoted command` is
    // one word (it is there to be copied whole), unless it is wider than the line.
    const words = keepQuoted(para.split(' '), room);
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

/** Joins the words of a `backticked span` into one, when it closes and fits in `room`. */
function keepQuoted(words: string[], room: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.startsWith('`') && !/^`.*`[.,;:)]*$/.test(w)) {
      const end = words.findIndex((x, j) => j > i && /`[.,;:)]*$/.test(x));
      const joined = end > 0 ? words.slice(i, end + 1).join(' ') : null;
      if (joined !== null && visibleWidth(joined) <= room) {
        out.push(joined);
        i = end;
        continue;
      }
    }
    out.push(w);
  }
  return out;
}

/**
 * Wraps a block of talk (stderr messages, `listen` lines) to `width` columns at spaces, line by
 * line: each line keeps its own leading spaces and its continuation lines hang `hang` columns
 * further in. A token longer than the room (a URL, a path) keeps a line of its own, whole.
 * null width: unchanged (not a terminal).
 */
export function wrapLines(text: string, width: number | null, hang = 2): string {
  if (width === null) return text;
  return text
    .split('\n')
    .map((line) => {
      const lead = /^ */.exec(line)![0];
      const cont = ' '.repeat(lead.length + hang);
      return visibleWidth(line) <= width ? line : wrap(line, width - cont.length, cont);
    })
    .join('\n');
}

/**
 * Help text for a terminal of `width` columns: a paragraph (lines that start in column 0) with a
 * line too wide is joined and wrapped again between words; an indented line (an example command,
 * a table row) wraps on its own, its continuation hanging two columns further in. Lines that
 * fit are left as written.
 */
export function reflowText(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (/^\S/.test(lines[i]!)) {
      let j = i;
      while (j < lines.length && /^\S/.test(lines[j]!)) j++;
      const run = lines.slice(i, j);
      out.push(run.some((l) => visibleWidth(l) > width) ? wrap(run.join(' '), width) : run.join('\n'));
      i = j;
    } else out.push(wrapLines(lines[i++]!, width));
  }
  return out.join('\n');
}
