/**
 * Pieces every human rendering shares: the simulated-data notice, the headline with a line
 * saying what trust means, the dimensions labelled by what produced them, and evidence items
 * laid out to the terminal's width with their URLs whole.
 */
import { notMeasured } from '../../api/not-measured.js';
import type { DimensionProducers, Dimensions } from '../../api/results.js';
import type { Output } from '../output.js';
import { borderedTable, link, MIN_TABLE_WIDTH, visibleWidth, wrap, type TableColumn } from './layout.js';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral';

const LABEL_WIDTH = 13;
const INDENT = ' '.repeat(LABEL_WIDTH);

export function toneText(out: Output, tone: Tone, text: string): string {
  const s = out.style;
  return tone === 'good' ? s.green.bold(text) : tone === 'warn' ? s.yellow.bold(text) : tone === 'bad' ? s.red.bold(text) : s.bold(text);
}

export function scoreBar(out: Output, score: number, width = 10): string {
  // In a narrow terminal the number alone says it.
  if (out.width !== null && out.width < 50) return toneText(out, score >= 0.7 ? 'good' : score >= 0.4 ? 'warn' : 'bad', score.toFixed(2));
  const filled = Math.round(score * width);
  const tone: Tone = score >= 0.7 ? 'good' : score >= 0.4 ? 'warn' : 'bad';
  const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
  return `${toneText(out, tone, score.toFixed(2))} ${out.style.dim(bar)}`;
}

/**
 * The sandbox's results are made up: say so first, on stdout, where the result is read, in the
 * engine's own words about what is simulated and what (a file's facts) is real.
 */
export function simulatedNotice(out: Output, warnings: string[] | undefined): string[] {
  const w = warnings?.find((x) => x.startsWith('sandbox:'));
  if (!w) return [];
  const what = w.replace(/^sandbox: simulated data \(test mode\);\s*/, '').replace(/^sandbox:\s*/, '');
  const text = `SIMULATED (sandbox: --test or a test key): ${what}.`;
  return [out.style.yellow.bold(wrap(text, out.width)), ''];
}

/**
 * The verdict line, under it one line saying what the trust score means for this kind and, when
 * the score is lower than its numbers suggest, why (not dimmed: it is part of the answer).
 */
export function headline(out: Output, label: string, value: string, tone: Tone, trust: number, meaning: string, why?: string | null): string[] {
  const w = out.width === null ? null : out.width - LABEL_WIDTH;
  const lines = [
    `${out.style.dim(label.padEnd(LABEL_WIDTH))}${toneText(out, tone, value.toUpperCase())}   ${out.style.dim('trust')} ${scoreBar(out, trust)}`,
    `${INDENT}${out.style.dim(wrap(meaning, w, INDENT))}`,
  ];
  if (why) lines.push(`${INDENT}${wrap(why, w, INDENT)}`);
  return lines;
}

/** A labelled line; long values wrap at word boundaries under the value column. */
export function field(out: Output, label: string, value: string): string {
  const w = out.width === null ? null : out.width - LABEL_WIDTH;
  return `${out.style.dim(label.padEnd(LABEL_WIDTH))}${wrap(value, w, INDENT)}`;
}

export function meta(out: Output, r: { id: string; latency_ms: number; credits_used: number }): string {
  // The id is printed whole, never wrapped: it is what people copy into `webhooks replay` etc.
  const credits = `${r.credits_used} credit${r.credits_used === 1 ? '' : 's'}`;
  // Embedded runs bill nothing: the number is what the same call would cost on a service.
  const cost = out.notBilled ? out.style.dim(`not billed (run here; ${credits} on a service)`) : credits;
  return field(out, 'Request', `${r.id} · ${Math.round(r.latency_ms)} ms · ${cost}`);
}

const DIM_LABELS: Record<keyof Dimensions, string> = {
  source_authority: 'source authority',
  cross_reference: 'agreement between sources',
  recency: 'recency',
  // What this number is depends on the engine and the kind (a stance model, a name match, an
  // LLM...): without a producer it is only "analysis", never a claim that an LLM ran.
  llm_analysis: 'analysis',
};

/** One dimension's label: the fourth is named by its producer; the others add it in brackets. */
export function dimensionLabel(key: keyof Dimensions, producers: DimensionProducers | undefined): string {
  const by = producers?.[key]?.trim();
  if (!by) return DIM_LABELS[key];
  return key === 'llm_analysis' ? by : `${DIM_LABELS[key]} (${by})`;
}

/**
 * The four numbers the trust score is made from, each labelled by what produced it; a number the
 * result's warnings mark as not measured (api/not-measured.ts) reads "not measured (why)".
 */
