/** Pieces every human rendering shares: the headline, the score bar, dimensions, tables. */
import Table from 'cli-table3';
import type { Dimensions } from '../../api/results.js';
import type { Output } from '../output.js';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral';

export function toneText(out: Output, tone: Tone, text: string): string {
  const s = out.style;
  return tone === 'good' ? s.green.bold(text) : tone === 'warn' ? s.yellow.bold(text) : tone === 'bad' ? s.red.bold(text) : s.bold(text);
}

export function scoreBar(out: Output, score: number, width = 10): string {
  const filled = Math.round(score * width);
  const tone: Tone = score >= 0.7 ? 'good' : score >= 0.4 ? 'warn' : 'bad';
  const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
  return `${toneText(out, tone, score.toFixed(2))} ${out.style.dim(bar)}`;
}

export function headline(out: Output, label: string, value: string, tone: Tone, trust: number): string {
  return `${out.style.dim(label.padEnd(13))}${toneText(out, tone, value.toUpperCase())}   ${out.style.dim('trust')} ${scoreBar(out, trust)}`;
}

export function field(out: Output, label: string, value: string): string {
  return `${out.style.dim(label.padEnd(13))}${value}`;
}

export function meta(out: Output, r: { id: string; latency_ms: number; credits_used: number }): string {
  return field(out, 'Request', `${r.id} · ${Math.round(r.latency_ms)} ms · ${r.credits_used} credit${r.credits_used === 1 ? '' : 's'}`);
}

const DIM_LABELS: Record<keyof Dimensions, string> = {
  source_authority: 'source authority',
  cross_reference: 'cross-reference',
  recency: 'recency',
  llm_analysis: 'LLM analysis',
};

export function dimensions(out: Output, d: Dimensions): string {
  const parts = (Object.keys(DIM_LABELS) as (keyof Dimensions)[]).map((k) => `${DIM_LABELS[k]} ${d[k].toFixed(2)}`);
  return field(out, 'Dimensions', parts.join(out.style.dim(' · ')));
}

/**
 * A table fitted to the terminal: fixed columns keep their width, the last (flexible) column
 * takes what is left and wraps.
 */
export function table(out: Output, head: string[], rows: string[][], fixed: number[]): string {
  const borders = head.length * 3 + 1;
  const flex = Math.max(20, out.width - borders - fixed.reduce((a, b) => a + b, 0));
  const t = new Table({
    head: head.map((h) => out.style.bold(h)),
    colWidths: [...fixed.map((w) => w + 2), flex + 2],
    wordWrap: true,
    wrapOnWordBoundary: true,
    style: { head: [], border: out.style.level > 0 ? ['grey'] : [] },
  });
  for (const r of rows) t.push(r);
  return t.toString();
}

export function warnings(out: Output, w: string[] | undefined): string {
  return w?.length ? `\n${w.map((x) => `${out.style.yellow('!')} ${x}`).join('\n')}` : '';
}

export const authorityCell = (a: number): string => a.toFixed(2);
