import type { BusinessResult, CompanyStatus } from '../../api/results.js';
import type { Output } from '../output.js';
import { authorityCell, dimensions, field, headline, meta, table, type Tone } from './common.js';

const TONE: Record<CompanyStatus, Tone> = { active: 'good', dissolved: 'bad', liquidation: 'bad', inactive: 'warn' };

export function renderBusiness(r: BusinessResult, out: Output): string {
  const lines = [
    headline(out, 'Status', r.status, TONE[r.status], r.trust_score),
    field(out, 'Legal name', out.style.bold(r.legal_name)),
    field(out, 'Number', `${r.registration_number}  ${out.style.dim('jurisdiction')} ${r.jurisdiction}`),
    field(out, 'Incorporated', r.incorporation_date ?? out.style.dim('unknown')),
    dimensions(out, r.dimensions),
    meta(out, r),
  ];
  if (r.officers) {
    lines.push('', out.style.bold(`Officers (${r.officers.length})`));
    if (r.officers.length)
      lines.push(table(out, ['Role', 'Appointed', 'Name'], r.officers.map((o) => [o.role, o.appointed_on ?? '—', o.name]), [20, 10]));
  }
  if (r.filings) {
    lines.push('', out.style.bold(`Filings (${r.filings.length})`));
    if (r.filings.length)
      lines.push(table(out, ['Type', 'Filed', 'Document'], r.filings.map((f) => [f.type, f.filed_at, f.url]), [12, 10]));
  }
  lines.push('', out.style.bold(`Evidence (${r.evidence.length})`));
  lines.push(
    table(
      out,
      ['Source', 'Auth.', 'Finding'],
      r.evidence.map((e) => [e.source, authorityCell(e.authority_score), `${e.finding ?? ''}${e.finding ? '\n' : ''}${out.style.dim(e.url)}`]),
      [18, 5],
    ),
  );
  return lines.join('\n');
}