export function dimensions(out: Output, d: Dimensions, producers?: DimensionProducers, warnings?: readonly string[]): string {
  const unmeasured = notMeasured(warnings);
  const parts = (Object.keys(DIM_LABELS) as (keyof Dimensions)[]).map((k) => {
    const why = unmeasured.get(k);
    return why ? `${DIM_LABELS[k]} ${out.style.dim(`not measured (${why})`)}` : `${dimensionLabel(k, producers)} ${d[k].toFixed(2)}`;
  });
  // Wrap between parts, never inside one.
  const room = out.width === null ? Infinity : out.width - LABEL_WIDTH;
  const lines: string[] = [];
  for (const p of parts) {
    const last = lines[lines.length - 1];
    if (last !== undefined && visibleWidth(last) + 3 + visibleWidth(p) <= room) lines[lines.length - 1] = `${last} · ${p}`;
    else lines.push(p);
  }
  // A part wider than the room (a very narrow terminal) wraps at its own spaces.
  const fitted = lines.map((l) => wrap(l, out.width === null ? null : room, INDENT));
  return `${out.style.dim('Scored from'.padEnd(LABEL_WIDTH))}${fitted.join(`\n${INDENT}`)}`;
}

export interface EvidenceItem {
  /** The item's heading in the list form: source, stance, authority (short). */
  head: string;
  /** The same facts as table cells, one per column given to `evidenceSection` (source, stance or kind, authority). */
  cells: string[];
  /** The finding or passage, in plain words. */
  text?: string;
  /** Technical detail: shown with --verbose only (always in --json). */
  detail?: string;
  /** Printed whole, as a numbered reference under the table (or on its own line in the list). */
  url?: string;
}

/**
 * The evidence chain or findings. A table (cli-table3) when the output has a width of at least
 * MIN_TABLE_WIDTH columns — a terminal, or $COLUMNS set by whoever pipes it and so asks for a
 * layout — with the URLs as numbered references under it, whole and clickable; otherwise the
 * numbered list (piped output with no $COLUMNS, and terminals too narrow for a table).
 */
export function evidenceSection(out: Output, title: string, columns: TableColumn[], textHeader: string, items: EvidenceItem[]): string[] {
  if (items.length === 0) return [];
  const w = out.width;
  if (w !== null && w >= MIN_TABLE_WIDTH) {
    const refs: string[] = [];
    const pad = String(items.length).length + 4;
    const ref = (label: string, url: string): void => void refs.push(`  ${`[${label}]`.padStart(pad)} ${link(out, url)}`);
    const rows = items.map((e, i) => {
      // URLs inside the text would be split by the cell: they become references too ([3.1], …).
      let k = 0;
      const lift = (t: string): string =>
        t.replace(URL_IN_TEXT, (u) => {
          ref(`${i + 1}.${++k}`, u);
          return `[${i + 1}.${k}]`;
        });
      const body = [lift(e.text ?? ''), e.detail && out.opts.verbose ? out.style.dim(lift(e.detail)) : ''].filter(Boolean).join('\n');
      if (e.url) ref(String(i + 1), e.url);
      return [String(i + 1), ...e.cells, e.url ? `${body} [${i + 1}]` : body];
    });
    const cols: TableColumn[] = [{ header: '#', width: String(items.length).length, align: 'right' }, ...columns, { header: textHeader }];
    const table = borderedTable(out, cols, rows, w);
    if (table !== null) return ['', out.style.bold(`${title} (${items.length})`), table, ...refs];
  }
  return evidenceList(out, title, items);
}

/** A URL inside a passage or finding, up to the space or the punctuation that ends the sentence. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"]*[^\s<>".,;:!?)\]]/g;

/** Numbered evidence items: heading, text wrapped under it, URL whole on its own line. */
export function evidenceList(out: Output, title: string, items: EvidenceItem[]): string[] {
  if (items.length === 0) return [];
  const lines = ['', out.style.bold(`${title} (${items.length})`)];
  const numWidth = String(items.length).length;
  const indent = ' '.repeat(numWidth + 4);
  const w = out.width === null ? null : out.width - indent.length;
  items.forEach((e, i) => {
    lines.push(`  ${String(i + 1).padStart(numWidth)}  ${wrap(e.head, w, indent)}`);
    if (e.text) lines.push(`${indent}${wrap(e.text, w, indent)}`);
    if (e.detail && out.opts.verbose) lines.push(`${indent}${out.style.dim(wrap(e.detail, w, indent))}`);
    if (e.url) lines.push(`${indent}${link(out, e.url)}`);
  });
  return lines;
}

/** A source or check column: as wide as its longest word and at most 22 (longer names wrap). */
export function sourceWidth(names: string[]): number {
  const longestWord = Math.max(6, ...names.flatMap((n) => n.split(' ').map((w) => [...w].length)));
  const longest = Math.max(...names.map((n) => [...n].length));
  return Math.min(Math.max(longestWord, Math.min(longest, 22)), 30);
}

/** The authority column of evidence tables: the number alone (the header says what it is). */
export const AUTHORITY_COLUMN: TableColumn = { header: 'Authority', width: 9, align: 'right' };

export const authority = (out: Output, a: number): string => out.style.dim(`authority ${a.toFixed(2)}`);
