/** Claim report: the evidence grouped by stance, then by source, with the passage that decided each. */
import type { ClaimResult } from '../api/results.js';
import { AUTHORITY_NOTE, badge, bar, dimensionsSection, evidenceTable, headline, warningsSection, type Tone } from './common.js';
import { fmt, html, link, type Html } from './html.js';
import { claimTrustMeaning } from '../output/trust-words.js';

const TONE: Record<ClaimResult['verdict'], Tone> = { true: 'good', false: 'bad', unverifiable: 'neutral', conflicting: 'warn' };
const MEANING: Record<ClaimResult['verdict'], string> = {
  true: 'The evidence found supports the claim.',
  false: 'The evidence found contradicts the claim.',
  unverifiable: 'Not enough relevant evidence was found to decide.',
  conflicting: 'Credible sources disagree about the claim.',
};

type Item = ClaimResult['evidence'][number];

function group(items: Item[], title: string, tone: Tone, id: string): Html {
  if (!items.length) return html`<h3 id="${id}">${title} (0)</h3><p class="muted">None.</p>`;
  const bySource = new Map<string, Item[]>();
  for (const e of items) bySource.set(e.source, [...(bySource.get(e.source) ?? []), e]);
  return html`<h3 id="${id}">${badge(title, tone)} ${items.length} item(s) from ${bySource.size} source(s)</h3>
${[...bySource].map(
    ([source, list]) => html`<h4>${source}</h4>${list.map(
      (e) => html`<blockquote><div>${e.snippet || html`<span class="muted">(no passage)</span>`}</div><div class="small" style="display:flex;gap:10px;align-items:center;flex-wrap:wrap">${link(e.url)} · authority ${fmt(e.authority_score)} <span style="width:120px;display:inline-block">${bar(e.authority_score, 'Authority')}</span> · retrieved ${e.retrieved_at}</div></blockquote>`,
    )}`,
  )}`;
}

export function claimBody(r: ClaimResult, claim: string | null): Html[] {
  const support = r.evidence.filter((e) => e.supports_claim);
  const against = r.evidence.filter((e) => !e.supports_claim && e.stance !== 'neutral');
  const neutral = r.evidence.filter((e) => e.stance === 'neutral');
  return [
    headline({ title: 'claim', subject: claim ? `“${claim}”` : 'Claim verification', verdict: r.verdict, tone: TONE[r.verdict], trust: r.trust_score, meaning: `${MEANING[r.verdict]} ${claimTrustMeaning(r.verdict, r.trust_score).replace(/^Trust: /, 'The trust score is ')}`, trustLabel: 'Trust: the chance that the claim is true (0 = surely false, 1 = surely true)' }),
    warningsSection(r.warnings),
    dimensionsSection(r.dimensions, r.dimension_producers, r.warnings),
    html`<section aria-labelledby="h-stance"><h2 id="h-stance">Evidence by stance</h2>
<p class="small muted">Each item is the passage that decided its stance. “Does not support” covers passages that contradict the claim and ones judged not to support it.</p>
${group(support, 'Supports the claim', 'good', 'h-support')}
${group(against, 'Does not support the claim', 'bad', 'h-against')}
${neutral.length ? group(neutral, 'Read, takes no side', 'neutral', 'h-neutral') : ''}</section>`,
    html`<section aria-labelledby="h-ev"><h2 id="h-ev">Evidence chain</h2>${AUTHORITY_NOTE}${evidenceTable(
      r.evidence.map((e) => ({ source: e.source, url: e.url, text: e.snippet, authority: e.authority_score, stance: e.stance === 'neutral' ? badge('neutral', 'neutral') : e.supports_claim ? badge('supports', 'good') : badge('does not support', 'bad') })),
      'Evidence chain',
      true,
    )}</section>`,
  ];
}
