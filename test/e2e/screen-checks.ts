/**
 * What a person's terminal must never show (issue 32): a line wider than the terminal, a word
 * broken across two lines, raw JSON. Checked on tmux screens (test/e2e/tmux.ts).
 */

const BOX = /[│┌┐└┘├┤┬┴┼─]/;

/** Words of the texts the screen shows (from the result's JSON, the help, the messages): at least 4 letters. */
export function dictionary(...texts: string[]): Set<string> {
  const words = new Set<string>();
  for (const t of texts) for (const w of t.match(/[\p{L}\p{N}]{4,}/gu) ?? []) words.add(w.toLowerCase());
  return words;
}

/**
 * Pairs of (end of a line, start of the next) that join into a word of `dict` while one of the two
 * halves is no word of it: a word broken across lines. Table rows are compared cell by cell (the
 * same column in consecutive rows); other lines end to start.
 */
export function brokenWords(screen: string, dict: Set<string>): string[] {
  const lines = screen.split('\n');
  const found: string[] = [];
  const last = (s: string): string => (/([\p{L}\p{N}]+)[^\p{L}\p{N}]*$/u.exec(s.trimEnd())?.[1] ?? '').toLowerCase();
  const first = (s: string): string => (/^[^\p{L}\p{N}]*([\p{L}\p{N}]+)/u.exec(s.trimStart())?.[1] ?? '').toLowerCase();
  const check = (a: string, b: string, where: string): void => {
    // Only a line that ends in a letter or digit, followed by one that starts with one, can split a word.
    if (!/[\p{L}\p{N}]$/u.test(a.trimEnd()) || !/^[\p{L}\p{N}]/u.test(b.trimStart())) return;
    const x = last(a);
    const y = first(b);
    if (!x || !y) return;
    if (dict.has(x + y) && !(dict.has(x) && dict.has(y))) found.push(`${x}|${y} (${where})`);
  };
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = lines[i]!;
    const b = lines[i + 1]!;
    if (a.startsWith('│') && b.startsWith('│')) {
      const ca = a.split('│');
      const cb = b.split('│');
      if (ca.length === cb.length) ca.forEach((c, k) => check(c, cb[k]!, `table row ${i + 1}, column ${k}`));
    } else if (!BOX.test(a[0] ?? '') && !BOX.test(b[0] ?? '')) check(a, b, `line ${i + 1}`);
  }
  return found;
}

/** Lines wider than the terminal (a URL alone on its line may be; tmux -J joins what the terminal wrapped). */
export const tooWide = (screen: string, cols: number): string[] =>
  screen.split('\n').filter((l) => [...l].length > cols && !/^\s*(\[\d+\] )?https?:\/\/\S+$/.test(l));

/** Lines of raw data: JSON objects or arrays, or "key": value pairs. */
export const rawData = (screen: string): string[] => screen.split('\n').filter((l) => /^\s*[[{]\s*"|"[a-z_]+":\s/.test(l));
