/** Business report: the registries side by side, agreements and disagreements marked. */
import type { BusinessResult, RegistryFacts } from '../api/results.js';
import { AUTHORITY_NOTE, badge, dimensionsSection, evidenceTable, headline, warningsSection, type Tone } from './common.js';
import { html, link, type Html } from './html.js';
import { BUSINESS_TRUST, businessTrustWhy } from '../output/trust-words.js';

const TONE: Record<BusinessResult['status'], Tone> = { active: 'good', dissolved: 'bad', liquidation: 'bad', inactive: 'warn' };
const MEANING: Record<BusinessResult['status'], string> = {
  active: 'The registries list the company as active.',
  dissolved: 'The company has been dissolved.',
  liquidation: 'The company is in liquidation or insolvency proceedings.',
  inactive: 'The company is not active (or no source gave a usable status).',
};

type Field = RegistryFacts['agrees'][number];
const ROWS: [string, Field | null, (r: RegistryFacts) => string | null][] = [
  ['Name', 'legal_name', (r) => r.name],
  ['Registration number', 'registration_number', (r) => r.registration_number],
  ['Jurisdiction', 'jurisdiction', (r) => r.jurisdiction],
  ['Status', 'status', (r) => (r.status ? `${r.status}${r.raw_status && r.raw_status.toLowerCase() !== r.status ? ` (“${r.raw_status}”)` : ''}` : null)],
  ['Incorporated', 'incorporation_date', (r) => r.incorporation_date],
  ['Data as of', null, (r) => r.as_of],
];

function cell(r: RegistryFacts, field: Field | null, value: string | null): Html {
  const mark = r.role === 'basis' || !field ? null : r.disagrees.includes(field) ? 'disagree' : r.agrees.includes(field) ? 'agree' : null;
  return html`<td>${value ?? html`<span class="muted">—</span>`}${mark === 'agree' ? html` ${badge('agrees', 'good')}` : mark === 'disagree' ? html` ${badge('disagrees', 'bad')}` : ''}</td>`;
}

function sideBySide(r: BusinessResult): Html {
  const withRecords = r.evidence.filter((e) => e.record);
  if (!withRecords.length) return html`<p class="muted">This result carries no per-source records (an older server): see the evidence chain.</p>`;
  const disagreements = withRecords.reduce((n, e) => n + e.record!.disagrees.length, 0);
  return html`<p>${disagreements ? html`${badge(`${disagreements} disagreement(s)`, 'bad')} between the sources and the record the result is based on.` : html`${badge('no disagreements', 'good')} among the sources describing this company.`}</p>
<div style="overflow-x:auto"><table><thead><tr><th scope="col">Field</th>${withRecords.map((e) => html`<th scope="col">${link(e.url, e.source)}<div class="small muted">${e.record!.role === 'basis' ? 'basis of the result' : e.record!.role === 'alternative' ? 'a different entity with a similar name' : 'same entity, compared with the basis'}</div></th>`)}</tr></thead>
<tbody>${ROWS.map(([label, field, get]) => html`<tr><th scope="row">${label}</th>${withRecords.map((e) => cell(e.record!, field, get(e.record!)))}</tr>`)}</tbody></table></div>`;
}

export function businessBody(r: BusinessResult): Html[] {
  return [
    headline({ title: 'business', subject: r.legal_name, verdict: r.status, tone: TONE[r.status], trust: r.trust_score, meaning: `${MEANING[r.status]} Registration ${r.registration_number || '—'} (${r.jurisdiction || 'jurisdiction unknown'}), incorporated ${r.incorporation_date ?? 'date unknown'}. ${BUSINESS_TRUST.replace(/^Trust: /, 'The trust score is ')}`, why: businessTrustWhy(r) }),
    warningsSection(r.warnings),
    dimensionsSection(r.dimensions, r.dimension_producers, r.warnings),
    html`<section aria-labelledby="h-sources"><h2 id="h-sources">Sources side by side</h2>${sideBySide(r)}</section>`,
    r.officers?.length ? html`<section aria-labelledby="h-off"><h2 id="h-off">Officers</h2><table><thead><tr><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Appointed</th></tr></thead><tbody>${r.officers.map((o) => html`<tr><td>${o.name}</td><td>${o.role}</td><td>${o.appointed_on ?? '—'}</td></tr>`)}</tbody></table></section>` : html``,
    r.filings?.length ? html`<section aria-labelledby="h-fil"><h2 id="h-fil">Filings</h2><table><thead><tr><th scope="col">Type</th><th scope="col">Filed</th><th scope="col">Link</th></tr></thead><tbody>${r.filings.map((f) => html`<tr><td>${f.type}</td><td>${f.filed_at}</td><td>${link(f.url)}</td></tr>`)}</tbody></table></section>` : html``,
    html`<section aria-labelledby="h-ev"><h2 id="h-ev">Evidence chain</h2>${AUTHORITY_NOTE}${evidenceTable(
      r.evidence.map((e) => ({ source: e.source, url: e.url, text: e.finding ?? '', authority: e.authority_score })),
      'Evidence chain',
    )}</section>`,
  ];
}
