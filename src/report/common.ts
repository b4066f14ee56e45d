/** What every report shares: the page shell, the headline, the dimension bars, warnings, evidence. */
import { notMeasured } from '../api/not-measured.js';
import type { DimensionProducers, Dimensions } from '../api/results.js';
import { fmt, html, link, trusted, type Html } from './html.js';
import { CSS } from './style.js';

export type Tone = 'good' | 'warn' | 'bad' | 'neutral';
export const toneOfScore = (x: number): Tone => (x >= 0.7 ? 'good' : x >= 0.4 ? 'warn' : 'bad');
const SYMBOL: Record<Tone, string> = { good: '✓', warn: '!', bad: '✗', neutral: '•' };

/** A verdict word with its tone: colour plus a symbol, never colour alone. */
export const verdictBadge = (text: string, tone: Tone): Html => html`<span class="verdict tone-${tone}"><span aria-hidden="true">${SYMBOL[tone]} </span>${text.replace(/_/g, ' ')}</span>`;
export const badge = (text: string, tone: Tone): Html => html`<span class="badge tone-${tone}"><span aria-hidden="true">${SYMBOL[tone]} </span>${text.replace(/_/g, ' ')}</span>`;

/** A labelled 0..1 bar (role=img with the number in words for screen readers). */
export function bar(value: number, label: string, tone: Tone = toneOfScore(value)): Html {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return html`<div class="bar tone-${tone}${tone === 'good' || tone === 'neutral' ? '' : ' hatched'}" role="img" aria-label="${label}: ${fmt(value)} of 1"><span style="width:${pct}%"></span></div>`;
}

const DIMENSION_TEXT: Record<keyof Dimensions, [string, string]> = {
  source_authority: ['Source authority', 'how authoritative the best source or signature is'],
  cross_reference: ['Cross-reference', 'how far independent sources or records agree'],
  recency: ['Recency', 'how current and consistent the dates are'],
  llm_analysis: ['Content analysis', 'what the content analysis (model or forensics) concluded'],
};

export interface Headline {
  title: string;
  subject: string;
  verdict: string;
  tone: Tone;
  trust: number;
  /** One line saying what the verdict means. */
  meaning: string;
  /** What the trust number is for this kind (claims: the chance the claim is true). */
  trustLabel?: string;
  /** Why the score is lower than its dimensions give (companies), shown under the meaning. */
  why?: string | null;
}

export function headline(h: Headline): Html {
  return html`<header>
<p class="muted small">verity report · ${h.title}</p>
<h1>${h.subject}</h1>
<div class="headline" role="group" aria-label="Verdict and trust score">
  <div><div class="small muted">Verdict</div>${verdictBadge(h.verdict, h.tone)}</div>
  <div style="min-width:260px"><div class="small muted">${h.trustLabel ?? 'Trust score (0 = no trust, 1 = full trust)'}</div>
    <div style="display:flex;gap:10px;align-items:center"><strong style="font-size:1.4em">${fmt(h.trust)}</strong><div style="flex:1">${bar(h.trust, 'Trust score')}</div></div></div>
  <p style="flex-basis:100%;margin:0">${h.meaning}</p>
  ${h.why ? html`<p style="flex-basis:100%;margin:0"><strong>${h.why}</strong></p>` : ''}
</div>
</header>`;
}

/**
 * The four dimensions as bars; a dimension the warnings mark as not measured (api/not-measured.ts)
 * shows "not measured" and why, with no bar: its number is SPEC's neutral value, not a reading.
 */
export function dimensionsSection(d: Dimensions, producers: DimensionProducers | undefined, warnings?: readonly string[]): Html {
  const unmeasured = notMeasured(warnings);
  const rows = (Object.keys(DIMENSION_TEXT) as (keyof Dimensions)[]).map((k) => {
    const [name, what] = DIMENSION_TEXT[k];
    const by = producers?.[k];
    const why = unmeasured.get(k);
    if (why) return notMeasuredRow(name, what, why);
    return html`<div><strong>${name}</strong><div class="small muted">${what}</div></div>${bar(d[k], name)}<div class="num">${fmt(d[k])}</div><div class="small">${by ? html`produced by <strong>${by}</strong>` : html`<span class="muted">producer not stated</span>`}</div>`;
  });
  return html`<section aria-labelledby="h-dims"><h2 id="h-dims">Dimensions</h2>
<p class="small muted">Each dimension is a score from 0 to 1; the trust score combines them. The last column says what produced each number.</p>
<div class="dims">${rows}</div></section>`;
}

/** A row of the dimension grid for a number nobody measured: the words, no bar, no number. */
export function notMeasuredRow(name: string, what: string, why: string): Html {
  return html`<div><strong>${name}</strong><div class="small muted">${what}</div></div><div class="small muted" role="img" aria-label="${name}: not measured">not measured</div><div class="num muted">—</div><div class="small">${why}</div>`;
}

export function warningsSection(warnings: string[] | undefined): Html {
  if (!warnings?.length) return html``;
  const sandbox = warnings.some((w) => w.startsWith('sandbox:'));
  return html`<section aria-labelledby="h-warn"><h2 id="h-warn">Warnings</h2>
${sandbox ? html`<p class="notice"><strong>Simulated data.</strong> This result came from the sandbox (test mode): its facts are made up.</p>` : ''}
<ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`;
}

export const AUTHORITY_NOTE = html`<p class="small muted"><strong>Authority</strong> is how much weight a piece of evidence carries, from 0 to 1: cryptographic checks and registries of record about 0.9 and above, reference works and established news about 0.6–0.8, statistical and heuristic analyses about 0.3–0.5. Its bar is grey: weight says how much a finding counts, not whether it is good or bad news.</p>`;

export interface EvidenceRow {
  source: string;
  url?: string | null;
  text: string;
  detail?: string | null;
  authority: number;
  stance?: Html | null;
}

/** The evidence chain as a table, in the result's order (strongest first where the engine sorts). */
export function evidenceTable(rows: EvidenceRow[], caption: string, withStance = false): Html {
  if (!rows.length) return html`<p class="muted">No evidence items.</p>`;
  return html`<table><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">#</th><th scope="col">Source</th>${withStance ? html`<th scope="col">Stance</th>` : ''}<th scope="col">Finding</th><th scope="col" class="num">Authority</th></tr></thead>
<tbody>${rows.map(
    (r, i) => html`<tr><td class="num">${i + 1}</td><td>${r.url ? link(r.url, r.source) : r.source}${r.url ? html`<div class="small mono">${link(r.url)}</div>` : ''}</td>${withStance ? html`<td>${r.stance ?? ''}</td>` : ''}<td>${r.text}${r.detail && r.detail !== r.text ? html`<details><summary class="small">technical finding</summary><div class="small">${r.detail}</div></details>` : ''}</td><td class="num">${fmt(r.authority)}${bar(r.authority, 'Authority', 'neutral')}</td></tr>`,
  )}</tbody></table>`;
}

export interface Page {
  title: string;
  body: Html[];
  generatedAt: string;
  version: string;
  resultId: string;
}

export function page(p: Page): string {
  // The policy forbids every fetch (scripts, fonts, frames, connections); only inline styles and
  // data: images are allowed, so the file stays self-contained even if text slipped through.
  const csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html`${p.title}`}</title>
<style>${trusted(CSS)}</style></head>
<body>
<main>
${p.body.map(String).join('\n')}
</main>
${html`<footer>Result ${p.resultId} · report made ${p.generatedAt} by verity ${p.version}. This file is self-contained: it loads nothing from the network; links open only when clicked.</footer>`}
</body></html>
`;
}
